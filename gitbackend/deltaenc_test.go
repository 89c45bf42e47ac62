package gitbackend

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// TestDeltaEncoderRoundTrip: the encoder's deltas, applied by tv's
// reader and by go-git's PatchDelta, give the target back, for edits of
// every kind and sizes around the block length and the longest copy; on
// a file that grows by a line (bench/history's edit) the delta is no
// larger than go-git's DiffDelta's. One encoder serves every case, as a
// merge's does.
func TestDeltaEncoderRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	lines := func(from, to int) []byte {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "note %d: %08d checked against the sources\n", i, i*7919%100000000)
		}
		return []byte(b.String())
	}
	big := random(200 << 10)
	cases := []struct {
		name         string
		base, target []byte
		appendOnly   bool
	}{
		{"empty target", []byte("some base text of a few blocks, more than one"), nil, false},
		{"short both", []byte("abc"), []byte("abd"), false},
		{"target under a block", lines(0, 40), []byte("note 1"), false},
		{"appended line", lines(0, 900), lines(0, 901), true},
		{"appended lines", lines(0, 50), lines(0, 80), true},
		{"prepended", lines(10, 60), lines(0, 60), false},
		{"middle edit", lines(0, 60), append(append(lines(0, 30), "changed\n"...), lines(31, 60)...), false},
		{"unrelated", random(5000), random(5000), false},
		{"repeated bytes", bytes.Repeat([]byte("ab"), 3000), bytes.Repeat([]byte("ab"), 3100), false},
		{"copies over 64 KiB", big, append(append([]byte(nil), big...), "tail"...), true},
		{"shuffled halves", big, append(append([]byte(nil), big[100<<10:]...), big[:100<<10]...), false},
	}
	var enc deltaEncoder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := enc.delta(c.base, c.target, 1<<30)
			if d == nil {
				t.Fatal("no delta under an unbounded limit")
			}
			got, err := applyDelta(c.base, d, 1<<30)
			if err != nil || !bytes.Equal(got, c.target) {
				t.Fatalf("tv's reader: %d bytes, want %d (%v)", len(got), len(c.target), err)
			}
			got, err = packfile.PatchDelta(c.base, d)
			if err != nil || !bytes.Equal(got, c.target) {
				t.Fatalf("go-git's PatchDelta: %d bytes, want %d (%v)", len(got), len(c.target), err)
			}
			if c.appendOnly {
				if theirs := packfile.DiffDelta(c.base, c.target); len(d) > len(theirs) {
					t.Errorf("delta of %d bytes, go-git's %d", len(d), len(theirs))
				}
			}
			if n := int64(len(d)); enc.delta(c.base, c.target, n) != nil || enc.delta(c.base, c.target, n+1) == nil {
				t.Errorf("limit %d: a delta of %d bytes is not refused at it or not made under one more", n, n)
			}
		})
	}
}

// TestAppendStoredZlib: the stored zlib stream inflates to its input, at
// the block boundaries too.
func TestAppendStoredZlib(t *testing.T) {
	for _, n := range []int{0, 1, 200, 0xffff, 0x10000, 0x20001} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := bytes.Repeat([]byte{'x', 0, 0xff}, n/3+1)[:n]
			zr, err := zlib.NewReader(bytes.NewReader(appendStoredZlib([]byte("prefix")[:0], p)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, p) {
				t.Fatalf("inflated %d bytes, want %d (%v)", len(got), n, err)
			}
		})
	}
}

// FuzzDeltaEncoder: any base and target round-trip through a delta (a
// base is never empty: a merge deltifies objects of mergeMinDeltaBytes
// or more, and the reader refuses a delta of an empty base).
func FuzzDeltaEncoder(f *testing.F) {
	f.Add([]byte(strings.Repeat("some base text\n", 8)), []byte(strings.Repeat("some base text\n", 9)))
	f.Add([]byte("a"), []byte(""))
	var enc deltaEncoder
	f.Fuzz(func(t *testing.T, base, target []byte) {
		if len(base) == 0 {
			return
		}
		d := enc.delta(base, target, 1<<30)
		got, err := applyDelta(base, d, 1<<30)
		if err != nil || !bytes.Equal(got, target) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
