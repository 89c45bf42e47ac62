package gitbackend

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
)

// writeHistory writes n one-file commits, each appending a line to the
// same file of a three-level tree (like bench/history), one batch per
// commit, and points refs/heads/main at the last. It returns every
// version's blob content by id.
func writeHistory(t *testing.T, v *Vault, n int) map[engine.Hash]string {
	t.Helper()
	ctx := context.Background()
	blobs := map[engine.Hash]string{}
	content := strings.Repeat("a rule of the research stage, kept as written\n", 40)
	var parent engine.Hash
	for i := range n {
		content += fmt.Sprintf("note %d: %08d checked against the sources\n", i, i*7919%100000000)
		w, err := v.NewObjectWriter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		blob, err := w.WriteBlob(strings.NewReader(content), int64(len(content)))
		if err != nil {
			t.Fatal(err)
		}
		blobs[blob] = content
		other, err := w.WriteBlob(strings.NewReader("context\n"), 8)
		if err != nil {
			t.Fatal(err)
		}
		id, mode := blob, engine.ModeFile
		for _, name := range []string{"rules.md", "references", "01-research"} {
			if id, err = w.WriteTree([]engine.TreeEntry{
				{Name: name, Mode: mode, ID: id},
				{Name: "CONTEXT.md", Mode: engine.ModeFile, ID: other},
			}); err != nil {
				t.Fatal(err)
			}
			mode = engine.ModeDir
		}
		c := &engine.Commit{Tree: id, Author: testSig, Committer: testSig, Message: fmt.Sprintf("note %d\n", i)}
		if !parent.IsZero() {
			c.Parents = []engine.Hash{parent}
		}
		if parent, err = w.WriteCommit(c); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		if historyTimes != nil {
			*historyTimes = append(*historyTimes, time.Since(t0))
		}
	}
	git(t, v.Path(), "", "update-ref", "refs/heads/main", parent.String())
	return blobs
}

// historyTimes, when set, collects how long each batch's Finish took.
var historyTimes *[]time.Duration

var chainLine = regexp.MustCompile(`(?m)^chain length = (\d+): (\d+) objects?$`)

// verifyPacks runs `git verify-pack -v` on every pack of v (which fails
// on any bad entry) and returns how many objects are deltas and the
// longest chain.
func verifyPacks(t *testing.T, v *Vault) (deltas, longest int) {
	t.Helper()
	// One git for every pack: it fails if any pack does, and prints each
	// pack's chain histogram after its objects.
	out := git(t, v.Path(), "", append([]string{"verify-pack", "-v"}, packFiles(t, v, "pack-*.idx")...)...)
	for _, m := range chainLine.FindAllStringSubmatch(out, -1) {
		depth, _ := strconv.Atoi(m[1])
		count, _ := strconv.Atoi(m[2])
		deltas += count
		longest = max(longest, depth)
	}
	return deltas, longest
}

// TestConsolidationWritesDeltas: a history of one growing file, merged by
// consolidation, is stored as deltas: chains no deeper than DeltaDepth,
// every pack accepted by `git verify-pack` and `git fsck --strict`, every
// version read back right by tv and by git, and the vault within 1.5× the
// size of the same objects after `git repack -a -d -f` (bench/history
// measures the real ratio).
func TestConsolidationWritesDeltas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, limit := range []int{3, AutoPackLimit} {
		t.Run(fmt.Sprintf("packLimit=%d", limit), func(t *testing.T) {
			v := newDiskVault(t)
			v.packLimit = limit
			blobs := writeHistory(t, v, 120)
			deltas, longest := verifyPacks(t, v)
			if deltas < 100 || longest > DeltaDepth {
				t.Fatalf("%d deltas, longest chain %d; want most versions as deltas, chains ≤ %d", deltas, longest, DeltaDepth)
			}
			fsckClean(t, v.Path())
			// A fresh vault: nothing cached from writing.
			v2, err := Open(v.Path())
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for id, want := range blobs {
				rc, size, err := v2.OpenBlob(ctx, id)
				if err != nil {
					t.Fatalf("blob %s: %v", id, err)
				}
				if got := readAllClose(t, rc); size != int64(len(want)) || string(got) != want {
					t.Fatalf("blob %s: %d bytes, want %d", id, len(got), len(want))
				}
				if checked++; checked%10 != 0 {
					continue // git reads every object in fsck; compare some
				}
				if got := gitRaw(t, v.Path(), "cat-file", "blob", id.String()); got != want {
					t.Fatalf("git cat-file %s: %d bytes, want %d", id, len(got), len(want))
				}
			}
			ours := objectBytes(t, filepath.Join(v.Path(), "objects"))
			mirror := filepath.Join(t.TempDir(), "mirror.git")
			git(t, mirror, "", "clone", "-q", "--bare", "--no-local", v.Path(), mirror)
			git(t, mirror, "", "repack", "-a", "-d", "-f", "-q")
			theirs := objectBytes(t, filepath.Join(mirror, "objects"))
			if float64(ours) > 1.5*float64(theirs) {
				t.Fatalf("vault objects %d bytes, git repack -a -d -f %d: over 1.5×", ours, theirs)
			}
			t.Logf("vault objects %d bytes, git's %d (%.2f×), %d deltas, longest chain %d", ours, theirs, float64(ours)/float64(theirs), deltas, longest)
		})
	}
}

