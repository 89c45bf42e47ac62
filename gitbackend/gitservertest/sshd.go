package gitservertest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// SSH is a running sshd on 127.0.0.1 that accepts one throwaway key and
// runs a forced command (git-shell, gitolite-shell) for it.
type SSH struct {
	// Port is the port sshd listens on.
	Port int
	// User is the login name (the user running the tests).
	User string
	// ClientHome is a HOME for the client: .ssh/id_ed25519 and a
	// known_hosts that names this server's host key.
	ClientHome string
}

// StartSSH starts sshd with a fresh host key and client key whose login
// runs forced (e.g. `git-shell -c "$SSH_ORIGINAL_COMMAND"`). It skips the
// test when sshd or ssh-keygen is absent. sshd stops when the test ends.
func StartSSH(t testing.TB, forced string) *SSH {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		t.Skip("sshd is not installed (apt-get install openssh-server; .ci/run installs it): skipping the ssh server")
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed: skipping the ssh server")
	}
	u, err := user.Current()
	if err != nil {
		t.Skip("no current user: " + err.Error())
	}
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "client")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	hostKey := filepath.Join(dir, "host_ed25519")
	clientKey := filepath.Join(home, ".ssh", "id_ed25519")
	for _, k := range []string{hostKey, clientKey} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, err := os.ReadFile(clientKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	// The forced command runs under the login shell, which sshd starts
	// with HOME from the password database; bash then sources that
	// account's ~/.bashrc (it does so when run by sshd), so a developer's
	// dotfiles would run on every connection. The server account gets a
	// HOME of its own instead, as a dedicated git user has, which also
	// keeps the account's ~/.gitconfig out of the server's git.
	serverHome := filepath.Join(dir, "server-home")
	if err := os.Mkdir(serverHome, 0o700); err != nil {
		t.Fatal(err)
	}
	auth := filepath.Join(dir, "authorized_keys")
	line := fmt.Sprintf("environment=%q,command=%q,no-port-forwarding,no-X11-forwarding,no-agent-forwarding,no-pty %s", "HOME="+serverHome, forced, pub)
	if err := os.WriteFile(auth, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	os.MkdirAll("/run/sshd", 0o755) // privilege separation dir (root only)
	cfg := filepath.Join(dir, "sshd_config")
	conf := fmt.Sprintf("Port %d\nListenAddress 127.0.0.1\nHostKey %s\nAuthorizedKeysFile %s\nPidFile %s\nStrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nAllowUsers %s\nPermitUserEnvironment HOME\nLogLevel ERROR\n",
		port, hostKey, auth, filepath.Join(dir, "sshd.pid"), u.Username)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sshd, "-D", "-e", "-f", cfg)
	var logs strings.Builder
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("sshd is installed but did not start: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd is installed but did not listen: %s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(hostPub))
	known := fmt.Sprintf("[127.0.0.1]:%d %s %s\n", port, fields[0], fields[1])
	if err := os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(known), 0o600); err != nil {
		t.Fatal(err)
	}
	return &SSH{Port: port, User: u.Username, ClientHome: home}
}

// URL returns the ssh:// URL of path on this server.
func (s *SSH) URL(path string) string {
	return fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", s.User, s.Port, path)
}

// StartAgent starts an ssh-agent (in the foreground, on a socket in a
// temporary directory) holding the client key of ClientHome, and returns
// its socket for SSH_AUTH_SOCK. It skips the test when ssh-agent or
// ssh-add is absent; the agent stops when the test ends.
func (s *SSH) StartAgent(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"ssh-agent", "ssh-add"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (openssh-client): skipping the ssh agent", tool)
		}
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	cmd := exec.Command("ssh-agent", "-D", "-a", sock)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("ssh-agent: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ssh-agent did not listen: %s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	add := exec.Command("ssh-add", filepath.Join(s.ClientHome, ".ssh", "id_ed25519"))
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}
	return sock
}
