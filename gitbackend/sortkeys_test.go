package gitbackend

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/thalix/tv/engine"
)

// TestSortEntriesByID: index entries come out in id order, whatever the
// ids' spread: uniform, sharing their first 8 bytes (one run of keys),
// sharing their first byte (one bucket), few or many.
func TestSortEntriesByID(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		name   string
		n      int
		shared int // leading bytes every id shares
	}{
		{"none", 0, 0},
		{"one", 1, 0},
		{"few", 20, 0},
		{"uniform", 5000, 0},
		{"one bucket", 3000, 1},
		{"same key", 200, 8},
		{"same key many", 2000, 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			entries := make([]packEntry, c.n)
			for i := range entries {
				for j := c.shared; j < len(entries[i].id); j++ {
					entries[i].id[j] = byte(rng.IntN(256))
				}
				entries[i].offset = int64(i)
			}
			want := slices.Clone(entries)
			slices.SortFunc(want, func(a, b packEntry) int { return bytes.Compare(a.id[:], b.id[:]) })
			sortEntriesByID(entries)
			if !slices.Equal(entries, want) {
				t.Fatal("not in id order, or entries lost")
			}
		})
	}
}

// TestSortKeyed: pairs come out by key, then position, for keys spread
// over a small range (pack offsets), a wide one, or not at all.
func TestSortKeyed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, span := range []uint64{1, 200, 1 << 20, 1<<63 + 12345} {
		for _, n := range []int{0, 5, 33, 4000} {
			t.Run(fmt.Sprintf("span %d n %d", span, n), func(t *testing.T) {
				ks := make([]keyed, n)
				for i := range ks {
					ks[i] = keyed{rng.Uint64N(span), int32(i)}
				}
				want := slices.Clone(ks)
				slices.SortFunc(want, compareKeyed)
				sortKeyed(ks)
				if !slices.Equal(ks, want) {
					t.Fatal("not sorted by key, then position")
				}
			})
		}
	}
}

// TestSortByIDKeepsDuplicatesInPositionOrder: markDuplicates relies on
// the first entry of an object coming first.
func TestSortByIDKeepsDuplicatesInPositionOrder(t *testing.T) {
	ids := make([]engine.Hash, 300)
	for i := range ids {
		ids[i][0], ids[i][19] = byte(i%7), byte(i%3) // many duplicates, one key per first byte
	}
	ks := sortByID(len(ids), func(i int32) *engine.Hash { return &ids[i] })
	for k := 1; k < len(ks); k++ {
		a, b := ks[k-1], ks[k]
		if c := compareIDs(&ids[a.pos], &ids[b.pos]); c > 0 || c == 0 && a.pos > b.pos {
			t.Fatalf("%d before %d", a.pos, b.pos)
		}
	}
}

// TestInParallel: every call is made once, each worker index is below
// mergeWorkers, and the error of the lowest failing call is returned.
func TestInParallel(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100} {
		for _, failAt := range []int{-1, 0, n / 2, n - 1} {
			t.Run(fmt.Sprintf("n %d fail %d", n, failAt), func(t *testing.T) {
				calls := make([]int32, n)
				err := inParallel(n, func(worker, i int) error {
					if worker < 0 || worker >= mergeWorkers() {
						t.Errorf("worker %d", worker)
					}
					calls[i]++ // one call per i: no two workers share an i
					if i == failAt {
						return fmt.Errorf("fail %d", i)
					}
					return nil
				})
				switch {
				case failAt < 0 || failAt >= n:
					if err != nil {
						t.Fatal(err)
					}
					for i, c := range calls {
						if c != 1 {
							t.Fatalf("call %d made %d times", i, c)
						}
					}
				case err == nil || err.Error() != fmt.Sprintf("fail %d", failAt):
					t.Fatalf("err = %v, want fail %d", err, failAt)
				}
			})
		}
	}
}