// objectBytes sums the sizes of the files under dir.
func objectBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFoldedBatchLeavesNoTemp: a batch that triggers consolidation goes
// into the merged pack: the pack count drops, no temporary file stays,
// and the batch's objects are readable at once and after reopening.
func TestFoldedBatchLeavesNoTemp(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	v.packLimit = 4
	var ids []engine.Hash
	for i := range 4 {
		writeBatch(t, v, func(w engine.ObjectWriter) { ids = append(ids, mustBlob(t, w, fmt.Sprintf("blob %d\n", i))) })
	}
	if n := len(packNames(t, v)); n != 4 {
		t.Fatalf("%d packs before the fifth batch, want 4", n)
	}
	writeBatch(t, v, func(w engine.ObjectWriter) { ids = append(ids, mustBlob(t, w, "the fifth\n")) })
	if n := len(packNames(t, v)); n >= 4 {
		t.Fatalf("%d packs after the fifth batch; want the batch folded into a merge", n)
	}
	if tmp := packFiles(t, v, "tmp_*"); len(tmp) != 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
	v2, err := Open(v.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, vv := range []*Vault{v, v2} {
		for _, id := range ids {
			rc, _, err := vv.OpenBlob(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			readAllClose(t, rc)
		}
	}
	fsckClean(t, v.Path())
}

// rawPackEntry is one entry of a hand-made pack.
type rawPackEntry struct {
	id    engine.Hash
	head  []byte // header (and base reference)
	data  []byte // inflated payload
	zdata []byte // the entry's zlib stream as it is; nil: data compressed
}

// writeRawPack installs a pack of entries (in order) with its index.
func writeRawPack(t *testing.T, v *Vault, entries []rawPackEntry) {
	t.Helper()
	var pack bytes.Buffer
	pack.Write([]byte{'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, byte(len(entries))})
	pack.Grow(12 + 20 + len(entries)*64)
	var idx []packEntry
	for _, e := range entries {
		off := int64(pack.Len())
		z := bytes.NewBuffer(e.zdata)
		if e.zdata == nil {
			zw := zlib.NewWriter(z)
			zw.Write(e.data)
			zw.Close()
		}
		entry := append(append([]byte{}, e.head...), z.Bytes()...)
		pack.Write(entry)
		idx = append(idx, packEntry{id: e.id, offset: off, crc: crc32.ChecksumIEEE(entry)})
	}
	sum := sha1.Sum(pack.Bytes())
	pack.Write(sum[:])
	var ib bytes.Buffer
	if err := encodeIndex(&ib, idx, sum); err != nil {
		t.Fatal(err)
	}
	isum := sha1.Sum(ib.Bytes())
	ib.Write(isum[:])
	name := filepath.Join(v.packDir(), "pack-"+engine.Hash(sum).String())
	if err := os.WriteFile(name+".pack", pack.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name+".idx", ib.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
}

// paddedZlib is a valid zlib stream of data whose deflate data starts
// with pad empty stored blocks (5 bytes each), then holds data in one
// final stored block.
func paddedZlib(data []byte, pad int) []byte {
	z := []byte{0x78, 0x01}
	for range pad {
		z = append(z, 0x00, 0x00, 0x00, 0xff, 0xff) // not final, stored, LEN 0
	}
	n := len(data) // < 64 KiB
	z = append(z, 0x01, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
	z = append(z, data...)
	return binary.BigEndian.AppendUint32(z, adler32.Checksum(data))
}

// TestMergePaddedStreamBoundsMemory: consolidation inflating an entry
// whose zlib stream is padded to megabytes (valid zlib, accepted by git)
// allocates about the object's size, not the padded span, and the merged
// vault still reads the object and passes git fsck.
func TestMergePaddedStreamBoundsMemory(t *testing.T) {
	const span = 8 << 20
	ctx := context.Background()
	v := newDiskVault(t)
	v.packLimit = 1
	data := []byte(strings.Repeat("a padded line of a note\n", 40))
	id := hashObject(typeBlob, data)
	writeRawPack(t, v, []rawPackEntry{{id: id, head: packEntryHeader(typeBlob, int64(len(data))), zdata: paddedZlib(data, span/5)}})
	if err := v.refreshPacks(); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var more []engine.Hash
	writeBatch(t, v, func(w engine.ObjectWriter) {
		more = append(more, mustBlob(t, w, string(data)+"and one more line\n"))
	})
	runtime.ReadMemStats(&after)
	if n := len(packNames(t, v)); n != 1 {
		t.Fatalf("%d packs after the batch, want the padded pack merged into one", n)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > span/2 {
		t.Fatalf("the merge allocated %d bytes for an entry of %d bytes padded to %d", got, len(data), span)
	}
	for _, h := range append(more, id) {
		rc, _, err := v.OpenBlob(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		readAllClose(t, rc)
	}
	fsckClean(t, v.Path())
}

// TestReadDeltaRefusals: the direct reader resolves REF_DELTA and
// OFS_DELTA entries, and refuses a chain that never ends (two REF_DELTAs
// naming each other) and a delta that does not fit its base, with an
// error instead of a hang or a wrong object.
func TestReadDeltaRefusals(t *testing.T) {
	ctx := context.Background()
	base := []byte(strings.Repeat("base line\n", 30))
	target := append(append([]byte{}, base...), "one more\n"...)
	baseID := hashObject(typeBlob, base)
	targetID := hashObject(typeBlob, target)
	delta := packfile.DiffDelta(base, target)
	ref := func(typ int, size int, to engine.Hash) []byte {
		return append(packEntryHeader(typ, int64(size)), to[:]...)
	}
	t.Run("ref and ofs deltas resolve", func(t *testing.T) {
		v := newDiskVault(t)
		baseEntry := packEntryHeader(typeBlob, int64(len(base)))
		other := append(append([]byte{}, target...), "and another\n"...)
		otherDelta := packfile.DiffDelta(base, other)
		// the base's entry is 12 bytes in; the ofs delta follows the ref delta
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(base)
		zw.Close()
		var zd bytes.Buffer
		zw = zlib.NewWriter(&zd)
		zw.Write(delta)
		zw.Close()
		refLen := int64(len(ref(typeRefDelta, len(delta), baseID)) + zd.Len())
		ofsAt := 12 + int64(len(baseEntry)+z.Len()) + refLen
		writeRawPack(t, v, []rawPackEntry{
			{id: baseID, head: baseEntry, data: base},
			{id: targetID, head: ref(typeRefDelta, len(delta), baseID), data: delta},
			{id: hashObject(typeBlob, other), head: appendOfsOffset(packEntryHeader(typeOfsDelta, int64(len(otherDelta))), ofsAt-12), data: otherDelta},
		})
		for id, want := range map[engine.Hash][]byte{targetID: target, hashObject(typeBlob, other): other} {
			rc, _, err := v.OpenBlob(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got := readAllClose(t, rc); !bytes.Equal(got, want) {
				t.Fatalf("%s: got %q", id, got)
			}
		}
		fsckClean(t, v.Path())
	})
	t.Run("cycle", func(t *testing.T) {
		v := newDiskVault(t)
		back := packfile.DiffDelta(target, base)
		writeRawPack(t, v, []rawPackEntry{
			{id: baseID, head: ref(typeRefDelta, len(back), targetID), data: back},
			{id: targetID, head: ref(typeRefDelta, len(delta), baseID), data: delta},
		})
		_, _, err := v.OpenBlob(ctx, targetID)
		if err == nil || !strings.Contains(err.Error(), "MaxDeltaChain") {
			t.Fatalf("err = %v, want the chain refused", err)
		}
	})
	t.Run("base over MaxPatchedBytes", func(t *testing.T) {
		v := newDiskVault(t)
		// The header's size is refused before anything is inflated.
		writeRawPack(t, v, []rawPackEntry{
			{id: baseID, head: packEntryHeader(typeBlob, MaxPatchedBytes+1), zdata: []byte{0x78, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}},
			{id: targetID, head: ref(typeRefDelta, len(delta), baseID), data: delta},
		})
		_, _, err := v.OpenBlob(ctx, targetID)
		if err == nil || !strings.Contains(err.Error(), "MaxPatchedBytes") {
			t.Fatalf("err = %v, want the base refused", err)
		}
	})
	t.Run("wrong base size", func(t *testing.T) {
		v := newDiskVault(t)
		short := base[:len(base)-1]
		writeRawPack(t, v, []rawPackEntry{
			{id: baseID, head: packEntryHeader(typeBlob, int64(len(short))), data: short},
			{id: targetID, head: ref(typeRefDelta, len(delta), baseID), data: delta},
		})
		_, _, err := v.OpenBlob(ctx, targetID)
		if err == nil || !strings.Contains(err.Error(), "expects a base") {
			t.Fatalf("err = %v, want the delta refused", err)
		}
	})
}

// FuzzApplyDelta: applying any bytes as a delta to any base never panics
// and never returns more than the limit or other than the header's size;
// a delta DiffDelta made gives the target back; and the patcher agrees
// with go-git's PatchDelta (which tv used before it had its own): what
// one applies the other applies to the same bytes, and what go-git
// refuses tv refuses.
func FuzzApplyDelta(f *testing.F) {
	base := []byte(strings.Repeat("some base text\n", 8))
	f.Add(base, packfile.DiffDelta(base, append(base, "more"...)), []byte("x"))
	f.Add([]byte("a"), []byte{1, 1, 1, 'b'}, []byte("ab"))
	f.Add([]byte("abc"), []byte{3, 0xff, 0xff, 0xff, 0x7f}, []byte(""))
	f.Add([]byte("abc"), []byte{3, 3, 0x91, 0, 3}, []byte("abc"))  // copy 3 bytes from 0
	f.Add([]byte("abc"), []byte{3, 3, 0x91, 1, 3}, []byte("abc"))  // copy past the base's end
	f.Add([]byte("abc"), []byte{3, 2, 0x90}, []byte("abc"))        // copy of 0x10000, truncated
	f.Add([]byte("abc"), []byte{3, 1, 0, 1, 'x'}, []byte("abc"))   // the reserved instruction 0
	f.Add([]byte("abc"), []byte{3, 1, 2, 'x', 'y'}, []byte("abc")) // inserts more than the result
	f.Add(bytes.Repeat([]byte("z"), 0x10000), []byte{0x80, 0x80, 4, 0x80, 0x80, 4, 0x80}, []byte("z"))
	f.Fuzz(func(t *testing.T, base, delta, target []byte) {
		const limit = 1 << 16
		out, err := applyDelta(base, delta, limit)
		if err == nil {
			_, size, herr := deltaSizes(delta)
			if herr != nil || int64(len(out)) != size || len(out) > limit {
				t.Fatalf("applied: %d bytes, header %d (%v)", len(out), size, herr)
			}
		}
		theirs, gerr := packfile.PatchDelta(base, delta)
		switch {
		case err == nil && (gerr != nil || !bytes.Equal(out, theirs)):
			t.Fatalf("tv applied %d bytes, go-git %d (%v)", len(out), len(theirs), gerr)
		case err != nil && gerr == nil && len(base) > 0 && len(theirs) <= limit:
			t.Fatalf("tv refused (%v), go-git applied %d bytes", err, len(theirs))
		}
		if len(base) == 0 || len(base) > limit || len(target) > limit {
			return
		}
		got, err := applyDelta(base, packfile.DiffDelta(base, target), limit)
		if err != nil || !bytes.Equal(got, target) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// FuzzParseEntryHead: any bytes parse to an error or a header that stays
// inside them, with an OFS_DELTA base before the entry.
func FuzzParseEntryHead(f *testing.F) {
	f.Add([]byte{0x95, 0x0a}, int64(100))
	f.Add(appendOfsOffset(packEntryHeader(typeOfsDelta, 300), 77), int64(200))
	f.Add(append(packEntryHeader(typeRefDelta, 5), make([]byte, 20)...), int64(12))
	f.Fuzz(func(t *testing.T, b []byte, off int64) {
		h, err := parseEntryHead(b, off)
		if err != nil {
			return
		}
		if h.dataOff > int64(len(b)) || h.size < 0 {
			t.Fatalf("header %+v outside %d bytes", h, len(b))
		}
		if h.typ == typeOfsDelta && (h.baseOff < 0 || h.baseOff >= off) {
			t.Fatalf("base offset %d for an entry at %d", h.baseOff, off)
		}
	})
}

// TestOfsOffsetRoundTrip: appendOfsOffset and parseEntryHead agree.
func TestOfsOffsetRoundTrip(t *testing.T) {
	for _, rel := range []int64{1, 127, 128, 129, 16383, 16384, 16511, 16512, 1 << 20, 1<<35 + 3} {
		b := appendOfsOffset(packEntryHeader(typeOfsDelta, 10), rel)
		h, err := parseEntryHead(b, rel+5)
		if err != nil || h.baseOff != 5 || h.dataOff != int64(len(b)) {
			t.Fatalf("rel %d: %+v, %v", rel, h, err)
		}
	}
}
