package gitbackend

import (
	"bufio"
	"bytes"
	"container/list"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
)

// Delta entries. Consolidation (consolidate.go) stores objects as
// OFS_DELTA entries against similar objects of the same pack, as
// `git gc` does; git's own packs hold OFS_DELTA and REF_DELTA entries.
// The direct reader resolves both here: it follows the chain of bases
// inside the pack (at most MaxDeltaChain steps), inflates each delta and
// applies them from the whole base up (applyDelta). Resolved bases are
// kept in a small LRU (DeltaBaseCacheBytes), so walking a history, whose
// versions are chains of each other, patches each step once. An object
// of a chain is held in memory whole, as git's own reader does, up to
// MaxPatchedBytes.
//
// The patcher is tv's own, not go-git's PatchDelta: linking go-git's
// packfile package (and with it its plumbing, hash, sha1cd, billy and
// cache packages) only for it and for a fallback reader put 460 KB and
// ~22 packages into the lean tv binary, whose every command starts them
// (an earlier session's link experiment put their start-up at ~0.8 ms;
// paired runs of the builds with and without them in session 17: 0–0.4
// ms). FuzzApplyDelta checks it against go-git's patcher on any input.

// Pack entry types of the two delta kinds.
const (
	typeOfsDelta = 6
	typeRefDelta = 7
)

// packEntryHead is a parsed pack entry header.
type packEntryHead struct {
	typ     int   // 1–4 whole, 6 OFS_DELTA, 7 REF_DELTA
	size    int64 // inflated size (of the delta, for a delta)
	baseOff int64 // OFS_DELTA: the base's offset in the pack
	baseID  engine.Hash
	dataOff int64 // where the zlib stream starts, relative to the entry
}

// parseEntryHead parses the entry header at the start of b, the entry's
// bytes at pack offset off, and refuses a type git does not write.
func parseEntryHead(b []byte, off int64) (packEntryHead, error) {
	return parseEntryHeadWith(new(bytes.Reader), b, off)
}

// parseEntryHeadWith is parseEntryHead reading through r, which it
// resets to b: a caller parsing many entries (a merge's scan) reuses one.
func parseEntryHeadWith(r *bytes.Reader, b []byte, off int64) (packEntryHead, error) {
	r.Reset(b)
	h, err := readEntryHead(r, off)
	if errors.Is(err, io.EOF) {
		return h, errors.New("entry header is truncated")
	}
	if err != nil {
		return h, err
	}
	switch h.typ {
	case typeCommit, typeTree, typeBlob, 4, typeOfsDelta, typeRefDelta:
	default:
		return h, fmt.Errorf("invalid entry type %d", h.typ)
	}
	h.dataOff = int64(len(b) - r.Len())
	return h, nil
}

// entryReader is what readEntryHead reads a pack entry's header from.
type entryReader interface {
	io.ByteReader
	io.Reader
}

// readEntryHead reads the header of the pack entry at pack offset off
// from r (type, inflated size, a delta's base) and leaves r at the entry's
// zlib stream. The one parser of entry headers: the readers of mapped
// bytes (parseEntryHead), of a pack file and of a pack as it is received
// call it. Any type is returned; the caller refuses those it does not
// read. r's io.EOF is returned as is.
func readEntryHead(r entryReader, off int64) (packEntryHead, error) {
	var h packEntryHead
	c, err := r.ReadByte()
	if err != nil {
		return h, err
	}
	h.typ = int(c>>4) & 7
	h.size = int64(c & 0x0f)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if shift > 56 {
			return h, errors.New("entry size overflows")
		}
		if c, err = r.ReadByte(); err != nil {
			return h, err
		}
		h.size |= int64(c&0x7f) << shift
	}
	switch h.typ {
	case typeOfsDelta:
		if c, err = r.ReadByte(); err != nil {
			return h, err
		}
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if rel >= 1<<55 {
				return h, errors.New("delta base offset overflows")
			}
			if c, err = r.ReadByte(); err != nil {
				return h, err
			}
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off {
			return h, fmt.Errorf("delta base offset %d points outside the pack", rel)
		}
		h.baseOff = off - rel
	case typeRefDelta:
		// Byte by byte: handing h's array to r's Read would move h, one
		// per entry parsed, to the heap.
		for i := range h.baseID {
			if h.baseID[i], err = r.ReadByte(); err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return h, err
			}
		}
	}
	return h, nil
}

// appendOfsOffset appends an OFS_DELTA's distance to its base in git's
// encoding (big-endian base 128, each continued byte one less).
func appendOfsOffset(b []byte, rel int64) []byte {
	var tmp [10]byte
	n := len(tmp) - 1
	tmp[n] = byte(rel & 0x7f)
	for rel >>= 7; rel > 0; rel >>= 7 {
		rel--
		n--
		tmp[n] = 0x80 | byte(rel&0x7f)
	}
	return append(b, tmp[n:]...)
}

