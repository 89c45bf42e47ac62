package tvcmd

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestPreReceiveArgs(t *testing.T) {
	tests := []struct {
		args    []string
		userEnv string
		ok      bool
	}{
		{[]string{"hook", "pre-receive"}, "", true},
		{[]string{"hook", "pre-receive", "--user-env", "TV_PUSHER"}, "TV_PUSHER", true},
		{[]string{"hook", "pre-receive", "--user-env=TV_PUSHER"}, "TV_PUSHER", true},
		{[]string{"hook", "pre-receive", "--user-env"}, "", false},
		{[]string{"hook", "pre-receive", "--user-env="}, "", false},
		{[]string{"hook", "pre-receive", "--user-env", "--help"}, "", false},
		{[]string{"hook", "pre-receive", "--help"}, "", false},
		{[]string{"hook", "pre-receive", "extra"}, "", false},
		{[]string{"hook", "pre-receive", "--user-env", "A", "extra"}, "", false},
		{[]string{"hook", "pre-receive", "--json"}, "", false},
		{[]string{"--json", "hook", "pre-receive"}, "", false},
		{[]string{"hook", "install", "x.git"}, "", false},
		{[]string{"hook"}, "", false},
		{nil, "", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			userEnv, ok := preReceiveArgs(tt.args)
			if userEnv != tt.userEnv || ok != tt.ok {
				t.Fatalf("preReceiveArgs = %q, %v; want %q, %v", userEnv, ok, tt.userEnv, tt.ok)
			}
		})
	}
}

// TestPreReceiveFastPathAgrees: the command lines a hook script runs,
// answered without the command tree (spelled out, or packed into one
// argument by the kernel from a "#!" line), print and exit exactly as the
// same command parsed by the tree (reached here by spelling the flag with one
// dash, which the fast path leaves to the tree).
func TestPreReceiveFastPathAgrees(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
	}{
		{"no identity", map[string]string{}},
		{"identity from --user-env", map[string]string{"TV_PUSHER": "alice"}},
		{"identity from REMOTE_USER", map[string]string{"REMOTE_USER": "bob"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // not a repository
			fastOut, fastErr, fastCode := runTV(t, tt.env, false, "hook", "pre-receive", "--user-env", "TV_PUSHER")
			if _, ok := preReceiveArgs([]string{"hook", "pre-receive", "-user-env", "TV_PUSHER"}); ok {
				t.Fatal("the one-dash spelling takes the fast path; pick another")
			}
			treeOut, treeErr, treeCode := runTV(t, tt.env, false, "hook", "pre-receive", "-user-env", "TV_PUSHER")
			if fastOut != treeOut || fastErr != treeErr || fastCode != treeCode {
				t.Fatalf("fast path: exit %d, %q, %q\ncommand tree: exit %d, %q, %q", fastCode, fastOut, fastErr, treeCode, treeOut, treeErr)
			}
			// As the interpreter of the installed script's "#!" line.
			shOut, shErr, shCode := runTV(t, tt.env, false, "hook pre-receive --user-env TV_PUSHER", "/srv/vault.git/hooks/pre-receive")
			if shOut != treeOut || shErr != treeErr || shCode != treeCode {
				t.Fatalf("#! line: exit %d, %q, %q\ncommand tree: exit %d, %q, %q", shCode, shOut, shErr, treeCode, treeOut, treeErr)
			}
		})
	}
}

// TestInterruptOnlyForWriters: Run gives Ctrl-C and SIGTERM a handler
// (IO.Interrupt) for the commands that write, and leaves the signals'
// default to those that only read, the pre-receive hook included.
func TestInterruptOnlyForWriters(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "TV_VAULT": filepath.Join(home, "vault.git"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME": filepath.Join(home, ".state"), "XDG_DATA_HOME": filepath.Join(home, ".data"), "XDG_CACHE_HOME": filepath.Join(home, ".cache")}
	tests := []struct {
		args    []string
		handler bool
	}{
		{[]string{"workspace", "walk-test", home}, false},
		{[]string{"workspace", "status", home}, false},
		{[]string{"workspace", "diff", home}, false},
		{[]string{"check", home}, false},
		{[]string{"--json", "workspace", "list"}, false},
		{[]string{"version"}, false},
		{[]string{"hook", "pre-receive"}, false},
		{[]string{"hook pre-receive --user-env GL_USER", "/srv/v.git/hooks/pre-receive"}, false},
		{[]string{"workspace", "commit", home}, true},
		{[]string{"workspace", "update", home}, true},
		{[]string{"workspace", "init", "--name", "w"}, true},
		{[]string{"login", "--user", "u"}, true},
		{[]string{"hook", "install", filepath.Join(home, "none.git")}, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, "|"), func(t *testing.T) {
			called := false
			stdio := &IO{Stdin: strings.NewReader(""), Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer), Getenv: func(k string) string { return env[k] },
				Interrupt: func(ctx context.Context) (context.Context, context.CancelFunc) {
					called = true
					return context.WithCancel(ctx)
				}}
			Run(context.Background(), append([]string{"tv"}, tt.args...), stdio, testFull)
			if called != tt.handler {
				t.Fatalf("signal handler: %v, want %v", called, tt.handler)
			}
		})
	}
}
