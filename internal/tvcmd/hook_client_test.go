package tvcmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend/gitservertest"
	"github.com/thalix/tv/hook"
)

// hookedServer is a git http-backend server whose repository runs the
// tv binary under test as its pre-receive hook (`tv hook install`),
// through a wrapper that logs each push's input lines and the hook's
// stderr.
type hookedServer struct {
	repo, url string
	in, err   string // the logs: every push's "old new ref" lines, every refusal line
}

const (
	hookAliceToken = "tok-hook-alice-4411"
	hookBobToken   = "tok-hook-bob-7302"
)

func startHookedServer(t *testing.T, bin string) *hookedServer {
	t.Helper()
	root := t.TempDir()
	s := &hookedServer{repo: filepath.Join(root, "vault.git"), in: filepath.Join(t.TempDir(), "in.log"), err: filepath.Join(t.TempDir(), "err.log")}
	gitservertest.InitBare(t, s.repo)
	srv := gitservertest.StartHTTP(t, root, map[string]string{"alice": hookAliceToken, "bob": hookBobToken})
	s.url = srv.URL + "/vault.git"
	installer := exec.Command(bin, "hook", "install", s.repo)
	installer.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := installer.CombinedOutput(); err != nil {
		t.Fatalf("tv hook install: %v\n%s", err, out)
	}
	script, err := os.ReadFile(filepath.Join(s.repo, "hooks", "pre-receive"))
	if err != nil || string(script) != string(hook.Script(bin, "")) {
		t.Fatalf("installed hook: %v\n%s", err, script)
	}
	gitservertest.Hook(t, s.repo, "pre-receive", `#!/bin/sh
in=$(mktemp) err=$(mktemp)
cat >"$in"
cat "$in" >>'`+s.in+`'
'`+bin+`' hook pre-receive <"$in" 2>"$err"
rc=$?
cat "$err" >>'`+s.err+`'
cat "$err" >&2
rm -f "$in" "$err"
exit $rc
`)
	return s
}

// logged returns what the wrapper appended to log path since the last
// call.
func (s *hookedServer) logged(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	os.Remove(path)
	return string(b)
}

// hookClient is a tv environment on the server's vault: tv identity
// (tv login) and the server account it authenticates as may differ, as
// anyone may `tv login` under any name.
func hookClient(t *testing.T, bin, url, identity, account, token string) *tvEnv {
	t.Helper()
	home := t.TempDir()
	e := &tvEnv{t: t, bin: bin, home: home}
	e.env = append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_DATA_HOME="+home+"/.local/share",
		"XDG_STATE_HOME="+home+"/.local/state", "XDG_CACHE_HOME="+home+"/.cache",
		"TV_VAULT="+url, "TV_TOKEN="+token, "TV_USER="+account, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	e.must("login", "--user", identity)
	return e
}

