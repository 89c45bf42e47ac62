package gitbackend

import (
	"bytes"
	"container/list"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
)

// Delta entries. Consolidation (consolidate.go) stores objects as
// OFS_DELTA entries against similar objects of the same pack, as
// `git gc` does; git's own packs hold OFS_DELTA and REF_DELTA entries.
// The direct reader resolves both here: it follows the chain of bases
// inside the pack (at most MaxDeltaChain steps), inflates each delta and
// applies them from the whole base up with go-git's PatchDelta. Resolved
// bases are kept in a small LRU (DeltaBaseCacheBytes), so walking a
// history, whose versions are chains of each other, patches each step
// once. A chain with an object over StreamThreshold is left to go-git's
// reader, which streams.

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
		return 0, 0, err
	}
	target, err = read()
	return base, target, err
}

// applyDelta applies delta to base. It refuses a delta whose header does
// not match base or whose result would exceed limit bytes before
// allocating anything.
func applyDelta(base, delta []byte, limit int64) ([]byte, error) {
	bsize, tsize, err := deltaSizes(delta)
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
	out, err := packfile.PatchDelta(base, delta)
	if err != nil {
		return nil, err
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
// inflated data. Objects over StreamThreshold give errNoFast.
func readEntryAt(f *os.File, idx *rawIndex, size, off int64) (packEntryHead, []byte, error) {
	end := idx.entryEnd(off, size)
	if off < 12 || end <= off || end > size-20 {
		return packEntryHead{}, nil, fmt.Errorf("entry at %d..%d out of range", off, end)
	}
	if end-off > StreamThreshold+1024 {
		return packEntryHead{}, nil, errNoFast
	}
	raw := make([]byte, end-off)
	if _, err := f.ReadAt(raw, off); err != nil {
		return packEntryHead{}, nil, err
	}
	h, err := parseEntryHead(raw, off)
	if err != nil {
		return h, nil, err
	}
	if h.size > StreamThreshold {
		return h, nil, errNoFast
	}
	data, err := inflateExact(raw[h.dataOff:], h.size)
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
		if base, err = applyDelta(base, deltas[i], StreamThreshold); err != nil {
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
