package tvcmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// worktreeOut is worktree_create's and worktree_remove's data.
type worktreeOut struct {
	Workspace string `json:"workspace"`
	Root      string `json:"root"`
	Branch    string `json:"branch"`
	Head      string `json:"head"`
}

// TestMCPWorktreeGatedFlow (issue 19): launched on main with
// --require-branch 'agent/*', an agent can change nothing on main, makes
// its staging worktree with worktree_create, commits a change there with
// execute_bash, and removes it; stock git agrees at every step. Every
// refusal is exercised through the real client over stdio.
func TestMCPWorktreeGatedFlow(t *testing.T) {
	t.Parallel() // separate processes and directories; internal/tvcmd must stay inside go test's 10-minute budget
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	mainHead := e.git(dir, "rev-parse", "HEAD")
	e.git(dir, "branch", "agent/exists")
	// A linked worktree made by stock git before the server starts.
	other := filepath.Join(filepath.Dir(dir), "other")
	e.git(dir, "worktree", "add", "-q", "-b", "agent/other", other)
	cs := e.start(dir, "", "--require-branch", "agent/*")

	// On main the gate holds: no write, no bash (so no git branch either).
	call(t, cs, "write_file", map[string]any{"path": "b.txt", "content": "b\n"}).failed(t, "on branch main", `"agent/*"`)
	call(t, cs, "execute_bash", map[string]any{"command": "git branch agent/sneak"}).failed(t, "on branch main")

	// Refusals, each with its reason, each leaving nothing behind.
	sibling := filepath.Join(filepath.Dir(dir), "taken")
	os.Mkdir(sibling, 0o755)
	for _, c := range []struct {
		args  map[string]any
		words []string
	}{
		{map[string]any{"branch": "fix-1"}, []string{"does not match --require-branch", `"agent/*"`}},
		{map[string]any{"branch": "agent/bad..name"}, []string{"not a valid branch name", "check-ref-format"}},
		{map[string]any{"branch": "agent/exists"}, []string{"already exists"}},
		{map[string]any{"branch": "agent/x", "base": "no-such-rev"}, []string{"does not resolve"}},
		{map[string]any{"branch": "agent/x", "path": filepath.Join(dir, "inside")}, []string{"inside the launch repository"}},
		{map[string]any{"branch": "agent/x", "path": sibling}, []string{"already exists"}},
		{map[string]any{"branch": "agent/x", "path": "relative"}, []string{"not absolute"}},
		{map[string]any{"branch": "agent/x", "bogus": 1}, []string{"bogus"}},
	} {
		call(t, cs, "worktree_create", c.args).failed(t, c.words...)
	}
	if got := e.git(dir, "branch", "--list", "agent/x", "agent/sneak"); got != "" {
		t.Fatalf("a refused call made a branch: %q", got)
	}
	if got := strings.Count(e.git(dir, "worktree", "list", "--porcelain"), "worktree "); got != 2 {
		t.Fatalf("a refused call made a worktree:\n%s", e.git(dir, "worktree", "list"))
	}

	// The way in.
	var wt worktreeOut
	call(t, cs, "worktree_create", map[string]any{"branch": "agent/fix-1"}).ok(t).decode(t, &wt)
	wantRoot := filepath.Join(filepath.Dir(dir), "repo-agent-fix-1")
	if wt.Root != wantRoot || wt.Workspace != "worktree:"+wantRoot || wt.Branch != "agent/fix-1" || wt.Head != mainHead {
		t.Fatalf("worktree_create returned %+v", wt)
	}
	list := e.git(dir, "worktree", "list", "--porcelain")
	if !strings.Contains(list, "worktree "+wantRoot+"\nHEAD "+mainHead+"\nbranch refs/heads/agent/fix-1") {
		t.Fatalf("git worktree list does not agree:\n%s", list)
	}
	var ws struct {
		Workspaces []struct{ ID string }
	}
	call(t, cs, "workspace_list", nil).ok(t).decode(t, &ws)
	if len(ws.Workspaces) != 3 || !slices.ContainsFunc(ws.Workspaces, func(w struct{ ID string }) bool { return w.ID == wt.Workspace }) {
		t.Fatalf("workspace_list %+v", ws)
	}

	// Work there: the gate passes on agent/fix-1.
	call(t, cs, "write_file", map[string]any{"workspace": wt.Workspace, "path": "fix.txt", "content": "fixed\n"}).ok(t)
	// A dirty worktree is not removed without force.
	call(t, cs, "worktree_remove", map[string]any{"workspace": wt.Workspace}).failed(t, "uncommitted changes", "force")
	call(t, cs, "execute_bash", map[string]any{"workspace": wt.Workspace, "command": "git add fix.txt && git commit -q -m 'agent: fix' && git log -1 --format=%s"}).ok(t)
	if got := e.git(wantRoot, "log", "-1", "--format=%s %D"); got != "agent: fix HEAD -> agent/fix-1" {
		t.Fatalf("the commit on the new branch: %q", got)
	}
	if got := e.git(dir, "rev-parse", "main"); got != mainHead {
		t.Fatal("main moved")
	}

	// Refusals of worktree_remove.
	call(t, cs, "worktree_remove", map[string]any{"workspace": "launch"}).failed(t, "not a worktree workspace")
	call(t, cs, "worktree_remove", map[string]any{"workspace": "worktree:" + other}).failed(t, "not created by this server")

	var rm worktreeOut
	call(t, cs, "worktree_remove", map[string]any{"workspace": wt.Workspace}).ok(t).decode(t, &rm)
	if rm.Branch != "agent/fix-1" {
		t.Fatalf("worktree_remove returned %+v", rm)
	}
	if _, err := os.Stat(wantRoot); !os.IsNotExist(err) {
		t.Fatalf("the worktree directory is still there: %v", err)
	}
	list = e.git(dir, "worktree", "list", "--porcelain")
	if strings.Contains(list, wantRoot) || !strings.Contains(list, other) {
		t.Fatalf("git worktree list after remove:\n%s", list)
	}
	if got := e.git(dir, "log", "-1", "--format=%s", "agent/fix-1"); got != "agent: fix" {
		t.Fatalf("the branch was not kept: %q", got)
	}
	e.git(dir, "worktree", "prune", "--dry-run", "-v")
	if out := e.git(dir, "worktree", "prune", "--dry-run", "-v"); out != "" {
		t.Fatalf("git worktree prune would remove: %s", out)
	}
	e.git(dir, "fsck", "--no-progress")
}

