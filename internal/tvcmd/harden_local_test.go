package tvcmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMCPLocalEditRefusesBinary: edit_tool refuses a file with a NUL byte
// exactly as read_file does, and leaves it byte for byte.
func TestMCPLocalEditRefusesBinary(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	bin := []byte("header\x00find me\n")
	os.WriteFile(filepath.Join(dir, "nul.dat"), bin, 0o644)
	cs := e.start(dir, "")
	call(t, cs, "read_file", map[string]any{"path": "nul.dat"}).failed(t, "not UTF-8 text")
	call(t, cs, "edit_tool", map[string]any{"path": "nul.dat", "edits": []map[string]any{{"op": "replace", "find": "find me", "text": "changed"}}}).failed(t, "not UTF-8 text", "nul.dat")
	if got, _ := os.ReadFile(filepath.Join(dir, "nul.dat")); string(got) != string(bin) {
		t.Fatalf("edit_tool changed the binary file: %q", got)
	}
}

// TestMCPLocalWriteRefusesGitLookAlikes: write_file and edit_tool refuse
// targets that git, macOS or Windows would treat as .git or .gitmodules,
// and create nothing.
func TestMCPLocalWriteRefusesGitLookAlikes(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	cs := e.start(dir, "")
	for _, tc := range []struct{ path, word string }{
		{".g\u200cit/config", ".git"},
		{"sub/.GIT./hooks/pre-commit", ".git"},
		{"git~1/HEAD", ".git"},
		{".gitmodules", ".gitmodules"},
		{"GITMOD~1", ".gitmodules"},
		{"notes./a.md", "dot or a space"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			call(t, cs, "write_file", map[string]any{"path": tc.path, "content": "[core]\n\thooksPath = /tmp\n"}).failed(t, tc.word)
			call(t, cs, "edit_tool", map[string]any{"path": tc.path, "edits": []map[string]any{{"op": "replace", "find": "a", "text": "b"}}}).failed(t)
			first := filepath.Join(dir, filepath.FromSlash(tc.path))
			for filepath.Dir(first) != dir {
				first = filepath.Dir(first)
			}
			if _, err := os.Lstat(first); err == nil {
				t.Fatalf("%s was created", first)
			}
		})
	}
}

// TestMCPLocalImplicitRootRefused: started in / or in the home directory
// itself without --root, `tv mcp local` exits with a usage error naming
// --root and serves nothing; an explicit --root serves.
func TestMCPLocalImplicitRootRefused(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	home := filepath.Join(e.base, "home")
	for _, dir := range []string{"/", home} {
		t.Run(dir, func(t *testing.T) {
			cmd := exec.Command(mcpLocalBinary(t), "mcp", "local")
			cmd.Dir, cmd.Env = dir, e.env
			cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage || stdout.Len() != 0 || !strings.Contains(stderr.String(), "--root") {
				t.Fatalf("exit %v, stdout %q, stderr %q; want exit %d naming --root", err, stdout.String(), stderr.String(), ExitUsage)
			}
		})
	}
	cs := e.start(home, "", "--root", home)
	var d struct{ Content string }
	writeTestFile(t, filepath.Join(home, "note.txt"), "explicit\n")
	call(t, cs, "read_file", map[string]any{"path": "note.txt"}).ok(t).decode(t, &d)
	if d.Content != "explicit\n" {
		t.Fatalf("explicit --root: %q", d.Content)
	}
}

