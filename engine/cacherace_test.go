package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/statcache"
)

// TestStaleCacheWrites: a walk-test whose cache write lands after a commit
// (which rewrote the manifest, or appended to the log and cache) must not
// make a later walk-test miss a change: the cache is bound to the manifest
// and log it was read with, and a commit appends its record only to the
// cache file it read. (Found by review: a user who reverted a committed
// file saw "no changes".)
func TestStaleCacheWrites(t *testing.T) {
	ctx := context.Background()
	const f = "_config/voice.md"
	tests := []struct {
		name string
		race func(t *testing.T, e *engine.Engine, d string)
	}{
		{"walk-test's write lands after a manifest fold", func(t *testing.T, e *engine.Engine, d string) {
			for i := range 400 { // enough to fold the log into the manifest
				write(t, filepath.Join(d, fmt.Sprintf("stages/01-research/references/bulk/file-with-a-long-name-%04d.md", i)), "b\n")
			}
			w := must[*engine.Plan](t)(engine.PlanForTest(d))
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "big"))
			if _, err := os.Stat(filepath.Join(d, engine.ManifestLogName)); err == nil {
				t.Fatal("the big commit did not fold the log")
			}
			if err := engine.WriteCacheForTest(w); err != nil {
				t.Fatal(err)
			}
		}},
		{"walk-test's write lands between two commits' records", func(t *testing.T, e *engine.Engine, d string) {
			w := must[*engine.Plan](t)(engine.PlanForTest(d))
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "c1"))
			write(t, filepath.Join(d, "stages/01-research/references/g.md"), "g\n")
			time.Sleep(20 * time.Millisecond)
			c2 := must[*engine.Plan](t)(engine.PlanForTest(d))  // c2 reads the cache with c1's record
			if err := engine.WriteCacheForTest(w); err != nil { // then w's write lands
				t.Fatal(err)
			}
			must[*engine.CommitResult](t)(e.CommitPlanForTest(ctx, c2, "c2"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(backends()[0].open(t), alice)
			d := setup(t, e, 1)[0]
			must[*engine.Plan](t)(e.WalkTest(ctx, d))
			orig, _ := os.ReadFile(filepath.Join(d, f))
			write(t, filepath.Join(d, f), "the committed voice\n")
			time.Sleep(20 * time.Millisecond)
			tt.race(t, e, d)
			write(t, filepath.Join(d, f), string(orig)) // the user reverts f
			time.Sleep(20 * time.Millisecond)
			if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); planString(p) != "~"+f {
				t.Fatalf("after reverting %s: plan %q", f, planString(p))
			}
		})
	}
}

