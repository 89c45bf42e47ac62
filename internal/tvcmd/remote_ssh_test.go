package tvcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/gitbackend/gitservertest"
)

// sshEnv is a tv environment whose HOME holds the ssh client key and the
// server's known_hosts entry, without an ssh agent.
func sshEnv(t *testing.T, s *gitservertest.SSH, url string) *tvEnv {
	t.Helper()
	e := remoteEnv(t, url, "")
	e.home = s.ClientHome
	var env []string
	for _, kv := range e.env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "SSH_AUTH_SOCK=") {
			env = append(env, kv)
		}
	}
	e.env = append(env, "HOME="+s.ClientHome)
	return e
}

// TestRemoteVaultSSH: a vault on sshd (127.0.0.1, throwaway keys) behind
// git-shell: init, checkout, commit land; a host key that does not match
// known_hosts is refused (never accepted).
func TestRemoteVaultSSH(t *testing.T) {
	t.Parallel()
	s := gitservertest.StartSSH(t, `git-shell -c "$SSH_ORIGINAL_COMMAND"`)
	repo := filepath.Join(t.TempDir(), "vault.git")
	gitservertest.InitBare(t, repo)
	e := sshEnv(t, s, s.URL(repo))
	sshCommitLands(t, e, repo, "viassh", "ssh commit")
	// Unknown host key: refused with exit 5, never accepted or treated as offline.
	restore := distrustHostKey(t, s)
	_, errs, code := e.run("workspace", "list")
	if code != 5 || !strings.Contains(errs, "host key is not trusted") {
		t.Fatalf("unknown host key: exit %d\n%s", code, errs)
	}
	restore()
	gitservertest.Git(t, repo, "fsck", "--strict")
}

// TestRemoteVaultGitolite: gitolite3 as the multi-user server (sshd with
// gitolite-shell as the forced command for alice's key). tv's commands
// work on a repository alice may write; gitolite's own refusal of a
// read-only one comes back as exit 5 with gitolite's reason.
func TestRemoteVaultGitolite(t *testing.T) {
	t.Parallel()
	gl, err := exec.LookPath("gitolite")
	if err != nil {
		t.Skip("gitolite3 is not installed (apt-get install gitolite3; .ci/run installs it): skipping the gitolite server")
	}
	glHome := t.TempDir()
	env := append(os.Environ(), "HOME="+glHome, "GIT_CONFIG_NOSYSTEM=1")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gl, args...)
		cmd.Env, cmd.Dir = env, glHome
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("gitolite %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("setup", "-a", "admin")
	conf := "repo gitolite-admin\n    RW+ = admin\n\nrepo vault\n    RW+ = alice\n\nrepo readonly\n    R = alice\n"
	if err := os.WriteFile(filepath.Join(glHome, ".gitolite", "conf", "gitolite.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	run("compile")
	run("trigger", "POST_COMPILE")
	shell := filepath.Join(run("query-rc", "GL_BINDIR"), "gitolite-shell")
	s := gitservertest.StartSSH(t, "HOME="+glHome+" "+shell+" alice")
	e := sshEnv(t, s, s.URL("/vault"))
	e.must("workspace", "init", "--name", "gl")
	co := filepath.Join(t.TempDir(), "co")
	e.must("workspace", "checkout", "gl", "--output", co)
	writeNote(t, co, "g.md", "via gitolite\n")
	e.must("workspace", "commit", co, "--reason", "gitolite commit")
	repo := filepath.Join(glHome, "repositories", "vault.git")
	if log := gitservertest.Git(t, repo, "log", "--format=%s", "refs/tv/workspaces/"+wsID(t, e, "gl")); !strings.HasPrefix(log, "gitolite commit\n") {
		t.Fatalf("server history:\n%s", log)
	}
	// Read-only for alice: gitolite refuses the first write (making the
	// empty repository a vault) and tv says so with exit 5.
	ro := sshEnv(t, s, s.URL("/readonly"))
	_, errs, code := ro.run("workspace", "init", "--name", "nope")
	if code != 5 || !strings.Contains(errs, "DENIED") {
		t.Fatalf("gitolite refusal: exit %d\n%s", code, errs)
	}
	gitservertest.Git(t, repo, "fsck", "--strict")
}

// TestRemoteVaultSSHAgent: the client's key is only in an ssh agent (the
// test starts ssh-agent and adds the key; ~/.ssh holds no key): tv
// authenticates through SSH_AUTH_SOCK, and the server's host key is still
// checked against known_hosts (an unknown one is refused, exit 5).
func TestRemoteVaultSSHAgent(t *testing.T) {
	t.Parallel()
	s := gitservertest.StartSSH(t, `git-shell -c "$SSH_ORIGINAL_COMMAND"`)
	sock := s.StartAgent(t)
	key := filepath.Join(s.ClientHome, ".ssh", "id_ed25519")
	if err := os.Rename(key, filepath.Join(t.TempDir(), "moved-away")); err != nil {
		t.Fatal(err)
	}
	os.Remove(key + ".pub")
	repo := filepath.Join(t.TempDir(), "vault.git")
	gitservertest.InitBare(t, repo)
	e := sshEnv(t, s, s.URL(repo))
	noAgent := append([]string(nil), e.env...)
	if _, errs, code := e.run("workspace", "list"); code == 0 || !strings.Contains(errs, "ssh") {
		t.Fatalf("without agent or key: exit %d\n%s", code, errs)
	}
	e.env = append(e.env, "SSH_AUTH_SOCK="+sock)
	co := sshCommitLands(t, e, repo, "agent", "agent commit")
	restore := distrustHostKey(t, s)
	before := gitservertest.Git(t, repo, "for-each-ref")
	writeNote(t, co, "a.md", "not to an unknown host\n")
	if _, errs, code := e.run("workspace", "commit", co, "--reason", "unknown host"); code != 5 || !strings.Contains(errs, "host key is not trusted") {
		t.Fatalf("unknown host key with an agent: exit %d\n%s", code, errs)
	}
	if gitservertest.Git(t, repo, "for-each-ref") != before {
		t.Fatal("refs changed after a refused host key")
	}
	restore()
	e.env = noAgent
	gitservertest.Git(t, repo, "fsck", "--strict")
}

// sshCommitLands inits workspace name over e's ssh vault (repo on the
// server), checks it out, commits one note with reason and checks the
// server's history holds it; it returns the checkout.
func sshCommitLands(t *testing.T, e *tvEnv, repo, name, reason string) string {
	t.Helper()
	e.must("workspace", "init", "--name", name)
	co := filepath.Join(t.TempDir(), "co")
	e.must("workspace", "checkout", name, "--output", co)
	writeNote(t, co, "a.md", reason+"\n")
	e.must("workspace", "commit", co, "--reason", reason)
	if log := gitservertest.Git(t, repo, "log", "--format=%s", "refs/tv/workspaces/"+wsID(t, e, name)); !strings.HasPrefix(log, reason+"\n") {
		t.Fatalf("server history:\n%s", log)
	}
	return co
}

// distrustHostKey replaces the client's known_hosts with a key that is not
// the server's, and returns the function that puts the right one back.
func distrustHostKey(t *testing.T, s *gitservertest.SSH) func() {
	t.Helper()
	kh := filepath.Join(s.ClientHome, ".ssh", "known_hosts")
	good, err := os.ReadFile(kh)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kh, []byte("[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return func() { os.WriteFile(kh, good, 0o600) }
}
