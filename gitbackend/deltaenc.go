package gitbackend

import (
	"encoding/binary"
	"math/bits"
)

// Making deltas. A merge tries each candidate against up to DeltaWindow
// bases (packmerge.go). go-git's DiffDelta built a fresh index of the
// base for every try: three tables of 8-byte ints per 16 bytes of it,
// ~100 KB for a 55 KB file, so a merge of bench/history's 16 batch packs
// put ~1.3 MiB of fresh memory (~500 page faults, a quarter of that
// commit's) into indexes it dropped at once. A deltaEncoder keeps its
// index's tables from one base to the next and stops as soon as the
// delta is no smaller than the caller's limit.
//
// The index holds the base's 16-byte blocks at multiples of 16, chained
// by a hash of their bytes; the target is hashed at every offset, the
// longest of up to deltaMaxChain blocks with that hash is extended
// forwards and then backwards over the bytes waiting to be inserted, and
// becomes a copy. The output is git's delta format (the sizes of base
// and target, then copy and insert instructions), which `git` and
// go-git's PatchDelta apply.

// deltaBlock is the length of the blocks the base is indexed by: a
// common run of 2×deltaBlock-1 bytes is always found.
const deltaBlock = 16

// deltaMaxChain is how many of the base's blocks with the target's hash
// a delta compares (git caps its buckets at 64; most hold one block).
const deltaMaxChain = 16

// deltaMaxCopy is the longest copy instruction written, git's own limit
// (a size of 0x10000 was once spelled as none; keeping to it reads
// everywhere).
const deltaMaxCopy = 0x10000

// deltaEncoder makes deltas, reusing its index's memory.
type deltaEncoder struct {
	head []int32 // per hash bucket: 1 + the last block put in it, 0 none
	next []int32 // per block: 1 + the block before it in its bucket
	out  []byte  // the delta being made
}

// blockHash hashes the deltaBlock bytes at the start of b.
func blockHash(b []byte) uint32 {
	x := binary.LittleEndian.Uint64(b) * 0x9e3779b97f4a7c15
	y := binary.LittleEndian.Uint64(b[8:]) * 0xc2b2ae3d27d4eb4f
	h := bits.RotateLeft64(x, 31) ^ y
	return uint32((h ^ h>>29) * 0x165667b19e3779f9 >> 32)
}

// index indexes base's blocks.
func (d *deltaEncoder) index(base []byte) (mask uint32) {
	n := len(base) / deltaBlock
	size := 16
	for size < n {
		size <<= 1
	}
	d.head = resetInt32s(d.head, size)
	d.next = resetInt32s(d.next, n)
	mask = uint32(size - 1)
	for k := n - 1; k >= 0; k-- { // a chain starts at its lowest offset: the shortest copy instruction wins a tie
		h := blockHash(base[k*deltaBlock:]) & mask
		d.next[k] = d.head[h]
		d.head[h] = int32(k + 1)
	}
	return mask
}

// resetInt32s returns s resized to n zeros, reusing its memory.
func resetInt32s(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// delta returns the delta that makes target from base, or nil when it
// would be limit bytes or more. The delta is the caller's (a fresh
// slice).
func (d *deltaEncoder) delta(base, target []byte, limit int64) []byte {
	out := appendDeltaSize(appendDeltaSize(d.out[:0], len(base)), len(target))
	defer func() { d.out = out[:0] }()
	mask := d.index(base)
	lit := 0 // start of the bytes waiting to be inserted
	for i := 0; i+deltaBlock <= len(target); {
		if int64(len(out)) >= limit {
			return nil // (the bytes waiting may still become a copy, backwards)
		}
		bestOff, bestLen := 0, 0
		tries := 0
		for k := d.head[blockHash(target[i:])&mask]; k != 0 && tries < deltaMaxChain; k = d.next[k-1] {
			tries++
			off := int(k-1) * deltaBlock
			if l := matchLen(base[off:], target[i:]); l > bestLen {
				bestOff, bestLen = off, l
			}
		}
		if bestLen < deltaBlock {
			i++
			continue
		}
		for bestOff > 0 && i > lit && base[bestOff-1] == target[i-1] {
			bestOff, i, bestLen = bestOff-1, i-1, bestLen+1
		}
		out = appendDeltaInsert(out, target[lit:i])
		out = appendDeltaCopy(out, bestOff, bestLen)
		i += bestLen
		lit = i
	}
	out = appendDeltaInsert(out, target[lit:])
	if int64(len(out)) >= limit {
		return nil
	}
	return append([]byte(nil), out...)
}

// matchLen returns how many bytes a and b have in common at their start.
func matchLen(a, b []byte) int {
	n := 0
	for len(a) >= 8 && len(b) >= 8 {
		if x := binary.LittleEndian.Uint64(a) ^ binary.LittleEndian.Uint64(b); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		a, b, n = a[8:], b[8:], n+8
	}
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b, n = a[1:], b[1:], n+1
	}
	return n
}

// appendDeltaSize appends a size of a delta's header (base 128, least
// significant group first).
func appendDeltaSize(out []byte, n int) []byte {
	for n >= 0x80 {
		out = append(out, byte(n)|0x80)
		n >>= 7
	}
	return append(out, byte(n))
}

// appendDeltaInsert appends instructions inserting lit (127 bytes each).
func appendDeltaInsert(out, lit []byte) []byte {
	for len(lit) > 0 {
		n := min(len(lit), 127)
		out = append(out, byte(n))
		out = append(out, lit[:n]...)
		lit = lit[n:]
	}
	return out
}

// appendDeltaCopy appends instructions copying n bytes of the base from
// off (deltaMaxCopy each).
func appendDeltaCopy(out []byte, off, n int) []byte {
	for n > 0 {
		c := min(n, deltaMaxCopy)
		at := len(out)
		out = append(out, 0x80)
		for i := range 4 {
			if b := byte(off >> (8 * i)); b != 0 {
				out[at] |= 1 << i
				out = append(out, b)
			}
		}
		for i := range 3 {
			if b := byte(c >> (8 * i)); b != 0 {
				out[at] |= 0x10 << i
				out = append(out, b)
			}
		}
		off += c
		n -= c
	}
	return out
}
