package gitbackend

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
)

// testObject is an object a test wrote; content is known for blobs the
// test process wrote itself (nil: read it, do not compare).
type testObject struct {
	id      engine.Hash
	typ     int
	content []byte
}

func (o testObject) String() string { return fmt.Sprintf("%d:%s", o.typ, o.id) }

func parseTestObject(s string) (testObject, error) {
	t, h, ok := strings.Cut(s, ":")
	typ, err := strconv.Atoi(t)
	if !ok || err != nil || typ < typeCommit || typ > typeBlob {
		return testObject{}, fmt.Errorf("bad object %q", s)
	}
	id, err := engine.ParseHash(h)
	return testObject{id: id, typ: typ}, err
}

// sharedBlob is written by every mixed batch: after the first, writers
// skip it (or not, when they race), so it tests deduplication.
const sharedBlob = "shared by every batch\n"

// writeMixedBatch writes one batch: two blobs of its own, the shared
// blob, with big a streamed blob over StreamThreshold, a tree of them
// and a commit on it.
func writeMixedBatch(ctx context.Context, v *Vault, tag string, i int, big bool) ([]testObject, error) {
	w, err := v.NewObjectWriter(ctx)
	if err != nil {
		return nil, err
	}
	objs, err := fillMixedBatch(w, tag, i, big)
	if err != nil {
		w.Abort()
		return nil, err
	}
	return objs, w.Finish()
}

func fillMixedBatch(w engine.ObjectWriter, tag string, i int, big bool) ([]testObject, error) {
	blobs := [][]byte{
		fmt.Appendf(nil, "%s batch %d: first\n", tag, i),
		bytes.Repeat(fmt.Appendf(nil, "%s batch %d: second ", tag, i), 1+i%50),
		[]byte(sharedBlob),
	}
	if big {
		blobs = append(blobs, bytes.Repeat(fmt.Appendf(nil, "%s batch %d: big\n", tag, i), StreamThreshold/8))
	}
	var objs []testObject
	var entries []engine.TreeEntry
	for k, b := range blobs {
		id, err := w.WriteBlob(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return nil, err
		}
		objs = append(objs, testObject{id: id, typ: typeBlob, content: b})
		entries = append(entries, engine.TreeEntry{Name: fmt.Sprintf("f%d", k), Mode: engine.ModeFile, ID: id})
	}
	tree, err := w.WriteTree(entries)
	if err != nil {
		return nil, err
	}
	c, err := w.WriteCommit(&engine.Commit{Tree: tree, Author: testSig, Committer: testSig, Message: fmt.Sprintf("%s %d\n", tag, i)})
	if err != nil {
		return nil, err
	}
	return append(objs, testObject{id: tree, typ: typeTree}, testObject{id: c, typ: typeCommit}), nil
}

// readObject reads o whole through v and checks what it can.
func readObject(ctx context.Context, v *Vault, o testObject) error {
	switch o.typ {
	case typeCommit:
		_, err := v.ReadCommit(ctx, o.id)
		return err
	case typeTree:
		_, err := v.ReadTree(ctx, o.id)
		return err
	}
	rc, size, err := v.OpenBlob(ctx, o.id)
	if err != nil {
		return err
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	switch {
	case err != nil:
		return fmt.Errorf("read blob %s: %w", o.id, err)
	case int64(len(got)) != size:
		return fmt.Errorf("blob %s: %d bytes, size %d", o.id, len(got), size)
	case o.content != nil && !bytes.Equal(got, o.content):
		return fmt.Errorf("blob %s read back wrong", o.id)
	}
	return nil
}

// checkVault checks that every object in objs is readable by v, by a
// freshly opened vault and by `git cat-file`, that every pack verifies
// and that `git fsck --strict` is clean.
func checkVault(t *testing.T, v *Vault, objs []testObject) {
	t.Helper()
	ctx := context.Background()
	fresh, err := Open(v.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, vv := range []*Vault{v, fresh} {
		for _, o := range objs {
			if err := readObject(ctx, vv, o); err != nil {
				t.Fatalf("object %s: %v", o, err)
			}
		}
	}
	var in strings.Builder
	for _, o := range objs {
		fmt.Fprintln(&in, o.id)
	}
	out := git(t, v.Path(), in.String(), "cat-file", "--batch-check")
	lines := strings.Split(out, "\n")
	if len(lines) != len(objs) {
		t.Fatalf("git cat-file answered %d lines for %d objects", len(lines), len(objs))
	}
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != objs[i].id.String() || f[1] != typeNames[objs[i].typ] {
			t.Fatalf("git cat-file --batch-check: %q for %s", line, objs[i])
		}
		if c := objs[i].content; c != nil && f[2] != strconv.Itoa(len(c)) {
			t.Fatalf("git cat-file --batch-check: %q, want size %d", line, len(c))
		}
	}
	checkPackDir(t, v)
	fsckClean(t, v.Path())
}

// packObjectCount returns how many objects the index of pack name lists.
func packObjectCount(t *testing.T, v *Vault, name string) int {
	t.Helper()
	idx, err := loadPackIndex(filepath.Join(v.Path(), "objects", "pack", name+".idx"), name)
	if err != nil {
		t.Fatal(err)
	}
	return len(idx.names) / 20
}

func packNames(t *testing.T, v *Vault) []string {
	t.Helper()
	var names []string
	for _, p := range packFiles(t, v, "pack-*.idx") {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".idx"))
	}
	return names
}