// TestMCPWorktreeNotGit: worktree_create refuses a launch directory that
// is not in a git repository.
func TestMCPWorktreeNotGit(t *testing.T) {
	t.Parallel() // separate processes and directories; internal/tvcmd must stay inside go test's 10-minute budget
	e := newLocalEnv(t)
	dir := filepath.Join(e.base, "plain")
	os.Mkdir(dir, 0o755)
	cs := e.start(dir, "")
	call(t, cs, "worktree_create", map[string]any{"branch": "agent/x"}).failed(t, "not in a git repository")
}

// TestMCPWorktreeRace (issue 19): two servers on one repository create
// the same branch at once — to different paths, and to the same default
// path. Exactly one gets it; the other gets a clear error, and nothing of
// its attempt is left (no branch, directory or worktree entry).
func TestMCPWorktreeRace(t *testing.T) {
	t.Parallel() // separate processes and directories; internal/tvcmd must stay inside go test's 10-minute budget
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	a, b := e.start(dir, ""), e.start(dir, "")
	for round, paths := range [][2]string{
		{filepath.Join(e.base, "wt-a"), filepath.Join(e.base, "wt-b")},
		{"", ""},
	} {
		branch := []string{"agent/race", "agent/race-default"}[round]
		results := make([]*callResult, 2)
		var wg sync.WaitGroup
		for i, cs := range []*struct{ p string }{{paths[0]}, {paths[1]}} {
			args := map[string]any{"branch": branch}
			if cs.p != "" {
				args["path"] = cs.p
			}
			session := a
			if i == 1 {
				session = b
			}
			wg.Go(func() { results[i] = call(t, session, "worktree_create", args) })
		}
		wg.Wait()
		won := 0
		for _, r := range results {
			if !r.isError {
				won++
			} else if !strings.Contains(r.text, "already exists") && !strings.Contains(r.text, "another session") {
				t.Errorf("round %d: the loser's error is unclear: %s", round, r.text)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d servers created %s", round, won, branch)
		}
		list := e.git(dir, "worktree", "list", "--porcelain") + "\n"
		if got := strings.Count(list, "branch refs/heads/"+branch+"\n"); got != 1 {
			t.Fatalf("round %d: %d worktrees on %s:\n%s", round, got, branch, list)
		}
		if paths[0] != "" {
			for i, p := range paths {
				_, err := os.Stat(p)
				if exists := err == nil; exists == results[i].isError {
					t.Errorf("round %d: path %s exists=%v but its call isError=%v", round, p, exists, results[i].isError)
				}
			}
		}
		if out := e.git(dir, "worktree", "prune", "--dry-run", "-v"); out != "" {
			t.Fatalf("round %d: a half-made worktree: %s", round, out)
		}
	}
	e.git(dir, "fsck", "--no-progress")
}