// TestCommitWaitsForCheckoutLock: commits of one checkout run one at a
// time, from their plan to their manifest update.
func TestCommitWaitsForCheckoutLock(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	d := setup(t, e, 1)[0]
	write(t, filepath.Join(d, "_config/voice.md"), "new\n")
	unlock := must[func()](t)(engine.LockCheckoutForTest(d))
	done := make(chan error, 1)
	go func() { _, err := e.Commit(ctx, d, "waits"); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("commit ran while the checkout was locked: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestDamagedLogRefused: a manifest log edited in place (same size) is
// refused, never silently started over (which would drop its commits).
func TestDamagedLogRefused(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	d := setup(t, e, 1)[0]
	write(t, filepath.Join(d, "_config/voice.md"), "v1\n")
	must[*engine.CommitResult](t)(e.Commit(ctx, d, "c1"))
	lp := filepath.Join(d, engine.ManifestLogName)
	b, _ := os.ReadFile(lp)
	f, err := os.OpenFile(lp, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("X"), int64(bytes.LastIndex(b, []byte(`"baseline"`))+1))
	f.Close()
	if _, err := engine.ReadManifest(d); !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("ReadManifest: %v", err)
	}
	write(t, filepath.Join(d, "stages/01-research/references/n.md"), "n\n")
	if _, err := e.Commit(ctx, d, "c2"); !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("commit over a damaged log: %v", err)
	}
	if after, _ := os.ReadFile(lp); bytes.Count(after, []byte("\n")) != bytes.Count(b, []byte("\n")) {
		t.Fatalf("the damaged log was rewritten:\n%s", after)
	}
}

// TestCommitOnTopCaseFold: a commit applied on top of a moved head may not
// land a name that collides, case folded, with one the head added.
func TestCommitOnTopCaseFold(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	d := setup(t, e, 2)
	write(t, filepath.Join(d[0], "stages/01-research/references/Note.md"), "A\n")
	first := must[*engine.CommitResult](t)(e.Commit(ctx, d[0], "A"))
	write(t, filepath.Join(d[1], "stages/01-research/references/note.md"), "B\n")
	_, err := e.Commit(ctx, d[1], "B")
	var inv *engine.InvalidTreeError
	if !errors.As(err, &inv) || inv.OnTopOf != first.Version {
		t.Fatalf("commit: %v; want an invalid combined tree", err)
	}
}

// TestWalkTestWithEditKeepsCache: a checkout with an edited file does not
// rewrite its stat cache on every walk-test (the edit stays dirty whatever
// is written: it is hashed again, the cache is not), while a file hashed
// back to its base version is vouched for again (the cache is rewritten).
func TestWalkTestWithEditKeepsCache(t *testing.T) {
	ctx := context.Background()
	const f = "_config/voice.md"
	e := newEngine(backends()[0].open(t), alice)
	d := setup(t, e, 1)[0]
	cache := filepath.Join(d, engine.StatCacheName)
	orig, err := os.ReadFile(filepath.Join(d, f))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past the racy window: stamps are vouched for
	must[*engine.Plan](t)(e.WalkTest(ctx, d))
	if st := cachedStamp(t, cache, f); st.Mtime == 0 {
		t.Fatalf("the cache does not vouch for the unedited %s: %+v", f, st)
	}
	write(t, filepath.Join(d, f), "an edit\n")
	time.Sleep(20 * time.Millisecond)
	// The first walk-test after the edit drops the stamp the cache held
	// for f (without a change time, a same-size edit whose mtime was put
	// back would match it).
	must[*engine.Plan](t)(e.WalkTest(ctx, d))
	if st := cachedStamp(t, cache, f); st != (fastio.Stamp{Size: st.Size}) {
		t.Fatalf("the cache still vouches for the edited %s: %+v", f, st)
	}
	time.Sleep(20 * time.Millisecond)
	before, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(cache); err != nil { // any rewrite would bring it back
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, before, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	fi1 := must[os.FileInfo](t)(os.Stat(cache))
	for range 2 {
		if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); planString(p) != "~"+f {
			t.Fatalf("plan %q, want the edit", planString(p))
		}
	}
	if fi2 := must[os.FileInfo](t)(os.Stat(cache)); !os.SameFile(fi1, fi2) || !fi2.ModTime().Equal(fi1.ModTime()) {
		t.Fatal("walk-test rewrote the stat cache although only an edited file was hashed")
	}
	write(t, filepath.Join(d, f), string(orig)) // revert: hashed back to its base
	time.Sleep(20 * time.Millisecond)
	if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); p.Changed() {
		t.Fatalf("after the revert: plan %q", planString(p))
	}
	if fi3 := must[os.FileInfo](t)(os.Stat(cache)); os.SameFile(fi1, fi3) && fi3.ModTime().Equal(fi1.ModTime()) {
		t.Fatal("walk-test did not rewrite the stat cache for a file hashed back to its base")
	}
}

// cachedStamp is the stamp the stat cache at path holds for file rel.
func cachedStamp(t *testing.T, path, rel string) fastio.Stamp {
	t.Helper()
	c, err := statcache.Load(path, engine.MaxStatCacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	i := c.Lookup(rel)
	if i < 0 {
		t.Fatalf("%s is not in the stat cache", rel)
	}
	return c.Files[i].Stamp
}

// TestReadBaseAhead: the stat cache read ahead for a checkout is what its
// next plan uses — not another checkout's plan, and not once the
// manifest log moved on after the read (the plan then reads the manifest
// and sees the new baseline).
func TestReadBaseAhead(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	dirs := setup(t, e, 2)
	a, b := dirs[0], dirs[1]
	must[*engine.Plan](t)(e.WalkTest(ctx, a))
	must[*engine.Plan](t)(e.WalkTest(ctx, b))
	base := must[*engine.Manifest](t)(engine.ReadManifest(a)).Baseline

	engine.ReadBaseAhead(a)
	if p := must[*engine.Plan](t)(engine.PlanForTest(b)); p.Changed() || p.Dir != b {
		t.Fatalf("plan of the other checkout: %s", planString(p))
	}
	if p := must[*engine.Plan](t)(engine.PlanForTest(a)); p.Changed() || p.Baseline != base {
		t.Fatalf("plan from the cache read ahead: %s at %s", planString(p), p.Baseline.Short())
	}

	engine.ReadBaseAhead(a)
	engine.BaseAheadReadForTest()
	moved := engine.Hash{1}
	if err := engine.AppendLogEntryForTest(a, moved); err != nil {
		t.Fatal(err)
	}
	if p := must[*engine.Plan](t)(engine.PlanForTest(a)); p.Baseline != moved {
		t.Fatalf("the plan's baseline is %s, want %s: it used a cache read before the log moved", p.Baseline.Short(), moved.Short())
	}
}