// TestMCPLocalWorktreeMustPointBack: a .git/worktrees/evil/gitdir naming
// an unrelated repository does not make it a worktree workspace; a real
// linked worktree still is one.
func TestMCPLocalWorktreeMustPointBack(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "main\n"})
	victim := e.repo("victim", map[string]string{"secret.txt": "victim\n"})
	wt := filepath.Join(e.base, "wt-real")
	e.git(dir, "worktree", "add", "-q", "-b", "feature", wt)
	writeTestFile(t, filepath.Join(dir, ".git", "worktrees", "evil", "gitdir"), filepath.Join(victim, ".git")+"\n")
	writeTestFile(t, filepath.Join(dir, ".git", "worktrees", "evil", "HEAD"), "ref: refs/heads/main\n")
	writeTestFile(t, filepath.Join(dir, ".git", "worktrees", "evil", "commondir"), "../..\n")
	cs := e.start(dir, "")
	var d struct{ Workspaces []struct{ ID string } }
	call(t, cs, "workspace_list", nil).ok(t).decode(t, &d)
	var ids []string
	for _, w := range d.Workspaces {
		ids = append(ids, w.ID)
	}
	if !slices.Equal(ids, []string{"launch", "worktree:" + wt}) {
		t.Fatalf("workspaces %v; want launch and the real worktree only", ids)
	}
	call(t, cs, "read_file", map[string]any{"path": "secret.txt", "workspace": "worktree:" + victim}).failed(t, "unknown workspace")
	call(t, cs, "write_file", map[string]any{"path": "x.txt", "content": "x", "workspace": "worktree:" + victim}).failed(t, "unknown workspace")
	if _, err := os.Stat(filepath.Join(victim, "x.txt")); err == nil {
		t.Fatal("wrote into the victim repository")
	}
}

// TestMCPLocalDiscoveryDoesNotHang: a FIFO as .git/HEAD or as the mount
// registry, and .git/commondir as a symlink to /dev/zero, neither hang
// workspace_list / workspace_info nor grow the server; other calls work.
func TestMCPLocalDiscoveryDoesNotHang(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, e *localEnv, dir string)
	}{
		{"HEAD is a FIFO", func(t *testing.T, e *localEnv, dir string) {
			os.Remove(filepath.Join(dir, ".git", "HEAD"))
			mkfifo(t, filepath.Join(dir, ".git", "HEAD"))
		}},
		{"mounts.json is a FIFO", func(t *testing.T, e *localEnv, dir string) {
			os.MkdirAll(filepath.Join(e.base, "home", "state", "tv"), 0o755)
			mkfifo(t, filepath.Join(e.base, "home", "state", "tv", "mounts.json"))
		}},
		{"commondir is /dev/zero", func(t *testing.T, e *localEnv, dir string) {
			wt := filepath.Join(e.base, "wt")
			e.git(dir, "worktree", "add", "-q", "-b", "feature", wt)
			admin := filepath.Join(dir, ".git", "worktrees", "wt")
			os.Remove(filepath.Join(admin, "commondir"))
			os.Symlink("/dev/zero", filepath.Join(admin, "commondir"))
		}},
		{"packed-refs is /dev/zero", func(t *testing.T, e *localEnv, dir string) {
			e.git(dir, "pack-refs", "--all")
			os.Remove(filepath.Join(dir, ".git", "packed-refs"))
			os.Symlink("/dev/zero", filepath.Join(dir, ".git", "packed-refs"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newLocalEnv(t)
			dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
			tc.plant(t, e, dir)
			cs := e.start(dir, "")
			call(t, cs, "workspace_list", nil).ok(t)
			call(t, cs, "workspace_info", nil).ok(t)
			call(t, cs, "read_file", map[string]any{"path": "a.txt"}).ok(t)
		})
	}
}

// TestMCPLocalBashKillsBackgroundJobs: when the command returns, the jobs
// it left in the background are killed with its process group; one that
// called setsid has left the group and survives (as the README says).
func TestMCPLocalBashKillsBackgroundJobs(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	cs := e.start(dir, "")
	call(t, cs, "execute_bash", map[string]any{"command": "sleep 300 & echo $! > bg.pid; setsid sh -c 'touch ready; exec sleep 301' & echo $! > setsid.pid; until [ -e ready ]; do sleep 0.05; done; echo returned"}).ok(t)
	pid := func(name string) int {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if n == 0 {
			t.Fatalf("%s: no pid", name)
		}
		return n
	}
	if bg := pid("bg.pid"); processAlive(bg, 5*time.Second) {
		t.Fatalf("background job %d outlived its command", bg)
	}
	if ss := pid("setsid.pid"); !processAlive(ss, 0) {
		t.Fatalf("the setsid job %d was killed too; the README says setsid escapes", ss)
	}
}
