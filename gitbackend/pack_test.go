package gitbackend

import (
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
)

// TestTenThousandBlobsOnePack: one batch of 10,000 small blobs, their tree
// and a commit becomes exactly one pack that git verifies and reads.
func TestTenThousandBlobsOnePack(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	const n = 10000
	var entries []engine.TreeEntry
	var commit engine.Hash
	writeBatch(t, v, func(w engine.ObjectWriter) {
		for i := range n {
			content := fmt.Sprintf("file %d\n%s", i, strings.Repeat("x", i%200))
			id := mustBlob(t, w, content)
			entries = append(entries, engine.TreeEntry{Name: "f" + strconv.Itoa(i) + ".txt", Mode: engine.ModeFile, ID: id})
		}
		tree, err := w.WriteTree(entries)
		if err != nil {
			t.Fatal(err)
		}
		commit, err = w.WriteCommit(&engine.Commit{Tree: tree, Author: testSig, Committer: testSig, Message: "10k files\n"})
		if err != nil {
			t.Fatal(err)
		}
	})
	packs := packFiles(t, v, "pack-*.pack")
	if len(packs) != 1 || len(packFiles(t, v, "*")) != 2 {
		t.Fatalf("want exactly one pack and its index, got %v", packFiles(t, v, "*"))
	}
	if loose := packFilesLoose(t, v); loose != 0 {
		t.Fatalf("%d loose objects written", loose)
	}
	mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_10k", New: commit})
	out := git(t, v.Path(), "", "verify-pack", "-v", strings.TrimSuffix(packs[0], ".pack")+".idx")
	if !strings.Contains(out, fmt.Sprintf("non delta: %d objects", n+2)) || !strings.HasSuffix(out, ": ok") {
		t.Fatalf("git verify-pack -v:\n%s", out[max(0, len(out)-500):])
	}
	fsckClean(t, v.Path())
	if got := git(t, v.Path(), "", "cat-file", "-p", entries[1234].ID.String()); got != "file 1234\n"+strings.Repeat("x", 1234%200) {
		t.Fatalf("git cat-file -p = %q", got)
	}
	if got := git(t, v.Path(), "", "rev-list", "--count", "--objects", "refs/tv/workspaces/ws_10k"); got != strconv.Itoa(n+2) {
		t.Fatalf("git rev-list --objects counts %s objects", got)
	}
	// And tv reads them back through the new pack.
	rc, _, err := v.OpenBlob(ctx, entries[9999].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAllClose(t, rc); string(got) != "file 9999\n"+strings.Repeat("x", 9999%200) {
		t.Fatalf("OpenBlob = %q", got)
	}
}

func packFilesLoose(t *testing.T, v *Vault) int {
	t.Helper()
	out := git(t, v.Path(), "", "count-objects")
	n, _ := strconv.Atoi(strings.Fields(out)[0])
	return n
}

// genReader yields size pseudo-random bytes without holding them. The
// bytes do not depend on how the caller sizes its reads.
type genReader struct {
	rng  *rand.ChaCha8
	left int64
	buf  [8 << 10]byte
	pend []byte
}

func newGenReader(seed byte, size int64) *genReader {
	return &genReader{rng: rand.NewChaCha8([32]byte{seed}), left: size}
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.left == 0 {
		return 0, io.EOF
	}
	if len(g.pend) == 0 {
		// Half random, half runs: realistic-ish compressibility.
		g.rng.Read(g.buf[:len(g.buf)/2])
		for i := len(g.buf) / 2; i < len(g.buf); i++ {
			g.buf[i] = byte(i / 64)
		}
		g.pend = g.buf[:]
	}
	n := copy(p[:min(int64(len(p)), g.left)], g.pend)
	g.pend = g.pend[n:]
	g.left -= int64(n)
	return n, nil
}

// heapWatch samples HeapAlloc while a stream is read or written.
type heapWatch struct {
	r    io.Reader
	base uint64
	peak uint64
	n    int
}

func (h *heapWatch) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if h.n++; h.n%16 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > h.base && ms.HeapAlloc-h.base > h.peak {
			h.peak = ms.HeapAlloc - h.base
		}
	}
	return n, err
}

func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestStreamBigBlob writes and reads back a 64 MiB blob; the heap stays far
// below the blob's size both ways.
func TestStreamBigBlob(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB")
	}
	ctx := context.Background()
	v := newDiskVault(t)
	const size = 64 << 20
	const bound = 16 << 20 // far below size
	want := sha1.New()
	io.Copy(want, newGenReader(1, size))

	w, err := v.NewObjectWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hw := &heapWatch{r: newGenReader(1, size), base: heapNow()}
	id, err := w.WriteBlob(hw, size)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if hw.peak > bound {
		t.Fatalf("writing a %d MiB blob grew the heap by %d MiB", size>>20, hw.peak>>20)
	}
	t.Logf("write: heap peak +%d KiB", hw.peak>>10)

	if got := git(t, v.Path(), "", "cat-file", "-s", id.String()); got != strconv.Itoa(size) {
		t.Fatalf("git cat-file -s = %s", got)
	}
	base := heapNow()
	rc, n, err := v.OpenBlob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if n != size {
		t.Fatalf("size %d", n)
	}
	hr := &heapWatch{r: rc, base: base}
	got := sha1.New()
	if _, err := io.CopyBuffer(got, hr, make([]byte, 32<<10)); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if string(got.Sum(nil)) != string(want.Sum(nil)) {
		t.Fatal("blob read back differs")
	}
	if hr.peak > bound {
		t.Fatalf("reading a %d MiB blob grew the heap by %d MiB", size>>20, hr.peak>>20)
	}
	t.Logf("read: heap peak +%d KiB", hr.peak>>10)
	fsckClean(t, v.Path())
}
