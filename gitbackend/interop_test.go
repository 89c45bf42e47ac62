package gitbackend

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
)

// TestInteropRace: tv processes and `git update-ref` loops race
// compare-and-swap increments on one ref. Every successful update must
// extend the chain by exactly one commit (no lost update), git fsck stays
// clean, and a reader polling the ref never sees it missing or empty.
func TestInteropRace(t *testing.T) {
	const (
		tvWorkers  = 3
		gitWorkers = 2
		attempts   = 40
		ref        = "refs/tv/workspaces/ws_race"
	)
	ctx := context.Background()
	v := newDiskVault(t)
	tree := mustEmptyTree(t, v)
	c0 := mustCommit(t, v, "base\n", engine.ZeroHash)
	mustUpdate(t, v, engine.RefUpdate{Name: ref, New: c0})

	var successes atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, tvWorkers+gitWorkers+2)

	// tv workers: separate processes.
	for i := range tvWorkers {
		cmd := helperCmd(t, "cas",
			"TV_HELPER_VAULT="+v.Path(), "TV_HELPER_REF="+ref, "TV_HELPER_TREE="+tree.String(),
			"TV_HELPER_ATTEMPTS="+strconv.Itoa(attempts), "TV_HELPER_WORKER="+strconv.Itoa(i))
		wg.Go(func() {
			out, err := cmd.Output()
			if err != nil {
				errc <- fmt.Errorf("tv worker %d: %v (%s)", i, err, stderrOf(err))
				return
			}
			n, err := strconv.Atoi(strings.TrimSpace(string(out)))
			if err != nil {
				errc <- fmt.Errorf("tv worker %d printed %q", i, out)
				return
			}
			successes.Add(int64(n))
		})
	}
	// git workers: commit-tree + update-ref NEW OLD.
	for i := range gitWorkers {
		wg.Go(func() {
			for a := range attempts {
				cur, err := gitErr(t, v.Path(), "", "rev-parse", ref)
				if err != nil {
					errc <- fmt.Errorf("git worker %d: %v", i, err)
					return
				}
				next, err := gitErr(t, v.Path(), "", "commit-tree", tree.String(), "-p", cur, "-m", fmt.Sprintf("git worker %d attempt %d", i, a))
				if err != nil {
					errc <- fmt.Errorf("git worker %d: %v", i, err)
					return
				}
				if _, err := gitErr(t, v.Path(), "", "update-ref", ref, next, cur); err == nil {
					successes.Add(1)
				} else if !strings.Contains(err.Error(), "cannot lock ref") {
					errc <- fmt.Errorf("git worker %d: unexpected update-ref failure: %v", i, err)
					return
				}
			}
		})
	}
	// Readers: through Ref, and the raw loose file.
	stop := make(chan struct{})
	var reads atomic.Int64
	var readers sync.WaitGroup
	readers.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := v.Ref(ctx, ref); err != nil {
				errc <- fmt.Errorf("reader: Ref: %v", err)
				return
			}
			data, err := os.ReadFile(v.refPath(ref))
			if err != nil || len(data) != 41 || data[40] != '\n' {
				errc <- fmt.Errorf("reader: ref file %q, %v", data, err)
				return
			}
			reads.Add(1)
		}
	})
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	chain, err := strconv.Atoi(git(t, v.Path(), "", "rev-list", "--count", ref))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d successful updates of %d attempts, chain of %d commits, %d reads", successes.Load(), (tvWorkers+gitWorkers)*attempts, chain, reads.Load())
	if int64(chain-1) != successes.Load() {
		t.Fatalf("chain has %d commits after the base, but %d updates succeeded: an update was lost", chain-1, successes.Load())
	}
	if successes.Load() == 0 {
		t.Fatal("no update succeeded")
	}
	if locks, _ := filepath.Glob(v.refPath(ref) + ".lock"); len(locks) != 0 {
		t.Fatalf("lock left behind: %v", locks)
	}
	// The chain is linear: every commit has exactly one parent but the base.
	if merges := git(t, v.Path(), "", "rev-list", "--min-parents=2", "--count", ref); merges != "0" {
		t.Fatalf("%s merge commits in the chain", merges)
	}
	fsckClean(t, v.Path())
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

// startHelper starts a helper and waits until it prints "ready".
func startHelper(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := helperCmd(t, mode, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || string(buf) != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper %s did not start: %q %v\n%s", mode, buf, err, stderr.String())
	}
	return cmd
}

func killHelper(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper ended before it was killed: %v\n%v", err, cmd.Stderr)
	}
}

