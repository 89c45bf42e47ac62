package gitbackend

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/thalix/tv/engine"
)

// Sorting a merge's entries. A merge of bench/history's whole vault sorts
// its 5,379 entries three times: by pack offset (each pack's scan), by
// object id (duplicates) and by id again (the new index). Sorting
// positions through a comparison that loads both entries' ids took ~1 ms
// a sort. keyed sorts 16-byte (key, position) pairs instead: counted into
// 256 buckets by the key's top byte above the largest key's bits, then
// each bucket sorted on its own, by insertion while it is small. Object
// ids and pack offsets spread evenly over the buckets; keys that do not
// (ids made to share their first bytes) only make the buckets larger,
// which are then sorted by comparison: never worse than n log n.

// keyed is a sort key and the position of what it belongs to.
type keyed struct {
	key uint64
	pos int32
}

func compareKeyed(a, b keyed) int {
	return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.pos, b.pos))
}

// keyedInsertionMax is the bucket size up to which sortKeyed sorts by
// insertion.
const keyedInsertionMax = 32

// sortKeyed sorts ks by key, then position.
func sortKeyed(ks []keyed) {
	if len(ks) <= keyedInsertionMax {
		insertionSortKeyed(ks)
		return
	}
	var top uint64
	for _, k := range ks {
		top = max(top, k.key)
	}
	shift := max(0, bits.Len64(top)-8)
	var count [257]int
	for _, k := range ks {
		count[k.key>>shift+1]++
	}
	for b := 1; b < len(count); b++ {
		count[b] += count[b-1]
	}
	out := make([]keyed, len(ks))
	next := count
	for _, k := range ks {
		b := k.key >> shift
		out[next[b]] = k
		next[b]++
	}
	for b := range 256 {
		bucket := out[count[b]:count[b+1]]
		if len(bucket) <= keyedInsertionMax {
			insertionSortKeyed(bucket)
		} else {
			slices.SortFunc(bucket, compareKeyed)
		}
	}
	copy(ks, out)
}

func insertionSortKeyed(ks []keyed) {
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && compareKeyed(ks[j], ks[j-1]) < 0; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
}

// idKey is the sort key of an object id: its first 8 bytes as a number.
func idKey(id *engine.Hash) uint64 { return binary.BigEndian.Uint64(id[:8]) }

// sortByID returns the positions 0..n-1 ordered by id(pos), then by
// position.
func sortByID(n int, id func(pos int32) *engine.Hash) []keyed {
	ks := make([]keyed, n)
	for i := range ks {
		ks[i] = keyed{idKey(id(int32(i))), int32(i)}
	}
	sortKeyed(ks)
	// Runs of one key are ids that share their first 8 bytes: almost
	// always one object; order any other run by the whole id.
	for i := 0; i < len(ks); {
		j := i + 1
		for j < len(ks) && ks[j].key == ks[i].key {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(ks[i:j], func(a, b keyed) int { return compareIDs(id(a.pos), id(b.pos)) })
		}
		i = j
	}
	return ks
}