func distinct(objs []testObject) int {
	seen := map[engine.Hash]bool{}
	for _, o := range objs {
		seen[o.id] = true
	}
	return len(seen)
}

// expectedPacks is the fewest packs the rule can leave: after each pack
// lands, more than limit packs with at least two mergeable ones become
// the fixed ones plus one when consolidation merges them all (it merges
// fewer when the older merged packs are large enough to stay, see
// geometricSplit).
func expectedPacks(landed, fixed, limit int) int {
	c := 0
	for range landed {
		c++
		if c > limit && c-fixed >= 2 {
			c = fixed + 1
		}
	}
	return c
}

// TestAutoConsolidation writes more batches than AutoPackLimit and checks
// that the small packs were merged, the big and kept ones left alone, and
// that every object is still there for tv and git.
func TestAutoConsolidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name    string
		batches int  // mixed batches (racing: pairs of them)
		big     bool // the first pack is over the vault's packMaxBytes
		keep    bool // the first pack has a .keep file
		racing  bool // pairs of writers that do not see each other's objects
	}{
		{name: "limit plus one batches", batches: AutoPackLimit + 1},
		{name: "limit plus two batches", batches: AutoPackLimit + 2},
		{name: "twice the limit plus two", batches: 2*AutoPackLimit + 2},
		{name: "big pack left alone", batches: AutoPackLimit, big: true},
		{name: "kept pack left alone", batches: AutoPackLimit, keep: true},
		{name: "objects in several packs written once", batches: AutoPackLimit + 1, racing: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newDiskVault(t)
			v.packMaxBytes = 64 << 10 // the big blob's pack is over it, the others far under
			var objs []testObject
			fixed := 0
			var firstPack string
			if tc.big || tc.keep {
				big := make([]byte, 100<<10)
				rand.Read(big)
				writeBatch(t, v, func(w engine.ObjectWriter) {
					id, err := w.WriteBlob(bytes.NewReader(big), int64(len(big)))
					if err != nil {
						t.Fatal(err)
					}
					objs = append(objs, testObject{id: id, typ: typeBlob, content: big})
				})
				firstPack = packNames(t, v)[0]
				if tc.keep {
					v.packMaxBytes = ConsolidateMaxBytes
					if err := os.WriteFile(filepath.Join(v.Path(), "objects", "pack", firstPack+".keep"), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				fixed = 1
			}
			landed := fixed
			for i := 0; i < tc.batches; i++ {
				if tc.racing && i+1 < tc.batches {
					// Both writers load the pack list before either finishes:
					// both write the shared blob and the pair's blobs.
					w1, err := v.NewObjectWriter(ctx)
					if err != nil {
						t.Fatal(err)
					}
					w2, err := v.NewObjectWriter(ctx)
					if err != nil {
						t.Fatal(err)
					}
					for k, w := range []engine.ObjectWriter{w1, w2} {
						o, err := fillMixedBatch(w, "pair", i, false)
						if err != nil {
							t.Fatal(err)
						}
						objs = append(objs, o...)
						// One object of its own, or both packs would be
						// byte for byte the same pack.
						own := fmt.Sprintf("writer %d of pair %d", k, i)
						id, err := w.WriteBlob(strings.NewReader(own), int64(len(own)))
						if err != nil {
							t.Fatal(err)
						}
						objs = append(objs, testObject{id: id, typ: typeBlob, content: []byte(own)})
					}
					for _, w := range []engine.ObjectWriter{w1, w2} {
						if err := w.Finish(); err != nil {
							t.Fatal(err)
						}
					}
					landed += 2
					i++
					continue
				}
				o, err := writeMixedBatch(ctx, v, "batch", i, i == 5)
				if err != nil {
					t.Fatal(err)
				}
				objs = append(objs, o...)
				landed++
				if n := len(packNames(t, v)); n > AutoPackLimit {
					t.Fatalf("after batch %d: %d packs", i, n)
				}
			}
			names := packNames(t, v)
			want := expectedPacks(landed, fixed, AutoPackLimit)
			t.Logf("%d packs landed, %d left", landed, len(names))
			if len(names) < want || len(names) > AutoPackLimit {
				t.Fatalf("%d packs (%v), want %d to %d", len(names), names, want, AutoPackLimit)
			}
			if firstPack != "" && !slices.Contains(names, firstPack) {
				t.Fatalf("the pack left alone (%s) is gone: %v", firstPack, names)
			}
			if len(names)-fixed == 1 {
				merged := names[0]
				if merged == firstPack {
					merged = names[1]
				}
				wantObjs := distinct(objs) - fixed
				if got := packObjectCount(t, v, merged); got != wantObjs {
					t.Fatalf("merged pack holds %d objects, want %d distinct ones", got, wantObjs)
				}
			}
			if _, err := os.Stat(filepath.Join(v.Path(), "objects", "pack", consolidateLockName)); err == nil {
				t.Fatal("the consolidation lock was left behind")
			}
			os.Remove(filepath.Join(v.Path(), "objects", "pack", firstPack+".keep"))
			checkVault(t, v, objs)
		})
	}
}