// refusalLines are the "tv: <code>: …" lines of the hook's stderr.
func refusalLines(t *testing.T, stderr string) []string {
	t.Helper()
	var out []string
	for line := range strings.Lines(stderr) {
		if line = strings.TrimSuffix(line, "\n"); strings.HasPrefix(line, "tv: ") {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		t.Fatalf("the hook printed no refusal line:\n%s", stderr)
	}
	return out
}

// TestHookEnforcedServer runs tv as the client of a server that runs tv's
// hook: its commits are accepted; it sees refs/tv/enforced and sends no
// verify step on the access ref (it does once the marker is gone); a
// client that logs in under someone else's name passes its own checks
// and is refused by the hook, which judges the server's account; the
// hook's lines reach the CLI's stderr and the MCP server's isError
// result verbatim, with the server's refs unchanged.
func TestHookEnforcedServer(t *testing.T) {
	t.Parallel()
	bin := tvBin(t)
	s := startHookedServer(t, bin)
	alice := hookClient(t, bin, s.url, "alice", "alice", hookAliceToken)
	alice.must("workspace", "init", "--name", "team")
	ws := wsID(t, alice, "team")
	alice.must("access", "grant", "bob", "write", "team:stages/01-research/output")
	if in := s.logged(t, s.in); !strings.Contains(in, engine.WorkspaceRefPrefix+ws) || !strings.Contains(in, engine.AccessRef) {
		t.Fatalf("the hook did not judge the workspace and the grant:\n%s", in)
	}
	var info struct {
		Enforced *bool `json:"enforced"`
	}
	if err := json.Unmarshal([]byte(alice.must("vault", "info", "--json")), &info); err != nil || info.Enforced == nil || !*info.Enforced {
		t.Fatalf("vault info: %+v, %v", info, err)
	}

	// A commit: one command, the workspace's; no verify step on the access ref.
	co := filepath.Join(t.TempDir(), "co")
	alice.must("workspace", "checkout", "team", "--output", co)
	writeNote(t, co, "a.md", "from alice\n")
	alice.must("workspace", "commit", co, "--reason", "a1")
	if in := s.logged(t, s.in); strings.Count(in, "\n") != 1 || !strings.Contains(in, engine.WorkspaceRefPrefix+ws) {
		t.Fatalf("an enforced server got more than the workspace's update:\n%s", in)
	}
	// Without the marker the client binds its commit to the grants itself.
	gitservertest.Git(t, s.repo, "update-ref", "-d", hook.EnforcedRef)
	writeNote(t, co, "b.md", "from alice\n")
	alice.must("workspace", "commit", co, "--reason", "a2")
	access := gitservertest.Git(t, s.repo, "rev-parse", engine.AccessRef)
	if in := s.logged(t, s.in); !strings.Contains(in, access+" "+access+" "+engine.AccessRef) {
		t.Fatalf("no verify step on %s without the marker:\n%s", engine.AccessRef, in)
	}
	gitservertest.Git(t, s.repo, "update-ref", hook.EnforcedRef, gitservertest.Git(t, s.repo, "commit-tree", "-m", "tv hook\n\n"+hook.HookVersionTrailer+": "+hook.HookVersion, gitservertest.Git(t, s.repo, "mktree")))

	// Bob, as himself, within his grant: accepted.
	bob := hookClient(t, bin, s.url, "bob", "bob", hookBobToken)
	coB := filepath.Join(t.TempDir(), "bob")
	bob.must("workspace", "checkout", "team", "--output", coB)
	writeNote(t, coB, "bob.md", "from bob\n")
	bob.must("workspace", "commit", coB, "--reason", "b1")
	s.logged(t, s.err)

	// Bob logged in as alice: tv's own checks pass (alice manages), the
	// hook judges bob, who may not write the root's CONTEXT.md.
	mallory := hookClient(t, bin, s.url, "alice", "bob", hookBobToken)
	coM := filepath.Join(t.TempDir(), "m")
	mallory.must("workspace", "checkout", "team", "--output", coM)
	contract := mustRead(t, filepath.Join(coM, "CONTEXT.md"))
	if err := os.WriteFile(filepath.Join(coM, "CONTEXT.md"), []byte("# Taken over\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := gitservertest.Git(t, s.repo, "for-each-ref")
	_, errs, code := mallory.run("workspace", "commit", coM, "--reason", "take over")
	lines := refusalLines(t, s.logged(t, s.err))
	if code != 5 {
		t.Fatalf("impersonated commit: exit %d, want 5\n%s", code, errs)
	}
	for _, l := range lines {
		if !strings.Contains(errs, l) {
			t.Fatalf("the hook's line %q is not in tv's error:\n%s", l, errs)
		}
	}
	if !strings.HasPrefix(lines[0], "tv: permission-denied: "+engine.WorkspaceRefPrefix+ws+": ") || !strings.Contains(lines[0], "bob") {
		t.Fatalf("refusal %q", lines[0])
	}
	if after := gitservertest.Git(t, s.repo, "for-each-ref"); after != before {
		t.Fatalf("refs changed after a refusal:\n%s\n%s", before, after)
	}

	// The same through the scoped MCP server: an isError result carrying
	// the hook's lines.
	note := filepath.Join(coM, "stages", "01-research", "references", "m.md")
	if err := os.WriteFile(filepath.Join(coM, "CONTEXT.md"), contract, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("not bob's folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	serve := mallory.cmd("mcp", "serve", "--workspace", ws, "--stage", "stages/01-research")
	serve.Dir = filepath.Dir(coM)
	cl := connectVS(t, serve, "")
	r := cl.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": coM, "reason": "mcp take over"})
	lines = refusalLines(t, s.logged(t, s.err))
	r.refused(t, lines...)
	if after := gitservertest.Git(t, s.repo, "for-each-ref"); after != before {
		t.Fatalf("refs changed after an MCP refusal:\n%s\n%s", before, after)
	}
}

// TestHookPublishIntoEnforced: `tv vault push` publishes a local vault
// into a repository where `tv hook install` came first (the marker is the
// only ref there), through the hook.
func TestHookPublishIntoEnforced(t *testing.T) {
	t.Parallel()
	bin := tvBin(t)
	s := startHookedServer(t, bin)
	local := hookClient(t, bin, s.url, "alice", "alice", hookAliceToken)
	local.env = append(local.env, "TV_VAULT="+filepath.Join(local.home, "vault.git"))
	local.must("workspace", "init", "--name", "solo")
	ws := wsID(t, local, "solo")
	local.must("vault", "push", s.url)
	if in := s.logged(t, s.in); !strings.Contains(in, engine.WorkspaceRefPrefix+ws) {
		t.Fatalf("the hook did not judge the publish:\n%s", in)
	}
	remote := hookClient(t, bin, s.url, "alice", "alice", hookAliceToken)
	if got := wsID(t, remote, "solo"); got != ws {
		t.Fatalf("published workspace %s, want %s", got, ws)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHookScriptRunsTv: the script `tv hook install` writes runs this tv
// binary when git runs it — on Linux as the interpreter of its "#!" line,
// which packs "hook pre-receive --user-env VAR" into one argument — and
// the push is judged: refused for want of a pusher, then, once the
// installer names the variable that carries one, judged further (a ref
// outside tv's namespaces).
func TestHookScriptRunsTv(t *testing.T) {
	bin := tvBin(t)
	repo := filepath.Join(t.TempDir(), "vault.git")
	gitservertest.InitBare(t, repo)
	src := t.TempDir()
	git := func(env []string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		cmd.Env = append(append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x"), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := git(nil, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	install := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"hook", "install", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tv hook install: %v\n%s", err, out)
		}
	}
	tests := []struct {
		name    string
		userEnv string // --user-env of the install ("" for none)
		refusal string
	}{
		{"no pusher", "", "tv: permission-denied: the server names no pusher"},
		{"pusher from --user-env", "TV_PUSHER", "tv: not-a-tv-ref: refs/heads/main: not one of tv's refs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.userEnv == "" {
				install()
			} else {
				install("--user-env", tt.userEnv)
			}
			script, err := os.ReadFile(filepath.Join(repo, "hooks", "pre-receive"))
			if err != nil || string(script) != string(hook.Script(bin, tt.userEnv)) {
				t.Fatalf("installed script (%v):\n%s", err, script)
			}
			out, err := git([]string{"TV_PUSHER=alice"}, "push", "-q", repo, "HEAD:refs/heads/main")
			if err == nil || !strings.Contains(out, tt.refusal) {
				t.Fatalf("push: %v\n%s\nwant a refusal with %q", err, out, tt.refusal)
			}
		})
	}
}
