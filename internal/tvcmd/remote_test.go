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
)

const remoteToken = "tok-3f9a7c21e5"

// remoteEnv is a tv environment (its own HOME, config and cache) whose
// vault is the repository url of a test server.
func remoteEnv(t *testing.T, url, token string) *tvEnv {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	home := t.TempDir()
	e := &tvEnv{t: t, bin: tvBin(t), home: home}
	e.env = append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_DATA_HOME="+home+"/.local/share",
		"XDG_STATE_HOME="+home+"/.local/state", "XDG_CACHE_HOME="+home+"/.cache",
		"TV_VAULT="+url, "TV_TOKEN="+token, "TV_USER=alice", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	e.must("login", "--user", "alice")
	return e
}

type remoteServer struct {
	srv  *gitservertest.HTTP
	repo string
	url  string
}

func startRemote(t *testing.T) *remoteServer {
	t.Helper()
	root := t.TempDir()
	repo := filepath.Join(root, "vault.git")
	gitservertest.InitBare(t, repo)
	srv := gitservertest.StartHTTP(t, root, map[string]string{"alice": remoteToken, "bob": remoteToken + "b"})
	return &remoteServer{srv: srv, repo: repo, url: srv.URL + "/vault.git"}
}

func writeNote(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "stages", "01-research", "output", name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRemoteVaultHTTP: two machines share a vault on a smart-HTTP server.
// Every command works with the same exit codes; a raced commit is
// re-applied on top; a server-side race refuses atomically and loses
// nothing; refusals map to exit codes; no token leaks.
func TestRemoteVaultHTTP(t *testing.T) {
	t.Parallel()
	s := startRemote(t)
	a := remoteEnv(t, s.url, remoteToken)
	a.must("workspace", "init", "--name", "team")
	id := wsID(t, a, "team")
	ref := "refs/tv/workspaces/" + id
	coA := filepath.Join(t.TempDir(), "a")
	a.must("workspace", "checkout", "team", "--output", coA)
	writeNote(t, coA, "a.md", "from a\n")
	a.must("workspace", "commit", coA, "--reason", "a1")

	// Machine b: its own cache; sees a's commit.
	b := remoteEnv(t, s.url, remoteToken)
	coB := filepath.Join(t.TempDir(), "b")
	b.must("workspace", "checkout", "team", "--output", coB)
	if got, err := os.ReadFile(filepath.Join(coB, "stages", "01-research", "output", "a.md")); err != nil || string(got) != "from a\n" {
		t.Fatalf("b's checkout: %q, %v", got, err)
	}
	// Both commit different files: the second is re-applied on top.
	writeNote(t, coA, "a2.md", "a again\n")
	writeNote(t, coB, "b.md", "from b\n")
	a.must("workspace", "commit", coA, "--reason", "a2")
	out := b.must("workspace", "commit", coB, "--reason", "b1", "--json")
	if !strings.Contains(out, "on_top_of") {
		t.Logf("commit output: %s", out)
	}
	log := gitservertest.Git(t, s.repo, "log", "--format=%s", ref)
	for _, want := range []string{"a1", "a2", "b1"} {
		if strings.Count(log, want) != 1 {
			t.Fatalf("server history lacks %s exactly once:\n%s", want, log)
		}
	}
	// Same file on both sides: exit 4 naming the path, server unchanged.
	a.must("workspace", "checkout", "team", "--output", coA+"2")
	writeNote(t, coA+"2", "a.md", "a edits\n")
	writeNote(t, coB, "a.md", "b edits\n")
	a.must("workspace", "commit", coA+"2", "--reason", "a3")
	head := gitservertest.Git(t, s.repo, "rev-parse", ref)
	_, errs, code := b.run("workspace", "commit", coB, "--reason", "b2")
	if code != 4 || !strings.Contains(errs, "a.md") {
		t.Fatalf("conflicting commit: exit %d\n%s", code, errs)
	}
	if gitservertest.Git(t, s.repo, "rev-parse", ref) != head {
		t.Fatal("server ref moved after a conflict")
	}
	writeNote(t, coB, "a.md", "a edits\n") // resolve: take theirs

	// Server-side race: a pre-receive hook moves the ref once (like a
	// concurrent `git push`); the atomic push is refused, the client
	// fetches and re-applies; the hook's commit is not lost.
	trailers := gitservertest.Git(t, s.repo, "log", "-1", "--format=%(trailers)", head)
	c := gitservertest.Git(t, s.repo, "commit-tree", "-p", head, "-m", "sneaked in", "-m", trailers, head+"^{tree}")
	marker := filepath.Join(t.TempDir(), "moved")
	gitservertest.Hook(t, s.repo, "pre-receive", "#!/bin/sh\ncat >/dev/null\nif [ ! -e "+marker+" ]; then touch "+marker+"; env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES git update-ref "+ref+" "+c+" "+head+"; fi\nexit 0\n")
	writeNote(t, coA+"2", "race.md", "after a race\n")
	a.must("workspace", "commit", coA+"2", "--reason", "raced")
	log = gitservertest.Git(t, s.repo, "log", "--format=%s", ref)
	if !strings.HasPrefix(log, "raced\nsneaked in\n") {
		t.Fatalf("the racing commit was lost or the push not re-applied:\n%s", log)
	}

	// A hook refusal in tv's format maps to its exit code and is shown.
	for _, tc := range []struct {
		code string
		exit int
	}{{"permission-denied", 5}, {"invalid-tree", 3}, {"input-refused", 7}, {"conflict", 4}} {
		gitservertest.Hook(t, s.repo, "pre-receive", "#!/bin/sh\ncat >/dev/null\necho 'tv: "+tc.code+": stages/01-research/output/x.md: refused by policy' >&2\nexit 1\n")
		before := gitservertest.Git(t, s.repo, "for-each-ref")
		writeNote(t, coA+"2", "x.md", tc.code+"\n")
		_, errs, code := a.run("workspace", "commit", coA+"2", "--reason", "hooked")
		if code != tc.exit || !strings.Contains(errs, "tv: "+tc.code+": stages/01-research/output/x.md: refused by policy") {
			t.Fatalf("hook %s: exit %d (want %d)\n%s", tc.code, code, tc.exit, errs)
		}
		if after := gitservertest.Git(t, s.repo, "for-each-ref"); after != before {
			t.Fatalf("refs changed after a refusal:\n%s\n%s", before, after)
		}
	}
	os.Remove(filepath.Join(s.repo, "hooks", "pre-receive"))

	// Wrong token: exit 5, token not echoed.
	bad := remoteEnv(t, s.url, "not-the-token-77")
	_, errs, code = bad.run("workspace", "list")
	if code != 5 || strings.Contains(errs, "not-the-token-77") {
		t.Fatalf("wrong token: exit %d\n%s", code, errs)
	}

	// vault info: URL, cache, capabilities.
	var info struct {
		URL          string   `json:"url"`
		Cache        string   `json:"cache"`
		LastSync     string   `json:"last_sync_at"`
		Enforced     *bool    `json:"enforced"`
		Capabilities []string `json:"capabilities"`
		Workspaces   int      `json:"workspaces"`
	}
	if err := json.Unmarshal([]byte(a.must("vault", "info", "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.URL != s.url || info.Cache == "" || info.LastSync == "" || info.Enforced == nil || *info.Enforced || !strings.Contains(strings.Join(info.Capabilities, " "), "atomic") || info.Workspaces != 1 {
		t.Fatalf("vault info: %+v", info)
	}

	// Offline: reads from the cache say so; a commit exits 1, changes
	// nothing and leaves the checkout as it was.
	s.srv.Close()
	out, errs, code = a.run("workspace", "list")
	if code != 0 || !strings.Contains(out, "team") || !strings.Contains(errs, "server not reached") || !strings.Contains(errs, "cache") {
		t.Fatalf("offline list: exit %d\n%s%s", code, out, errs)
	}
	writeNote(t, coA+"2", "offline.md", "offline\n")
	manifest, _ := os.ReadFile(filepath.Join(coA+"2", engine.ManifestName))
	_, errs, code = a.run("workspace", "commit", coA+"2", "--reason", "offline")
	if code != 1 || !strings.Contains(errs, "server not reached") {
		t.Fatalf("offline commit: exit %d\n%s", code, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(coA+"2", engine.ManifestName)); string(after) != string(manifest) {
		t.Fatal("offline commit changed the checkout's manifest")
	}
	for _, e := range []*tvEnv{a, b} {
		if out, err := exec.Command("grep", "-r", "-l", remoteToken, e.home, coA, coB, s.repo).CombinedOutput(); err == nil {
			t.Fatalf("token written to disk: %s", out)
		}
	}
	gitservertest.Git(t, s.repo, "fsck", "--strict")
}

// TestRemoteConcurrentCommitters: committers to different workspaces of
// one vault on an http server, with grants present (so every push
// carries the verify-only step on refs/tv/access), all land.
func TestRemoteConcurrentCommitters(t *testing.T) {
	t.Parallel()
	s := startRemote(t)
	a := remoteEnv(t, s.url, remoteToken)
	a.must("access", "grant", "alice", "manage", "@vault")
	n := 12
	if testing.Short() {
		n = 4
	}
	dirs := make([]string, n)
	for i := range n {
		name := "conc" + string(rune('a'+i))
		a.must("workspace", "init", "--name", name)
		dirs[i] = filepath.Join(t.TempDir(), name)
		a.must("workspace", "checkout", name, "--output", dirs[i])
		writeNote(t, dirs[i], "c.md", name+"\n")
	}
	a.commitAll(t, dirs, "concurrent")
	gitservertest.Git(t, s.repo, "fsck", "--strict")
}