// TestConsolidationLock: a held lock skips consolidation and stays; a
// stale one is removed and consolidation runs.
func TestConsolidationLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name      string
		lockAge   time.Duration // < 0: no lock
		wantPacks int
		wantLock  bool
	}{
		{name: "no lock", lockAge: -1, wantPacks: 1},
		{name: "held lock skips", lockAge: 0, wantPacks: AutoPackLimit + 1, wantLock: true},
		{name: "lock just under stale skips", lockAge: ConsolidateLockStale - time.Minute, wantPacks: AutoPackLimit + 1, wantLock: true},
		{name: "stale lock removed", lockAge: ConsolidateLockStale + time.Minute, wantPacks: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newDiskVault(t)
			lock := filepath.Join(v.Path(), "objects", "pack", consolidateLockName)
			if tc.lockAge >= 0 {
				if err := os.WriteFile(lock, []byte("12345\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				old := time.Now().Add(-tc.lockAge)
				if err := os.Chtimes(lock, old, old); err != nil {
					t.Fatal(err)
				}
			}
			var objs []testObject
			for i := range AutoPackLimit + 1 {
				o, err := writeMixedBatch(ctx, v, "lock", i, false)
				if err != nil {
					t.Fatalf("batch %d: %v", i, err)
				}
				objs = append(objs, o...)
			}
			if n := len(packNames(t, v)); n != tc.wantPacks {
				t.Fatalf("%d packs, want %d", n, tc.wantPacks)
			}
			_, err := os.Stat(lock)
			if got := err == nil; got != tc.wantLock {
				t.Fatalf("lock present: %v, want %v", got, tc.wantLock)
			}
			if tc.wantLock {
				if b, _ := os.ReadFile(lock); string(b) != "12345\n" {
					t.Fatalf("someone else's lock was replaced: %q", b)
				}
			}
			checkVault(t, v, objs)
		})
	}
}

// TestConsolidationOutputNamedLikeInput: merging {x} and {x, y} gives a
// pack byte for byte like {x, y}, so it has the same name; that pack must
// not be deleted as merged.
func TestConsolidationOutputNamedLikeInput(t *testing.T) {
	ctx := context.Background()
	v1 := newDiskVault(t)
	v2, err := Open(v1.Path())
	if err != nil {
		t.Fatal(err)
	}
	w2, err := v2.NewObjectWriter(ctx) // sees no pack: writes x again
	if err != nil {
		t.Fatal(err)
	}
	var x, y engine.Hash
	writeBatch(t, v1, func(w engine.ObjectWriter) { x = mustBlob(t, w, "x") })
	x2 := mustBlob(t, w2, "x")
	y = mustBlob(t, w2, "y")
	if err := w2.Finish(); err != nil {
		t.Fatal(err)
	}
	if x2 != x {
		t.Fatal("ids differ")
	}
	names := packNames(t, v1)
	if len(names) != 2 {
		t.Fatalf("packs: %v", names)
	}
	var bigger string
	for _, n := range names {
		if packObjectCount(t, v1, n) == 2 {
			bigger = n
		}
	}
	if err := v1.refreshPacks(); err != nil {
		t.Fatal(err)
	}
	v1.packLimit = 1
	n, _, err := v1.consolidate(nil)
	if err != nil || n != 2 {
		t.Fatalf("consolidate: %d, %v", n, err)
	}
	if got := packNames(t, v1); len(got) != 1 || got[0] != bigger {
		t.Fatalf("packs after: %v, want [%s]", got, bigger)
	}
	checkVault(t, v1, []testObject{{id: x, typ: typeBlob, content: []byte("x")}, {id: y, typ: typeBlob, content: []byte("y")}})
	checkVault(t, v2, []testObject{{id: x, typ: typeBlob}, {id: y, typ: typeBlob}})
}