// deltaSizes returns the size of the base a delta expects and the size
// it produces (the two varints of its header).
func deltaSizes(delta []byte) (base, target int64, err error) {
	base, target, _, err = deltaHeader(delta)
	return base, target, err
}

// deltaHeader parses a delta's header and returns its two sizes and the
// instructions after it.
func deltaHeader(delta []byte) (base, target int64, ops []byte, err error) {
	read := func() (int64, error) {
		var v int64
		for shift := 0; ; shift += 7 {
			if len(delta) == 0 || shift > 56 {
				return 0, errors.New("delta header is truncated or overflows")
			}
			c := delta[0]
			delta = delta[1:]
			v |= int64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, nil
			}
		}
	}
	if base, err = read(); err != nil {
		return 0, 0, nil, err
	}
	if target, err = read(); err != nil {
		return 0, 0, nil, err
	}
	return base, target, delta, nil
}

// applyDelta applies delta to base. It refuses a delta whose header does
// not match base or whose result would exceed limit bytes before
// allocating anything, and any instruction that reads outside base or
// writes past the header's size.
func applyDelta(base, delta []byte, limit int64) ([]byte, error) {
	bsize, tsize, ops, err := deltaHeader(delta)
	if err != nil {
		return nil, err
	}
	if bsize != int64(len(base)) {
		return nil, fmt.Errorf("delta expects a base of %d bytes, got %d", bsize, len(base))
	}
	if tsize > limit {
		return nil, fmt.Errorf("delta makes %d bytes, over the limit %d", tsize, limit)
	}
	if len(base) == 0 {
		return nil, errors.New("delta against an empty base")
	}
	out := make([]byte, 0, tsize)
	for len(ops) > 0 {
		c := ops[0]
		ops = ops[1:]
		switch {
		case c&0x80 != 0: // copy from base: offset and size bytes as flagged
			var off, n uint64
			for i := range 7 {
				if c&(1<<i) == 0 {
					continue
				}
				if len(ops) == 0 {
					return nil, errors.New("delta copy instruction is truncated")
				}
				if i < 4 {
					off |= uint64(ops[0]) << (8 * i)
				} else {
					n |= uint64(ops[0]) << (8 * (i - 4))
				}
				ops = ops[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || n > uint64(cap(out)-len(out)) {
				return nil, fmt.Errorf("delta copies %d bytes from %d, outside the base or the result", n, off)
			}
			out = append(out, base[off:off+n]...)
		case c != 0: // insert the next c bytes
			if int(c) > len(ops) || int(c) > cap(out)-len(out) {
				return nil, errors.New("delta insert instruction is truncated or overflows the result")
			}
			out = append(out, ops[:c]...)
			ops = ops[c:]
		default:
			return nil, errors.New("delta has the reserved instruction 0")
		}
	}
	if int64(len(out)) != tsize {
		return nil, fmt.Errorf("delta made %d bytes, its header says %d", len(out), tsize)
	}
	return out, nil
}

// inflateExact inflates a zlib stream that must hold exactly size bytes.
func inflateExact(b []byte, size int64) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return readExact(zr, size)
}

// readExact reads exactly size bytes from zr, the whole of its stream.
func readExact(zr io.Reader, size int64) ([]byte, error) {
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	var one [1]byte
	if n, err := zr.Read(one[:]); n > 0 || err != io.EOF {
		if err == nil || n > 0 {
			err = errors.New("more bytes than the entry's size")
		}
		return nil, err
	}
	return out, nil
}

// readEntryAt reads the entry at off of pack p whole: its header and its
// inflated data, which may be at most MaxPatchedBytes. An entry of at
// most inlineEntryBytes is read with one pread; a larger one is inflated
// as it is read, so its compressed bytes are never held whole.
func readEntryAt(f *os.File, idx *rawIndex, size, off int64) (packEntryHead, []byte, error) {
	end := idx.entryEnd(off, size)
	if off < 12 || end <= off || end > size-20 {
		return packEntryHead{}, nil, fmt.Errorf("entry at %d..%d out of range", off, end)
	}
	if end-off > inlineEntryBytes {
		return readLargeEntryAt(f, off, end)
	}
	raw := make([]byte, end-off)
	if _, err := f.ReadAt(raw, off); err != nil {
		return packEntryHead{}, nil, err
	}
	h, err := parseEntryHead(raw, off)
	if err != nil {
		return h, nil, err
	}
	if err := checkPatchedSize(h); err != nil {
		return h, nil, err
	}
	data, err := inflateExact(raw[h.dataOff:], h.size)
	return h, data, err
}

// checkPatchedSize refuses an entry of a delta chain over MaxPatchedBytes
// before it is inflated.
func checkPatchedSize(h packEntryHead) error {
	if h.size > MaxPatchedBytes {
		return fmt.Errorf("object of %d bytes in a delta chain, over MaxPatchedBytes (%d)", h.size, int64(MaxPatchedBytes))
	}
	return nil
}

// readLargeEntryAt is readEntryAt for an entry spanning off..end that is
// over inlineEntryBytes compressed.
func readLargeEntryAt(f *os.File, off, end int64) (packEntryHead, []byte, error) {
	br := packBufs.Get().(*bufio.Reader)
	defer packBufs.Put(br)
	br.Reset(io.NewSectionReader(f, off, end-off))
	defer br.Reset(nil)
	h, err := readEntryHead(br, off)
	if errors.Is(err, io.EOF) {
		err = errors.New("entry header is truncated")
	}
	if err != nil {
		return h, nil, err
	}
	if err := checkPatchedSize(h); err != nil {
		return h, nil, err
	}
	zr, err := zlib.NewReader(br)
	if err != nil {
		return h, nil, err
	}
	defer zr.Close()
	data, err := readExact(zr, h.size)
	return h, data, err
}

// resolveDelta returns the type and content of the delta entry at off of
// pack p, following its chain of bases inside the pack.
func (v *Vault) resolveDelta(p *packIndex, off int64) (int, []byte, error) {
	f, size, err := p.open(v.packDir())
	if err != nil {
		return 0, nil, err
	}
	var deltas [][]byte // deltas[0] is the entry's own
	var offs []int64
	typ, base := 0, []byte(nil)
	for cur := off; ; {
		if t, b, ok := v.bases.get(p.name, cur); ok {
			typ, base = t, b
			break
		}
		h, data, err := readEntryAt(f, p.idx, size, cur)
		if err != nil {
			return 0, nil, err
		}
		if h.typ != typeOfsDelta && h.typ != typeRefDelta {
			typ, base = h.typ, data
			v.bases.put(p.name, cur, typ, base)
			break
		}
		if len(deltas) >= MaxDeltaChain {
			return 0, nil, fmt.Errorf("delta chain longer than %d (MaxDeltaChain)", MaxDeltaChain)
		}
		deltas, offs = append(deltas, data), append(offs, cur)
		if h.typ == typeOfsDelta {
			cur = h.baseOff
		} else {
			var ok bool
			if cur, ok = p.idx.find(h.baseID); !ok {
				return 0, nil, fmt.Errorf("delta base %s is not in the pack", h.baseID)
			}
		}
	}
	switch typ {
	case typeCommit, typeTree, typeBlob:
	default:
		return 0, nil, fmt.Errorf("delta of pack type %d, which tv does not read", typ)
	}
	for i := len(deltas) - 1; i >= 0; i-- {
		if base, err = applyDelta(base, deltas[i], MaxPatchedBytes); err != nil {
			return 0, nil, fmt.Errorf("delta at %d: %w", offs[i], err)
		}
		v.bases.put(p.name, offs[i], typ, base)
	}
	return typ, base, nil
}

// baseCache is an LRU of resolved objects by pack and offset, bounded in
// bytes. Cached slices are never modified.
type baseCache struct {
	mu    sync.Mutex
	max   int
	bytes int
	lru   list.List // of *baseEntry, most recent first
	byKey map[baseKey]*list.Element
}

type baseKey struct {
	pack string
	off  int64
}

type baseEntry struct {
	key  baseKey
	typ  int
	data []byte
}

func (c *baseCache) get(pack string, off int64) (int, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[baseKey{pack, off}]
	if !ok {
		return 0, nil, false
	}
	c.lru.MoveToFront(e)
	be := e.Value.(*baseEntry)
	return be.typ, be.data, true
}

func (c *baseCache) put(pack string, off int64, typ int, data []byte) {
	if len(data) > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := baseKey{pack, off}
	if c.byKey == nil {
		c.byKey = map[baseKey]*list.Element{}
	}
	if _, ok := c.byKey[k]; ok {
		return
	}
	c.byKey[k] = c.lru.PushFront(&baseEntry{key: k, typ: typ, data: data})
	c.bytes += len(data)
	for c.bytes > c.max {
		last := c.lru.Back()
		be := last.Value.(*baseEntry)
		c.lru.Remove(last)
		delete(c.byKey, be.key)
		c.bytes -= len(be.data)
	}
}
