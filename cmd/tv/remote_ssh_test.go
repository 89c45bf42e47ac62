package main

import (
	"os"
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
	s := gitservertest.StartSSH(t, `git-shell -c "$SSH_ORIGINAL_COMMAND"`)
	repo := filepath.Join(t.TempDir(), "vault.git")
	gitservertest.InitBare(t, repo)
	e := sshEnv(t, s, s.URL(repo))
	e.must("workspace", "init", "--name", "viassh")
	co := filepath.Join(t.TempDir(), "co")
	e.must("workspace", "checkout", "viassh", "--output", co)
	writeNote(t, co, "s.md", "over ssh\n")
	e.must("workspace", "commit", co, "--reason", "ssh commit")
	if log := gitservertest.Git(t, repo, "log", "--format=%s", "refs/tv/workspaces/"+wsID(t, e, "viassh")); !strings.HasPrefix(log, "ssh commit\n") {
		t.Fatalf("server history:\n%s", log)
	}
	// Unknown host key: refused with exit 5, never accepted or treated as offline.
	kh := filepath.Join(s.ClientHome, ".ssh", "known_hosts")
	good, _ := os.ReadFile(kh)
	os.WriteFile(kh, []byte("[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"), 0o600)
	_, errs, code := e.run("workspace", "list")
	if code != 5 || !strings.Contains(errs, "host key is not trusted") {
		t.Fatalf("unknown host key: exit %d\n%s", code, errs)
	}
	os.WriteFile(kh, good, 0o600)
	gitservertest.Git(t, repo, "fsck", "--strict")
}