// TestCrashDuringRefTransactions kills a process in the middle of ref
// transactions, many times. Every ref always holds an old or new valid
// commit; a lock left behind is reported as ErrRefLocked naming it until a
// user removes it.
func TestCrashDuringRefTransactions(t *testing.T) {
	t.Parallel()
	const rounds = 50
	ctx := context.Background()
	v := newDiskVault(t)
	tree := mustEmptyTree(t, v)
	c0 := mustCommit(t, v, "base\n", engine.ZeroHash)
	refs := []string{"refs/tv/workspaces/ws_a", "refs/tv/workspaces/ws_b"}
	for _, r := range refs {
		mustUpdate(t, v, engine.RefUpdate{Name: r, New: c0})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	leftLocks := 0
	for round := range rounds {
		cmd := startHelper(t, "txloop", "TV_HELPER_VAULT="+v.Path(), "TV_HELPER_TREE="+tree.String())
		time.Sleep(time.Duration(rng.IntN(30_000)) * time.Microsecond)
		killHelper(t, cmd)
		for _, r := range refs {
			data, err := os.ReadFile(v.refPath(r))
			if err != nil || len(data) != 41 {
				t.Fatalf("round %d: ref file %s = %q, %v", round, r, data, err)
			}
			h := mustRef(t, v, r)
			if _, err := v.ReadCommit(ctx, h); err != nil {
				t.Fatalf("round %d: %s points at %s: %v", round, r, h, err)
			}
			lock := v.refPath(r) + ".lock"
			if _, err := os.Stat(lock); err == nil {
				leftLocks++
				err := v.UpdateRefs(ctx, engine.RefUpdate{Name: r, Old: h, New: c0})
				if !errors.Is(err, engine.ErrRefLocked) || !strings.Contains(err.Error(), lock) {
					t.Fatalf("round %d: update with a stale lock = %v, want ErrRefLocked naming %s", round, err, lock)
				}
				if _, err := os.Stat(lock); err != nil {
					t.Fatalf("round %d: the stale lock was removed automatically", round)
				}
				if got := mustRef(t, v, r); got != h {
					t.Fatalf("round %d: refused update moved the ref", round)
				}
				os.Remove(lock) // what the user does after reading the message
			}
		}
	}
	t.Logf("%d rounds, %d stale locks left by killed processes", rounds, leftLocks)
	for _, r := range refs {
		if typ := git(t, v.Path(), "", "cat-file", "-t", r); typ != "commit" {
			t.Fatalf("git cat-file -t %s = %s", r, typ)
		}
	}
	if chain := git(t, v.Path(), "", "rev-list", "--count", refs[0]); chain == "1" {
		t.Fatal("the helper never completed a transaction before it was killed")
	}
	checkPackDir(t, v)
	fsckClean(t, v.Path())
}

var packDirName = regexp.MustCompile(`^(pack-[0-9a-f]{40}\.(pack|idx|keep|bitmap|rev)|tmp_pack_\w+|tmp_idx_\w+|tv-consolidate\.lock)$`)

// checkPackDir: only complete packs are named pack-*; temporaries are tmp_*.
func checkPackDir(t *testing.T, v *Vault) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(v.Path(), "objects", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !packDirName.MatchString(e.Name()) {
			t.Errorf("unexpected file in objects/pack: %s", e.Name())
		}
	}
	idxs := packFiles(t, v, "pack-*.idx")
	for _, idx := range idxs {
		if _, err := os.Stat(strings.TrimSuffix(idx, ".idx") + ".pack"); err != nil {
			t.Errorf("index without pack: %s", idx)
		}
	}
	if len(idxs) > 0 { // one git for every pack: it fails if any pack does
		git(t, v.Path(), "", append([]string{"verify-pack"}, idxs...)...)
	}
	for _, pack := range packFiles(t, v, "pack-*.pack") {
		if _, err := os.Stat(strings.TrimSuffix(pack, ".pack") + ".idx"); err != nil {
			// Killed between the two renames (git has the same window):
			// the pack must still be complete, so git can index it.
			t.Logf("pack without index (killed between renames): %s", pack)
			git(t, v.Path(), "", "index-pack", pack)
		}
	}
}

// TestCrashDuringPackWrite kills a process while it writes packs: every
// pack that is named pack-* is complete, and git fsck stays clean.
func TestCrashDuringPackWrite(t *testing.T) {
	t.Parallel()
	const rounds = 20
	ctx := context.Background()
	v := newDiskVault(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for range rounds {
		cmd := startHelper(t, "packloop", "TV_HELPER_VAULT="+v.Path())
		time.Sleep(time.Duration(5_000+rng.IntN(60_000)) * time.Microsecond)
		killHelper(t, cmd)
	}
	tmps := packFiles(t, v, "tmp_*")
	packs := packFiles(t, v, "pack-*.pack")
	t.Logf("%d complete packs, %d temporary files left by killed writers", len(packs), len(tmps))
	checkPackDir(t, v)
	fsckClean(t, v.Path())
	// The vault still works: write, read, update.
	c := mustCommit(t, v, "after the crashes\n", engine.ZeroHash)
	mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_after", New: c})
	if _, err := v.ReadCommit(ctx, c); err != nil {
		t.Fatal(err)
	}
	fsckClean(t, v.Path())
}