// TestWriterSkipsObjectOfMergedPack: a writer that loaded the pack list
// skips blobs an old pack holds; that pack is then merged away; the
// writer's commit still reaches every blob (git fsck checks connectivity
// from the ref).
func TestWriterSkipsObjectOfMergedPack(t *testing.T) {
	ctx := context.Background()
	v1 := newDiskVault(t)
	contents := []string{"one", "two", "three"}
	var blobs []engine.Hash
	for _, c := range contents {
		writeBatch(t, v1, func(w engine.ObjectWriter) { blobs = append(blobs, mustBlob(t, w, c)) })
	}
	old := packNames(t, v1)
	v2, err := Open(v1.Path())
	if err != nil {
		t.Fatal(err)
	}
	w2, err := v2.NewObjectWriter(ctx) // loads the three packs
	if err != nil {
		t.Fatal(err)
	}
	// v1 merges them away.
	v1.packLimit = 2
	mustEmptyTree(t, v1)
	for _, p := range old {
		if _, err := os.Stat(filepath.Join(v1.Path(), "objects", "pack", p+".pack")); err == nil {
			t.Fatalf("pack %s was not merged", p)
		}
	}
	var entries []engine.TreeEntry
	for i, c := range contents {
		if id := mustBlob(t, w2, c); id != blobs[i] {
			t.Fatal("id changed")
		}
		entries = append(entries, engine.TreeEntry{Name: c, Mode: engine.ModeFile, ID: blobs[i]})
	}
	tree, err := w2.WriteTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	c, err := w2.WriteCommit(&engine.Commit{Tree: tree, Author: testSig, Committer: testSig, Message: "on merged blobs\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Finish(); err != nil {
		t.Fatal(err)
	}
	// w2's pack holds the tree and the commit only.
	for _, n := range packNames(t, v2) {
		if _, ok := mustLoad(t, v2, n).find(c); ok {
			if got := packObjectCount(t, v2, n); got != 2 {
				t.Fatalf("the writer's pack holds %d objects, want 2 (blobs skipped)", got)
			}
		}
	}
	if err := v2.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_m", New: c}); err != nil {
		t.Fatal(err)
	}
	objs := []testObject{{id: c, typ: typeCommit}, {id: tree, typ: typeTree}}
	for i, b := range blobs {
		objs = append(objs, testObject{id: b, typ: typeBlob, content: []byte(contents[i])})
	}
	checkVault(t, v2, objs) // v2 still holds the old pack list
	checkVault(t, v1, objs)
}

