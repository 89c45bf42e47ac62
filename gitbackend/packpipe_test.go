package gitbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
)

// TestPipelinedPack writes small blobs (compressed by the workers), large
// ones (streamed), duplicates, trees and a commit interleaved, and checks
// that the pack holds each object once, in the order written, that git
// accepts it and that every object reads back.
func TestPipelinedPack(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	rng := rand.New(rand.NewPCG(5, 6))
	w, err := v.NewObjectWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[engine.Hash][]byte{}
	var order []engine.Hash // first writes, in order
	var entries []engine.TreeEntry
	for i := range 300 {
		var b []byte
		switch {
		case i%97 == 0: // streamed
			b = make([]byte, pipeObjectBytes+1+rng.IntN(1<<20))
			for j := range b {
				b[j] = byte(rng.Uint32() % 7)
			}
		case i%10 == 3: // a duplicate of an earlier blob
			b = want[order[rng.IntN(len(order))]]
		default:
			b = []byte(strings.Repeat(fmt.Sprintf("content %d\n", i), 1+rng.IntN(3000)))
		}
		id, err := w.WriteBlob(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := want[id]; !dup {
			want[id] = b
			order = append(order, id)
		}
		entries = append(entries, engine.TreeEntry{Name: fmt.Sprintf("f%03d", i), Mode: engine.ModeFile, ID: id})
	}
	tree, err := w.WriteTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	order = append(order, tree)
	sig := engine.Signature{Name: "a", Email: "a@example.com", When: time.Unix(1700000000, 0).UTC()}
	commit, err := w.WriteCommit(&engine.Commit{Tree: tree, Author: sig, Committer: sig, Message: "m\n"})
	if err != nil {
		t.Fatal(err)
	}
	order = append(order, commit)
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	packs := packFiles(t, v, "pack-*.idx")
	if len(packs) != 1 {
		t.Fatalf("%d packs", len(packs))
	}
	p, _, ok := v.findPacked(tree)
	if !ok {
		t.Fatal("tree not in the pack")
	}
	if n := int(p.idx.fanout[255]); n != len(order) {
		t.Fatalf("pack has %d objects, want %d", n, len(order))
	}
	last := int64(-1)
	for i, id := range order {
		off, ok := p.idx.find(id)
		if !ok || off <= last {
			t.Fatalf("object %d (%s) at %d after %d: not in write order", i, id, off, last)
		}
		last = off
	}
	mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_pipe", New: commit})
	fsckClean(t, v.Path())
	for id, b := range want {
		rc, size, err := v.OpenBlob(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAllClose(t, rc); size != int64(len(b)) || !bytes.Equal(got, b) {
			t.Fatalf("blob %s: %d bytes, want %d", id, len(got), len(b))
		}
	}
}

// TestPipelinedBlobSizeMismatch: a small blob whose reader gives fewer or
// more bytes than its size fails the batch, as a streamed one does.
func TestPipelinedBlobSizeMismatch(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		data string
		size int64
	}{"short": {"abc", 4}, "long": {"abcde", 4}} {
		t.Run(name, func(t *testing.T) {
			v := newDiskVault(t)
			w, err := v.NewObjectWriter(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if _, err := w.WriteBlob(strings.NewReader("fine"), 4); err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteBlob(strings.NewReader(tc.data), tc.size); !errors.Is(err, engine.ErrUsage) {
				t.Fatalf("mismatch: %v", err)
			}
			if err := w.Finish(); err == nil {
				t.Fatal("Finish after a failed write succeeded")
			}
			if n := len(packFiles(t, v, "*")); n != 0 {
				t.Fatalf("%d files left in objects/pack", n)
			}
		})
	}
}
