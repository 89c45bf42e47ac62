package mcptools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestGitState reads HEAD, loose and packed refs, detached and unborn
// states without git, and compares with git itself.
func TestGitState(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	repo := filepath.Join(base, "repo")
	os.MkdirAll(filepath.Join(repo, "sub", "deeper"), 0o755)
	gitT(t, repo, "init", "-q", "-b", "trunk")
	r, ok := findRepo(filepath.Join(repo, "sub", "deeper"))
	if !ok || r.worktree != repo {
		t.Fatalf("findRepo: %+v %v", r, ok)
	}
	if h := r.head(); h.Branch != "trunk" || h.Head != "" || h.Detached {
		t.Fatalf("unborn: %+v", h)
	}
	os.WriteFile(filepath.Join(repo, "f"), []byte("x"), 0o644)
	gitT(t, repo, "add", "f")
	gitT(t, repo, "commit", "-q", "-m", "one")
	want := gitT(t, repo, "rev-parse", "HEAD")
	if h := r.head(); h.Head != want {
		t.Fatalf("loose: %+v want %s", h, want)
	}
	gitT(t, repo, "pack-refs", "--all")
	if h := r.head(); h.Head != want || h.Branch != "trunk" {
		t.Fatalf("packed: %+v", h)
	}
	wt := filepath.Join(base, "wt")
	gitT(t, repo, "worktree", "add", "-q", "--detach", wt)
	w, ok := openWorktree(wt)
	if !ok || w.common != filepath.Join(repo, ".git") {
		t.Fatalf("linked worktree: %+v", w)
	}
	if h := w.head(); !h.Detached || h.Head != want {
		t.Fatalf("detached: %+v", h)
	}
	var roots []string
	for _, x := range r.worktrees() {
		roots = append(roots, x.worktree)
	}
	if strings.Join(roots, ",") != repo+","+wt {
		t.Fatalf("worktrees %v", roots)
	}
	if d, err := dirty(context.Background(), repo); err != nil || d {
		t.Fatalf("clean repo dirty=%v %v", d, err)
	}
	os.WriteFile(filepath.Join(repo, "untracked"), nil, 0o644)
	if d, err := dirty(context.Background(), repo); err != nil || !d {
		t.Fatalf("dirty repo dirty=%v %v", d, err)
	}
}

// TestNonGitLaunch: a launch directory outside git works; its list has
// launch and the checkouts, and the gate refuses writes there.
func TestNonGitLaunch(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	launch := filepath.Join(base, "plain")
	co := filepath.Join(base, "co")
	os.MkdirAll(launch, 0o755)
	os.MkdirAll(co, 0o755)
	env := map[string]string{EnvWorkspacePaths: co + string(os.PathListSeparator) + " " + string(os.PathListSeparator) + filepath.Join(base, "gone")}
	l, err := New(Config{LaunchDir: launch, RequireBranch: "main", Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.workspaceList(context.Background(), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env2 struct {
		Data workspaceListData `json:"data"`
	}
	json.Unmarshal(b, &env2)
	d := env2.Data
	if len(d.Workspaces) != 2 || d.Workspaces[0].ID != "launch" || d.Workspaces[0].Git != nil || d.Workspaces[1].ID != "checkout:"+co || len(d.Missing) != 1 {
		t.Fatalf("%+v", d)
	}
	if _, err := l.writeFile(context.Background(), json.RawMessage(`{"path":"x","content":"y"}`)); err == nil || !strings.Contains(err.Error(), "not in a git repository") {
		t.Fatalf("gate: %v", err)
	}
	if _, err := l.resolve("checkout:" + filepath.Join(base, "gone")); err == nil {
		t.Fatal("missing checkout resolved")
	}
	if _, err := l.resolve("bogus"); err == nil || !strings.Contains(err.Error(), "launch") {
		t.Fatalf("bogus id: %v", err)
	}
}

func TestGuidanceBounded(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("é", MaxGuidanceBytes) // two bytes each: cut mid-rune
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte(big), 0o644)
	if n := guidanceName(dir); n != "CLAUDE.md" {
		t.Fatalf("guidance %q", n)
	}
	g := readGuidance(dir, "CLAUDE.md")
	if g == nil || !g.Truncated || g.Bytes != int64(len(big)) || len(g.Text) > MaxGuidanceBytes || strings.ContainsRune(g.Text, '\uFFFD') {
		t.Fatalf("guidance: truncated=%v bytes=%d len=%d", g.Truncated, g.Bytes, len(g.Text))
	}
	// AGENTS.md wins; a symlinked one is not followed.
	os.Symlink("CLAUDE.md", filepath.Join(dir, "AGENTS.md"))
	if n := guidanceName(dir); n != "CLAUDE.md" {
		t.Fatalf("symlinked AGENTS.md used: %q", n)
	}
	os.Remove(filepath.Join(dir, "AGENTS.md"))
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("rules\n"), 0o644)
	if g := readGuidance(dir, guidanceName(dir)); g.File != "AGENTS.md" || g.Truncated || g.Text != "rules\n" {
		t.Fatalf("%+v", g)
	}
}

// TestReadFileLaunchReplaced: read_file keeps the launch directory open
// between calls, but serves whatever directory the launch path names at
// each call: replaced, removed, or a symlink swapped in.
func TestReadFileLaunchReplaced(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	launch := filepath.Join(base, "launch")
	os.Mkdir(launch, 0o755)
	os.WriteFile(filepath.Join(launch, "f.txt"), []byte("old\n"), 0o644)
	l, err := New(Config{LaunchDir: launch})
	if err != nil {
		t.Fatal(err)
	}
	read := func() (string, bool) {
		res := callLocal(t, l, "read_file", `{"path":"f.txt"}`)
		if res.IsError {
			return textOf(res), true
		}
		return dataOf(t, res)["content"].(string), false
	}
	for range 2 {
		if text, isErr := read(); isErr || text != "old\n" {
			t.Fatalf("%q %v", text, isErr)
		}
	}
	if l.root.Load() == nil {
		t.Fatal("launch root not cached")
	}
	os.Rename(launch, filepath.Join(base, "moved"))
	if text, isErr := read(); !isErr || !strings.Contains(text, "workspace root") {
		t.Fatalf("launch removed: %q %v", text, isErr)
	}
	os.Mkdir(launch, 0o755)
	os.WriteFile(filepath.Join(launch, "f.txt"), []byte("new\n"), 0o644)
	if text, isErr := read(); isErr || text != "new\n" {
		t.Fatalf("launch recreated: %q %v", text, isErr)
	}
	other := filepath.Join(base, "other")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "f.txt"), []byte("other\n"), 0o644)
	os.RemoveAll(launch)
	os.Symlink(other, launch)
	if text, isErr := read(); isErr || text != "other\n" {
		t.Fatalf("launch symlinked: %q %v", text, isErr)
	}
	// Concurrent calls share or open roots and all read the file.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if text, isErr := read(); isErr || text != "other\n" {
					t.Errorf("concurrent: %q %v", text, isErr)
					return
				}
			}
		})
	}
	wg.Wait()
}