func mustLoad(t *testing.T, v *Vault, name string) *rawIndex {
	t.Helper()
	idx, err := loadPackIndex(filepath.Join(v.Path(), "objects", "pack", name+".idx"), name)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// TestConsolidationMergesGitPacks: a small pack git wrote with deltas is
// merged, its deltas kept (re-pointed at their bases' new places); one git
// keeps a bitmap for is left alone. Either way every object stays
// readable and git fsck --strict passes.
func TestConsolidationMergesGitPacks(t *testing.T) {
	ctx := context.Background()
	for _, bitmaps := range []bool{false, true} {
		t.Run(fmt.Sprintf("bitmaps=%v", bitmaps), func(t *testing.T) {
			v := newDiskVault(t)
			base := strings.Repeat("line of text that repeats with a counter\n", 500)
			var objs []testObject
			for i := range 3 {
				c := base + fmt.Sprintf("version %d\n", i)
				id := git(t, v.Path(), c, "hash-object", "-w", "--stdin")
				objs = append(objs, testObject{id: mustParse(t, id), typ: typeBlob, content: []byte(c)})
				git(t, v.Path(), "", "tag", fmt.Sprintf("v%d", i), id)
			}
			git(t, v.Path(), "", "-c", fmt.Sprintf("repack.writeBitmaps=%v", bitmaps), "repack", "-a", "-d", "-f", "-q", "--window=10", "--depth=10")
			git(t, v.Path(), "", "prune-packed")
			gitPack := packNames(t, v)
			if len(gitPack) != 1 {
				t.Fatalf("packs after git repack: %v", gitPack)
			}
			if out := git(t, v.Path(), "", "verify-pack", "-v", packFiles(t, v, "pack-*.idx")[0]); !strings.Contains(out, "chain length") {
				t.Fatalf("repack made no deltas:\n%s", out)
			}
			if got := len(packFiles(t, v, gitPack[0]+".bitmap")) == 1; got != bitmaps {
				t.Fatalf("bitmap written: %v", got)
			}
			v.packLimit = 3
			for i := range 6 {
				o, err := writeMixedBatch(ctx, v, "git", i, false)
				if err != nil {
					t.Fatal(err)
				}
				objs = append(objs, o...)
			}
			names := packNames(t, v)
			if slices.Contains(names, gitPack[0]) != bitmaps || len(names) > 3 {
				t.Fatalf("packs: %v; git's pack %s must stay only with a bitmap, the others be merged", names, gitPack[0])
			}
			checkVault(t, v, objs) // runs git fsck --strict too
			if !bitmaps {
				// git's deltas survived the merge.
				var verify string
				for _, idx := range packFiles(t, v, "pack-*.idx") {
					verify += git(t, v.Path(), "", "verify-pack", "-v", idx)
				}
				if !strings.Contains(verify, "chain length") {
					t.Fatalf("the merged packs hold no deltas:\n%s", verify)
				}
			}
		})
	}
}

// TestConsolidationConcurrentReaders reads objects in a loop (goroutines
// on the writing vault, goroutines on a vault that loaded the old pack
// list, and a second process) while goroutines and a second process write
// batches and consolidations merge and delete packs under them. No read
// may fail. Run with -race.
func TestConsolidationConcurrentReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := newDiskVault(t)
	v.packLimit = 4
	var base []testObject
	for i := range 4 {
		o, err := writeMixedBatch(ctx, v, "base", i, i == 2)
		if err != nil {
			t.Fatal(err)
		}
		base = append(base, o...)
	}
	// A vault that loaded today's indexes, which the writers merge away.
	vOld, err := Open(v.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range base {
		if err := readObject(ctx, vOld, o); err != nil {
			t.Fatal(err)
		}
	}
	// Another writing vault in this process, and a second process.
	vOther, err := Open(v.Path())
	if err != nil {
		t.Fatal(err)
	}
	vOther.packLimit = 4
	idsFile := filepath.Join(t.TempDir(), "ids")
	var ids strings.Builder
	for _, o := range base {
		fmt.Fprintln(&ids, o)
	}
	if err := os.WriteFile(idsFile, []byte(ids.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	reader := helperCmd(t, "readloop", "TV_HELPER_VAULT="+v.Path(), "TV_HELPER_IDS="+idsFile)
	readerIn, err := reader.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	readerOut := startLineHelper(t, reader)

	var mu sync.Mutex
	written := slices.Clone(base)
	snapshot := func() []testObject {
		mu.Lock()
		defer mu.Unlock()
		return written
	}
	add := func(o []testObject) {
		mu.Lock()
		written = append(written, o...)
		mu.Unlock()
	}
	writerProc := helperCmd(t, "batchloop", "TV_HELPER_VAULT="+v.Path(), "TV_HELPER_PACKLIMIT=4", "TV_HELPER_BATCHES=25", "TV_HELPER_TAG=proc")
	writerOut := startLineHelper(t, writerProc)

	errc := make(chan error, 64)
	stop := make(chan struct{})
	var reads atomic.Int64
	var readers sync.WaitGroup
	for r := range 4 {
		rv := v
		if r%2 == 1 {
			rv = vOld
		}
		readers.Go(func() {
			rng := mrand.New(mrand.NewPCG(uint64(r), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				objs := snapshot()
				o := objs[rng.IntN(len(objs))]
				if err := readObject(ctx, rv, o); err != nil {
					errc <- fmt.Errorf("reader %d: %s: %w", r, o, err)
					return
				}
				reads.Add(1)
			}
		})
	}
	var writers sync.WaitGroup
	for wr, wv := range []*Vault{v, v, vOther} {
		writers.Go(func() {
			for i := range 25 {
				o, err := writeMixedBatch(ctx, wv, fmt.Sprintf("writer%d", wr), i, false)
				if err != nil {
					errc <- fmt.Errorf("writer %d: %w", wr, err)
					return
				}
				add(o)
			}
		})
	}
	writers.Go(func() {
		for line := range writerOut {
			var o []testObject
			for _, f := range strings.Fields(line) {
				obj, err := parseTestObject(f)
				if err != nil {
					errc <- err
					return
				}
				o = append(o, obj)
			}
			add(o)
		}
	})
	writers.Wait()
	if err := writerProc.Wait(); err != nil {
		t.Fatalf("writer process: %v\n%s", err, writerProc.Stderr)
	}
	close(stop)
	readers.Wait()
	readerIn.Close()
	var last string
	for line := range readerOut {
		last = line
	}
	if err := reader.Wait(); err != nil {
		t.Fatalf("reader process: %v\n%s", err, reader.Stderr)
	}
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	all := snapshot()
	t.Logf("%d objects, %d reads in this process, reader process: %s, %d packs left", len(all), reads.Load(), last, len(packNames(t, v)))
	if !strings.HasPrefix(last, "reads ") || last == "reads 0" {
		t.Fatalf("reader process reported %q", last)
	}
	checkVault(t, v, all)
	checkVault(t, vOld, all)
}

// startLineHelper starts cmd, waits for its "ready" line and returns the
// lines it prints after it (closed at its end).
func startLineHelper(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() || sc.Text() != "ready" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper did not start: %q\n%s", sc.Text(), stderr.String())
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// syncBuffer is a bytes.Buffer safe for a process's writes and a test's
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCrashDuringConsolidation kills a process that writes batches with a
// pack limit of 2, so that most batches end in a consolidation, many
// times. Every object it reported written stays readable (by a vault that
// loaded the old pack list, by a fresh one, by git) and git fsck stays
// clean. A lock a killed process left is aged past ConsolidateLockStale,
// and the next process must remove it and consolidate again.
func TestCrashDuringConsolidation(t *testing.T) {
	const rounds = 20
	ctx := context.Background()
	v := newDiskVault(t)
	lock := filepath.Join(v.Path(), "objects", "pack", consolidateLockName)
	rng := mrand.New(mrand.NewPCG(5, 6))
	var objs []testObject
	leftLocks := 0
	for round := range rounds {
		cmd := helperCmd(t, "batchloop", "TV_HELPER_VAULT="+v.Path(), "TV_HELPER_PACKLIMIT=2",
			"TV_HELPER_MAXBYTES=131072", "TV_HELPER_TAG=round"+strconv.Itoa(round))
		lines := startLineHelper(t, cmd)
		var first []string
		if round == rounds-1 && len(objs) == 0 {
			// On a loaded machine no batch may finish within a round's
			// random delay: the last round then waits for one, so the
			// read-back below always judges some reported objects.
			select {
			case l, ok := <-lines:
				if ok {
					first = append(first, l)
				}
			case <-time.After(time.Minute):
			}
		} else {
			time.Sleep(time.Duration(5_000+rng.IntN(80_000)) * time.Microsecond)
		}
		killHelper(t, cmd)
		for line := range lines {
			first = append(first, line)
		}
		for _, line := range first {
			for _, f := range strings.Fields(line) {
				o, err := parseTestObject(f)
				if err != nil {
					t.Fatal(err)
				}
				objs = append(objs, o)
			}
		}
		for _, o := range objs {
			if err := readObject(ctx, v, o); err != nil {
				t.Fatalf("round %d: %s: %v", round, o, err)
			}
		}
		if _, err := os.Stat(lock); err == nil {
			leftLocks++
			old := time.Now().Add(-ConsolidateLockStale - time.Minute)
			if err := os.Chtimes(lock, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d rounds, %d objects reported, %d locks and %d temporary files left by killed processes, %d packs",
		rounds, len(objs), leftLocks, len(packFiles(t, v, "tmp_*")), len(packNames(t, v)))
	if len(objs) == 0 {
		t.Fatal("the helper never finished a batch before it was killed")
	}
	checkVault(t, v, objs)
	// The vault still consolidates: a stale lock goes, the packs merge.
	// A batch over the limit merges at least enough of the smallest packs
	// to bring the count back to it (mergeable;
	// TestConsolidationReachesLimit), unless the packs it may merge are
	// too few: at least three batches, and at most as many as there were
	// packs.
	os.Remove(lock)
	v.packLimit = 2
	before := len(packNames(t, v))
	var more []testObject
	for i := 0; i < max(3, before+1); i++ {
		o, err := writeMixedBatch(ctx, v, "after", i, false)
		if err != nil {
			t.Fatal(err)
		}
		more = append(more, o...)
		if i >= 2 && len(packNames(t, v)) <= v.packLimit {
			break
		}
	}
	if n := len(packNames(t, v)); n > v.packLimit {
		t.Fatalf("%d packs after the crashes (%d) and %d more batches: consolidation never brought them to the limit of %d", n, before, max(3, before+1), v.packLimit)
	}
	checkVault(t, v, append(objs, more...))
}

// helperBatchLoop writes mixed batches (TV_HELPER_BATCHES of them, or
// until killed) with the pack limit TV_HELPER_PACKLIMIT and prints each
// finished batch's objects on a line.
func helperBatchLoop(ctx context.Context, path string) int {
	v, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if n, _ := strconv.Atoi(os.Getenv("TV_HELPER_PACKLIMIT")); n > 0 {
		v.packLimit = n
	}
	if n, _ := strconv.ParseInt(os.Getenv("TV_HELPER_MAXBYTES"), 10, 64); n > 0 {
		v.packMaxBytes = n
	}
	batches, _ := strconv.Atoi(os.Getenv("TV_HELPER_BATCHES"))
	tag := os.Getenv("TV_HELPER_TAG")
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(time.Now().UnixNano()))
	tag += fmt.Sprintf("-%x", seed)
	fmt.Println("ready")
	for i := 0; batches == 0 || i < batches; i++ {
		objs, err := writeMixedBatch(ctx, v, tag, i, false)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		var line strings.Builder
		for _, o := range objs {
			line.WriteString(o.String())
			line.WriteByte(' ')
		}
		fmt.Println(line.String())
	}
	return 0
}

// helperReadLoop reads the objects listed in TV_HELPER_IDS through one
// vault, over and over until its stdin closes, then prints how many
// rounds it read. Any failed read ends it with status 1.
func helperReadLoop(ctx context.Context, path string) int {
	v, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	data, err := os.ReadFile(os.Getenv("TV_HELPER_IDS"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var objs []testObject
	for _, f := range strings.Fields(string(data)) {
		o, err := parseTestObject(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		objs = append(objs, o)
	}
	for _, o := range objs { // loads today's indexes
		if err := readObject(ctx, v, o); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	var stop atomic.Bool
	go func() {
		io.Copy(io.Discard, os.Stdin)
		stop.Store(true)
	}()
	fmt.Println("ready")
	rounds := 0
	for !stop.Load() {
		for _, o := range objs {
			if err := readObject(ctx, v, o); err != nil {
				fmt.Fprintf(os.Stderr, "round %d: %s: %v\n", rounds, o, err)
				return 1
			}
		}
		rounds++
	}
	fmt.Printf("reads %d\n", rounds)
	return 0
}

// BenchmarkOpenReadCommit opens a vault and reads its newest commit, with
// 200 small packs (one per commit, consolidation off) and after they were
// consolidated into one.
func BenchmarkOpenReadCommit(b *testing.B) {
	ctx := context.Background()
	const commits = 200
	build := func(consolidated bool) (string, engine.Hash) {
		v := benchVault(b)
		v.packLimit = 1 << 30 // off while writing
		var head engine.Hash
		for i := range commits {
			objs, err := writeMixedBatch(ctx, v, "bench", i, false)
			if err != nil {
				b.Fatal(err)
			}
			head = objs[len(objs)-1].id
		}
		if consolidated {
			v.packLimit = AutoPackLimit
			if n, _, err := v.consolidate(nil); err != nil || n != commits {
				b.Fatalf("consolidate: %d, %v", n, err)
			}
		}
		return v.Path(), head
	}
	for _, tc := range []struct {
		name         string
		consolidated bool
	}{{"200packs", false}, {"consolidated", true}} {
		b.Run(tc.name, func(b *testing.B) {
			path, head := build(tc.consolidated)
			entries, _ := filepath.Glob(filepath.Join(path, "objects", "pack", "pack-*.idx"))
			b.ResetTimer()
			for b.Loop() {
				v, _, err := OpenOrCreate(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := v.ReadCommit(ctx, head); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(entries)), "packs")
		})
	}
}

// BenchmarkBatchTriggeringConsolidation: the batch that lands the pack
// over AutoPackLimit, which then merges AutoPackLimit+1 small packs,
// against a batch below the limit.
func BenchmarkBatchTriggeringConsolidation(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		before int // packs already there
	}{{"below-limit", AutoPackLimit - 1}, {"consolidates", AutoPackLimit}} {
		b.Run(tc.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				b.StopTimer()
				v := benchVault(b)
				for range tc.before {
					if _, err := writeMixedBatch(ctx, v, "pre", i, false); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.StartTimer()
				if _, err := writeMixedBatch(ctx, v, "last", i, false); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// TestGeometricSplit: consolidation merges the smallest packs so that the
// merged one and the rest form a progression of factor 2, as
// git repack --geometric=2 does; large packs stay.
func TestGeometricSplit(t *testing.T) {
	tests := []struct {
		sizes []int64 // sorted
		want  int
	}{
		{nil, 0},
		{[]int64{5}, 0},
		{[]int64{1, 2, 4, 8}, 0},               // a progression already
		{[]int64{1, 1}, 2},                     // equal: merged
		{[]int64{1, 1, 1, 100}, 3},             // the big one stays
		{[]int64{1, 1, 1, 5, 100}, 4},          // 5 < 2×3: joins
		{[]int64{1, 1, 2, 8, 16, 1000}, 3},     // 8 ≥ 2×4: stays
		{[]int64{10, 11, 12, 13, 14, 15}, 6},   // all alike
		{[]int64{3, 3, 3, 3, 12, 100, 300}, 5}, // 12 < 2×12 joins; 100 ≥ 48 stays
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.sizes), func(t *testing.T) {
			packs := make([]packOnDisk, len(tt.sizes))
			for i, s := range tt.sizes {
				packs[i] = packOnDisk{name: fmt.Sprint(i), size: s}
			}
			if got := geometricSplit(packs); got != tt.want {
				t.Errorf("split = %d, want %d", got, tt.want)
			}
		})
	}
}

// trashFiles lists the files in v's trash.
func trashFiles(t *testing.T, v *Vault) []string {
	t.Helper()
	entries, err := os.ReadDir(v.trashDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestRetiredPacksLeaveThroughTrash: a consolidation moves the packs it
// merged into the trash (not objects/pack, where git and tv look), the
// batches after it delete at most TrashFilesPerBatch of them each until
// it is empty, and every step's crash state is a readable vault: the
// merged packs still in place (duplicates), an index retired before its
// pack (a pack without index, which no reader loads), files left in the
// trash. Objects stay readable by a fresh vault and by git throughout.
func TestRetiredPacksLeaveThroughTrash(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	v.packLimit = 4
	var objs []testObject
	batch := func(tag string, i int) {
		t.Helper()
		o, err := writeMixedBatch(ctx, v, tag, i, false)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o...)
	}
	for i := range 4 {
		batch("before", i)
	}
	before := packNames(t, v)
	batch("merging", 0) // the fifth pack: a consolidation
	trash := trashFiles(t, v)
	if len(trash) != 2*len(before) {
		t.Fatalf("trash holds %v, want the %d merged packs' files", trash, len(before))
	}
	for _, name := range before {
		if slices.Contains(packNames(t, v), name) {
			t.Fatalf("merged pack %s still in objects/pack", name)
		}
		for _, ext := range []string{".idx", ".pack"} {
			if !slices.Contains(trash, name+ext) {
				t.Fatalf("trash %v lacks %s", trash, name+ext)
			}
		}
	}
	checkVault(t, v, objs)

	// A crash between the two renames: the index went, the pack stayed.
	half := before[0]
	if err := os.Rename(filepath.Join(v.trashDir(), half+".pack"), filepath.Join(v.packDir(), half+".pack")); err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(v.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := readObject(ctx, fresh, o); err != nil {
			t.Fatalf("pack without index: %s: %v", o, err)
		}
	}
	fsckClean(t, v.Path())
	os.Remove(filepath.Join(v.packDir(), half+".pack"))

	// A crash before the renames: the merged packs are back in place
	// beside the merged one (duplicates).
	for _, name := range before[1:] {
		for _, ext := range []string{".pack", ".idx"} {
			if err := os.Rename(filepath.Join(v.trashDir(), name+ext), filepath.Join(v.packDir(), name+ext)); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkVault(t, v, objs)

	// The batches that follow empty the trash a few files at a time.
	left := len(trashFiles(t, v))
	for i := 0; left > 0; i++ {
		if i > 50 {
			t.Fatalf("trash still holds %v after %d batches", trashFiles(t, v), i)
		}
		batch("after", i)
		now := len(trashFiles(t, v))
		if now < left-TrashFilesPerBatch {
			t.Fatalf("one batch deleted %d trash files, at most %d", left-now, TrashFilesPerBatch)
		}
		left = now
	}
	checkVault(t, v, objs)
}

// TestConsolidationReachesLimit: a vault two packs over its limit whose
// packs already form a geometric progression (what crashes or concurrent
// writers leave) comes back to the limit with the next batch. Merging only
// the two smallest, as consolidation once did, added the batch's pack and
// took one away, and the vault stayed over its limit for good.
func TestConsolidationReachesLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int // objects per pack written before the limit drops
		limit int
	}{
		// A mixed batch is 5 objects: each pack here is over twice the
		// one below it, so the batch's pack joins the progression too.
		{"progression-one-over", []int{11, 23, 47}, 2},
		{"progression-two-over", []int{11, 23, 47, 95}, 2},
		{"progression-at-limit", []int{11, 23, 47}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newDiskVault(t)
			v.packLimit = 100
			var objs []testObject
			for p, n := range tc.sizes {
				writeBatch(t, v, func(w engine.ObjectWriter) {
					for k := range n {
						c := fmt.Sprintf("pack %d blob %d\n", p, k)
						objs = append(objs, testObject{id: mustBlob(t, w, c), typ: typeBlob, content: []byte(c)})
					}
				})
			}
			if got := len(packNames(t, v)); got != len(tc.sizes) {
				t.Fatalf("%d packs written, want %d", got, len(tc.sizes))
			}
			v.packLimit = tc.limit
			more, err := writeMixedBatch(context.Background(), v, "after", 0, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(packNames(t, v)); got > tc.limit {
				t.Errorf("%d packs after one batch, want at most the limit %d", got, tc.limit)
			}
			checkVault(t, v, append(objs, more...))
		})
	}
}
