package gitbackend

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/thalix/tv/engine"
)

// TestReadDeltaPack reads blobs that `git repack -f` stored as deltas of
// each other, which the direct pack reader resolves.
func TestReadDeltaPack(t *testing.T) {
	v := newDiskVault(t)
	base := strings.Repeat("line of text that repeats with a counter\n", 2000)
	var contents []string
	for i := range 4 {
		contents = append(contents, base+fmt.Sprintf("version %d\n", i))
	}
	ids, out := repackedBlobs(t, v, contents)
	if !strings.Contains(out, "chain length") {
		t.Fatalf("repack made no deltas:\n%s", out)
	}
	readBlobsBack(t, v, ids, contents)
}

// repackedBlobs stores contents as blobs of one commit on refs/heads/main
// of v, lets `git repack -a -d -f` pack them with deltas where it finds
// any, and returns their ids and `git verify-pack -v` of the pack.
func repackedBlobs(t *testing.T, v *Vault, contents []string) (ids []string, verifyPack string) {
	t.Helper()
	var mk strings.Builder
	for i, c := range contents {
		id := git(t, v.Path(), c, "hash-object", "-w", "--stdin")
		ids = append(ids, id)
		fmt.Fprintf(&mk, "100644 blob %s\tf%d\n", id, i)
	}
	tree := git(t, v.Path(), mk.String(), "mktree")
	commit := git(t, v.Path(), "", "commit-tree", tree, "-m", "deltas")
	git(t, v.Path(), "", "update-ref", "refs/heads/main", commit)
	git(t, v.Path(), "", "repack", "-a", "-d", "-f", "-q", "--window=10", "--depth=10")
	git(t, v.Path(), "", "prune-packed")
	return ids, git(t, v.Path(), "", "verify-pack", "-v", packFiles(t, v, "pack-*.idx")[0])
}

// readBlobsBack reads every blob of ids through tv and checks its size
// and content against contents.
func readBlobsBack(t *testing.T, v *Vault, ids, contents []string) {
	t.Helper()
	for i, id := range ids {
		rc, size, err := v.OpenBlob(context.Background(), mustParse(t, id))
		if err != nil {
			t.Fatalf("blob %d: %v", i, err)
		}
		got := readAllClose(t, rc)
		if size != int64(len(contents[i])) || string(got) != contents[i] {
			t.Fatalf("blob %d: %d bytes (size %d), want %d", i, len(got), size, len(contents[i]))
		}
	}
}

// TestReadLargeDeltaPack reads objects over StreamThreshold that `git
// repack -f` stored as deltas (go-git's reader resolved these before tv
// patched them itself): text that compresses well, and random bytes whose
// base entry is over inlineEntryBytes compressed, so it is inflated as it
// is read.
func TestReadLargeDeltaPack(t *testing.T) {
	v := newDiskVault(t)
	rng := rand.New(rand.NewPCG(7, 8))
	noise := make([]byte, StreamThreshold+StreamThreshold/2)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	text := strings.Repeat("a line of a large text file that git will store as a delta\n", (StreamThreshold*3/2)/60)
	var contents []string
	for i := range 3 {
		for _, base := range []string{text, string(noise)} {
			contents = append(contents, fmt.Sprintf("version %d\n", i)+base[:len(base)/2]+fmt.Sprintf("middle %d\n", i)+base[len(base)/2:])
		}
	}
	ids, out := repackedBlobs(t, v, contents)
	deltas, bigBase := 0, false
	for _, line := range strings.Split(out, "\n") {
		// id type size size-in-pack offset [depth base]: every blob here is
		// over StreamThreshold; a delta line has the depth and the base
		f := strings.Fields(line)
		if len(f) < 5 || f[1] != "blob" {
			continue
		}
		if len(f) == 7 {
			deltas++
		} else if packed, _ := strconv.Atoi(f[3]); packed > inlineEntryBytes {
			bigBase = true
		}
	}
	if deltas < 4 || !bigBase {
		t.Fatalf("repack stored %d large blobs as deltas (want 4), a base over inlineEntryBytes packed: %v\n%s", deltas, bigBase, out)
	}
	readBlobsBack(t, v, ids, contents)
}

// TestConcurrentPackReads reads every blob of one pack from many
// goroutines at once, small ones (read whole) and large incompressible
// ones (streamed), and checks each against its content. Run with -race.
func TestConcurrentPackReads(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	rng := rand.New(rand.NewPCG(3, 4))
	w, err := v.NewObjectWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[engine.Hash][]byte{}
	for i := range 200 {
		var b []byte
		switch {
		case i%50 == 0: // over inlineEntryBytes even compressed
			b = make([]byte, inlineEntryBytes+rng.IntN(1<<20))
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
		case i%7 == 0:
			b = nil // empty blob
		default:
			b = []byte(strings.Repeat(fmt.Sprintf("blob %d ", i), 1+rng.IntN(2000)))
		}
		id, err := w.WriteBlob(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		want[id] = b
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	ids := make([]engine.Hash, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range ids {
				id := ids[(k+g*13)%len(ids)]
				rc, size, err := v.OpenBlob(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				var got bytes.Buffer
				_, err = got.ReadFrom(rc)
				rc.Close()
				if err != nil || size != int64(len(want[id])) || !bytes.Equal(got.Bytes(), want[id]) {
					t.Errorf("blob %s: %d bytes, size %d, err %v; want %d bytes", id, got.Len(), size, err, len(want[id]))
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestPackIndexParse checks the index parser against the writer's index,
// including 64-bit offsets, and refuses damaged indexes.
func TestPackIndexParse(t *testing.T) {
	entries := []packEntry{
		{id: engine.Hash{0x10}, offset: 12, crc: 1},
		{id: engine.Hash{0xff, 1}, offset: 1<<31 + 5, crc: 2},
		{id: engine.Hash{0x00, 9}, offset: 5 << 32, crc: 3},
		{id: engine.Hash{0x10, 1}, offset: 1<<31 - 1, crc: 4},
	}
	var buf bytes.Buffer
	if err := encodeIndex(&buf, append([]packEntry(nil), entries...), [20]byte{7}); err != nil {
		t.Fatal(err)
	}
	buf.Write(make([]byte, 20)) // the index's own checksum
	x, err := parseIndex(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if off, ok := x.find(e.id); !ok || off != e.offset {
			t.Errorf("offset of %s = %d, %v; want %d", e.id, off, ok, e.offset)
		}
	}
	if _, ok := x.find(engine.Hash{0x10, 2}); ok {
		t.Error("found an absent id")
	}
	if got := x.entryEnd(1<<31-1, 6<<32); got != 1<<31+5 {
		t.Errorf("entry end %d", got)
	}
	if got := x.entryEnd(5<<32, 6<<32); got != 6<<32-20 {
		t.Errorf("last entry end %d", got)
	}
	if x.sum != [20]byte{7} {
		t.Error("pack checksum")
	}
	b := buf.Bytes()
	for name, bad := range map[string][]byte{
		"short":      b[:100],
		"magic":      append([]byte{0}, b[1:]...),
		"count":      b[:len(b)-8],
		"big offset": func() []byte { c := bytes.Clone(b); c[8+256*4+4*24] = 0xff; return c }(), // first 31-bit offset: a large-offset slot that is not there
	} {
		if _, err := parseIndex(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
