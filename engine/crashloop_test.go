package engine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
)

// crashRounds is how many rounds TestUpdateCrashLoop runs: the first
// times a whole update, each later one kills an update. The 32 kills are
// 16 at random moments of the whole update and 16 while it moves files
// into place; each set is stratified: its window is cut into 16 equal
// slices, a kill falls at a random point of a slice of its own (slices
// in random order), so no two kills of a set are more than two slices
// (12.5 % of the window) apart. The 49 kills this test made before,
// uniformly random, left a largest gap of 14.8 % of the window on
// average in each set of 24 or 25 (H(26)/26, the expected largest of
// their 26 gaps) and a wider one in an unlucky run, at 17 more rounds.
const crashRounds = 33

// crashSlices is how many kills of each kind TestUpdateCrashLoop makes
// (the rounds after the first, half of each kind).
const crashSlices = (crashRounds - 1) / 2

// TestUpdateCrashChild is the process TestUpdateCrashLoop kills: it
// updates the checkout named in its environment. It does nothing when
// run on its own.
func TestUpdateCrashChild(t *testing.T) {
	dir := os.Getenv("TV_CRASH_CHECKOUT")
	if dir == "" {
		t.Skip("run by TestUpdateCrashLoop")
	}
	v, _, err := gitbackend.OpenOrCreate(os.Getenv("TV_CRASH_VAULT"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("updating") // the parent's cue: the update starts now
	if _, err := newEngine(v, alice).Update(context.Background(), dir, engine.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestUpdateCrashLoop kills an update with SIGKILL at a random moment,
// crashRounds times, each against a new upstream version that changes,
// adds and removes files. After every kill the checkout's manifest (with
// the journal an interrupted update leaves, which the next walk-test
// completes) describes exactly the files on disk, the next walk-test
// reports no change, and the baseline is the old version or the new one.
func TestUpdateCrashLoop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	vaultPath := filepath.Join(t.TempDir(), "vault.git")
	v, _, err := gitbackend.OpenOrCreate(vaultPath)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(v, alice)
	dirs := setup(t, e, 2)
	up, co := dirs[0], dirs[1]
	r := rand.New(rand.NewSource(13))
	var took time.Duration
	kills, journaled := 0, 0
	// The slice of its window each killing round's kill falls in, by
	// kind: wholeSlices for even rounds, journalSlices for odd ones.
	wholeSlices, journalSlices := r.Perm(crashSlices), r.Perm(crashSlices)
	for round := range crashRounds {
		old := must[*engine.Manifest](t)(engine.ReadManifest(co)).Baseline
		for i := range 24 {
			p := filepath.Join(up, "shared", fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%02d.md", i))
			if r.Intn(4) == 0 {
				os.Remove(p)
				continue
			}
			write(t, p, fmt.Sprintf("round %d file %d\n", round, i))
		}
		next := must[*engine.CommitResult](t)(e.Commit(ctx, up, fmt.Sprintf("round %d", round))).Version
		cmd := exec.Command(os.Args[0], "-test.run=^TestUpdateCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TV_CRASH_CHECKOUT="+co, "TV_CRASH_VAULT="+vaultPath)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cue := make([]byte, len("updating\n"))
		if _, err := io.ReadFull(out, cue); err != nil || string(cue) != "updating\n" {
			t.Fatalf("round %d: child said %q: %v", round, cue, err)
		}
		start := time.Now()
		go io.Copy(io.Discard, out)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if round == 0 {
			// The first round runs whole: it times an update.
			if err := <-done; err != nil {
				t.Fatalf("update: %v", err)
			}
			took = time.Since(start)
		} else {
			// Even rounds kill at a random moment of the whole update;
			// odd ones while it moves files into place (right after its
			// journal appears), a window too short for chance to hit.
			stop := make(chan struct{})
			var kill <-chan time.Time
			if round%2 == 0 {
				kill = time.After(inSlice(r, took, wholeSlices[round/2-1]))
			} else {
				kill = journalAppears(co, inSlice(r, 2*time.Millisecond, journalSlices[round/2]), stop)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("round %d: update: %v", round, err)
				}
			case <-kill:
				cmd.Process.Signal(syscall.SIGKILL)
				<-done
				kills++
				if _, err := os.Stat(filepath.Join(co, engine.UpdateDirName, "journal.json")); err == nil {
					journaled++
				}
			}
			close(stop)
		}
		manifestDescribes(t, co)
		p := must[*engine.Plan](t)(e.WalkTest(ctx, co))
		if p.Changed() {
			t.Fatalf("round %d: after the kill walk-test reports changes: %s", round, planString(p))
		}
		m := must[*engine.Manifest](t)(engine.ReadManifest(co))
		if m.Baseline != old && m.Baseline != next {
			t.Fatalf("round %d: baseline %s is neither the old %s nor the new %s", round, m.Baseline.Short(), old.Short(), next.Short())
		}
		manifestDescribes(t, co)
		must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{}))
		manifestDescribes(t, co)
	}
	if kills < crashRounds/2 {
		t.Fatalf("only %d of %d rounds were killed mid-way", kills, crashRounds)
	}
	t.Logf("%d kills (%d after the journal was written); an update took %v", kills, journaled, took)
}

// inSlice returns a random point of slice i of window cut into
// crashSlices equal slices.
func inSlice(r *rand.Rand, window time.Duration, i int) time.Duration {
	w := window / crashSlices
	return time.Duration(i)*w + time.Duration(r.Int63n(int64(w)+1))
}

// journalAppears fires delay after checkout dir's update journal
// appears; it polls until then or until stop is closed.
func journalAppears(dir string, delay time.Duration, stop <-chan struct{}) <-chan time.Time {
	c := make(chan time.Time, 1)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := os.Stat(filepath.Join(dir, engine.UpdateDirName, "journal.json")); err == nil {
				time.Sleep(delay)
				c <- time.Now()
				return
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	return c
}

// manifestDescribes checks that checkout dir holds exactly the files its
// manifest lists, with their checksums — after applying the update
// journal an interrupted update left (as the next walk-test does).
func manifestDescribes(t *testing.T, dir string) {
	t.Helper()
	m := must[*engine.Manifest](t)(engine.ReadManifest(dir))
	want := map[string]string{}
	for _, f := range m.Files {
		want[f.Path] = f.SHA256
	}
	journal := false
	if _, err := os.Stat(filepath.Join(dir, engine.UpdateDirName, "journal.json")); err == nil {
		journal = true
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		if strings.HasPrefix(rel, ".thalix-workspace") || strings.HasPrefix(rel, "..thalix-workspace") { // tv's own (and its temp files)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		if w, ok := want[rel]; !ok || w != hex.EncodeToString(sum[:]) {
			if journal {
				return nil // the journal moves it on; walk-test completes it
			}
			return fmt.Errorf("%s on disk is not what the manifest says (listed: %v)", rel, ok)
		}
		delete(want, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) > 0 && !journal {
		t.Fatalf("the manifest lists files that are not on disk: %v", want)
	}
}
