package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
)

// bulkTree returns demo's head tree plus n new files in a references
// folder, all written into the crafter's repository in one fast-import.
func bulkTree(t *testing.T, w *world, n int, extra string) string {
	t.Helper()
	head := w.head(w.wsRef())
	var stream strings.Builder
	fmt.Fprintf(&stream, "commit refs/bulk\ncommitter t <t@example.com> 1767323045 +0000\ndata 5\nbulk\nfrom %s\n", head)
	for i := range n {
		body := fmt.Sprintf("file %d of bulk push %q\n", i, t.Name())
		fmt.Fprintf(&stream, "M 100644 inline stages/01-research/references/bulk/f%05d.md\ndata %d\n%s\n", i, len(body), body)
	}
	stream.WriteString(extra)
	// fast-import frees each inline blob's buffer, and glibc hands the
	// heap top back to the kernel every time (one brk each way, ~20,000
	// for 5,000 files: seconds on a VM where brk is slow). A top pad
	// keeps the heap; it changes no object this writes.
	env := append(w.c.env[:len(w.c.env):len(w.c.env)], "GLIBC_TUNABLES=glibc.malloc.top_pad=16777216")
	gitRun(t, env, w.c.dir, stream.String(), "fast-import", "--quiet", "--force")
	return w.c.git("", "rev-parse", "refs/bulk^{tree}")
}

// TestQuarantinePackedAndLoose pushes 5,000 objects (more than
// receive.unpackLimit: they stay a pack in the quarantine) and 50 (fewer:
// receive-pack unpacks them into loose objects there); the hook reads both
// — it accepts them whole, and finds one bad entry among them.
func TestQuarantinePackedAndLoose(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	seed, ws := seedVault(t)
	if out, err := s.push(t, seed, "alice", "refs/tv/*:refs/tv/*"); err != nil {
		t.Fatalf("seeding the server: %v\n%s", err, out)
	}
	w := &world{t: t, s: s, c: newCrafter(t, s.env, s.repo), ws: ws}
	w.sync()
	readersUsed(t, s.readers) // the seeding push's
	for _, tc := range []struct {
		name   string
		files  int
		bad    bool
		reader string // a pack in the quarantine is read by git
	}{
		{"5000 objects, a bad one among them", 4990, true, "git"},
		{"5000 objects", 4990, false, "git"},
		{"50 objects, a bad one among them", 45, true, "in-process"},
		{"50 objects", 45, false, "in-process"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w.t, w.c.t = t, t
			extra := ""
			if tc.bad {
				extra = "M 120000 inline stages/01-research/references/bulk/zz-link\ndata 11\n/etc/passwd\n"
			}
			tree := bulkTree(t, w, tc.files, extra)
			head := w.head(w.wsRef())
			c := w.c.commit(tree, wsMessage(tc.name, ws, "demo"), head)
			objects := strings.Count(w.c.git("", "rev-list", "--objects", c, "--not", head), "\n") + 1
			before := w.refs
			start := time.Now()
			out, err := s.push(t, w.c.dir, "alice", c+":"+w.wsRef())
			after := w.sync()
			t.Logf("%d new objects, push took %v", objects, time.Since(start))
			if used := readersUsed(t, s.readers); len(used) != 1 || used[0] != tc.reader {
				t.Errorf("the hook read with %v, want [%s]", used, tc.reader)
			}
			if tc.bad {
				if err == nil || !strings.Contains(out, "remote: tv: input-refused: ") || !strings.Contains(out, "zz-link") {
					t.Fatalf("the symlink among %d objects was not refused:\n%s", objects, out)
				}
				if after != before {
					t.Fatal("refused push changed the server's refs")
				}
				return
			}
			if err != nil {
				t.Fatalf("push of %d objects refused: %v\n%s", objects, err, out)
			}
			if got := w.head(w.wsRef()); got != c {
				t.Fatalf("workspace at %s, want %s", got, c)
			}
		})
	}
}

// TestNoIdentity pushes straight to the repository (file transport), where
// no server names the pusher: refused, refs unchanged.
func TestNoIdentity(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := testEnv(t, home)
	repo := filepath.Join(t.TempDir(), "vault.git")
	gitRun(t, env, ".", "", "init", "-q", "--bare", repo)
	installHook(t, repo, env)
	seed, _ := seedVault(t)
	before := gitRun(t, env, repo, "", "for-each-ref")
	out, err := gitTry(env, seed, "", "push", repo, "refs/tv/*:refs/tv/*")
	if err == nil || !strings.Contains(err.Error(), "remote: tv: permission-denied: the server names no pusher") {
		t.Fatalf("push without identity: %v\n%s", err, out)
	}
	if gitRun(t, env, repo, "", "for-each-ref") != before {
		t.Fatal("refused push changed the refs")
	}
	// The installer's variable names the pusher where the server sets none of the standard ones.
	exe, _ := os.Executable()
	if _, err := Install(t.Context(), repo, InstallOptions{Tv: exe, Env: env, UserEnv: "TV_PUSHER"}); err != nil {
		t.Fatal(err)
	}
	if out, err := gitTry(append(env, "TV_PUSHER=alice"), seed, "", "push", repo, "refs/tv/*:refs/tv/*"); err != nil {
		t.Fatalf("push as TV_PUSHER=alice: %v\n%s", err, out)
	}
	if gitRun(t, env, repo, "", "rev-parse", engine.AccessRef) == "" {
		t.Fatal("access ref not pushed")
	}
}
