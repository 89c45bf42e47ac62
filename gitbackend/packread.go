package gitbackend

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
)

// Direct pack reads. Reading a whole entry is a lookup in the index, one
// positioned read of the entry header and a zlib stream from there: no
// go-git Packfile per read, no object cache, no copy of the whole object
// in memory, and safe for concurrent use (pread on one shared descriptor
// per pack). Delta entries (consolidated packs, packs git wrote) are
// resolved in memory by resolveDelta (delta.go), bounded by
// MaxDeltaChain and MaxPatchedBytes.

// rawIndex is a version 2 pack index held as the file's bytes.
type rawIndex struct {
	fanout [256]uint32
	names  []byte // 20 bytes per object, sorted
	crcs   []byte // 4 bytes per object: CRC-32 of the entry's packed bytes
	off32  []byte // 4 bytes per object; the top bit selects off64
	off64  []byte // 8 bytes per large offset
	sum    [20]byte

	offsOnce sync.Once
	offs     []int64 // every entry's offset, ascending: an entry ends where the next begins
	scans    atomic.Int32
}

// scanEntryEnds is how many entryEnd calls scan the offsets instead of
// sorting them: a process that reads a few objects of a large pack (a
// server hook) never pays for the sort.
const scanEntryEnds = 64

// entryEnd returns where the entry at off ends: the next entry's offset,
// or the pack's trailer.
func (x *rawIndex) entryEnd(off, packSize int64) int64 {
	defer runtime.KeepAlive(x) // the index may be mapped (loadPackIndex)
	if x.scans.Add(1) <= scanEntryEnds {
		end := packSize - 20
		for i := range len(x.off32) / 4 {
			if o := x.offset(i); o > off && o < end {
				end = o
			}
		}
		return end
	}
	x.offsOnce.Do(func() {
		n := len(x.off32) / 4
		x.offs = make([]int64, n)
		for i := range n {
			x.offs[i] = x.offset(i)
		}
		slices.Sort(x.offs)
	})
	i, _ := slices.BinarySearch(x.offs, off+1)
	if i < len(x.offs) {
		return x.offs[i]
	}
	return packSize - 20
}

// offset returns the pack offset of the i-th entry in name order.
func (x *rawIndex) offset(i int) int64 {
	defer runtime.KeepAlive(x)
	o := binary.BigEndian.Uint32(x.off32[4*i:])
	if o&0x80000000 == 0 {
		return int64(o)
	}
	return int64(binary.BigEndian.Uint64(x.off64[8*int(o&0x7fffffff):]))
}

var idxMagic = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

// parseIndex checks and wraps a version 2 pack index.
func parseIndex(b []byte) (*rawIndex, error) {
	const head = 8 + 256*4
	if len(b) < head+40 || !bytes.Equal(b[:8], idxMagic) {
		return nil, errors.New("not a version 2 pack index")
	}
	x := &rawIndex{}
	var prev uint32
	for i := range x.fanout {
		v := binary.BigEndian.Uint32(b[8+4*i:])
		if v < prev {
			return nil, errors.New("fanout table is not sorted")
		}
		x.fanout[i], prev = v, v
	}
	n := int(x.fanout[255])
	rest := len(b) - head - 40
	if rest < n*28 || (rest-n*28)%8 != 0 {
		return nil, errors.New("index size does not match its object count")
	}
	x.names = b[head : head+n*20]
	x.crcs = b[head+n*20 : head+n*24]
	x.off32 = b[head+n*24 : head+n*28]
	x.off64 = b[head+n*28 : len(b)-40]
	copy(x.sum[:], b[len(b)-40:])
	for i := 0; i < n; i++ {
		if o := binary.BigEndian.Uint32(x.off32[4*i:]); o&0x80000000 != 0 && int(o&0x7fffffff) >= len(x.off64)/8 {
			return nil, errors.New("large offset out of range")
		}
	}
	return x, nil
}

// find returns the pack offset of object h.
func (x *rawIndex) find(h engine.Hash) (int64, bool) {
	defer runtime.KeepAlive(x)
	lo := 0
	if h[0] > 0 {
		lo = int(x.fanout[h[0]-1])
	}
	hi := int(x.fanout[h[0]])
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(x.names[20*mid:20*mid+20], h[:]); {
		case c == 0:
			return x.offset(mid), true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// packFile is a pack's data file, opened once and shared by all readers.
type packFile struct {
	once sync.Once
	f    *os.File
	size int64
	err  error
}

func (p *packIndex) open(dir string) (*os.File, int64, error) {
	p.file.once.Do(func() {
		f, err := os.Open(filepath.Join(dir, p.name+".pack"))
		if err != nil {
			p.file.err = err
			return
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			p.file.err = err
			return
		}
		p.file.f, p.file.size = f, fi.Size()
	})
	return p.file.f, p.file.size, p.file.err
}

// Pools of the per-read state. An entry whose compressed bytes fit
// inlineEntryBytes is read with one pread into a pooled buffer and
// inflated from memory (the inflater's fastest path); a larger one
// streams through a pooled buffered reader over the pack.
const inlineEntryBytes = 1 << 20

var (
	entryBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
	packBufs  = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}
	inflaters sync.Pool // zlib readers (zlib.Resetter)
)

// openPacked opens object h of pack p for streaming; a delta entry is
// resolved in memory first.
func (v *Vault) openPacked(p *packIndex, h engine.Hash) (int, int64, io.ReadCloser, error) {
	off, ok := p.idx.find(h)
	if !ok {
		return 0, 0, nil, fmt.Errorf("%w: %s", engine.ErrObjectNotFound, h)
	}
	f, size, err := p.open(filepath.Join(v.path, "objects", "pack"))
	if err != nil {
		return 0, 0, nil, err
	}
	end := p.idx.entryEnd(off, size)
	if off < 12 || end <= off || end > size-20 {
		return 0, 0, nil, fmt.Errorf("read object %s from %s: entry at %d..%d out of range", h, p.name, off, end)
	}
	r := &packedReader{h: h, pack: p.name}
	var src interface {
		io.Reader
		io.ByteReader
	}
	if n := end - off; n <= inlineEntryBytes {
		r.buf = entryBufs.Get().(*[]byte)
		if int64(cap(*r.buf)) < n {
			*r.buf = make([]byte, 0, n)
		}
		b := (*r.buf)[:n]
		if _, err := f.ReadAt(b, off); err != nil {
			r.release()
			return 0, 0, nil, fmt.Errorf("read object %s from %s: %w", h, p.name, err)
		}
		src = bytes.NewReader(b)
	} else {
		r.br = packBufs.Get().(*bufio.Reader)
		r.br.Reset(io.NewSectionReader(f, off, end-off))
		src = r.br
	}
	fail := func(err error) (int, int64, io.ReadCloser, error) {
		r.release()
		return 0, 0, nil, err
	}
	head, err := readEntryHead(src, off)
	if err != nil {
		return fail(fmt.Errorf("read object %s from %s: %w", h, p.name, err))
	}
	typ, osize := head.typ, head.size
	switch typ {
	case typeCommit, typeTree, typeBlob:
	case typeOfsDelta, typeRefDelta:
		r.release()
		dtyp, data, err := v.resolveDelta(p, off)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("read object %s from %s: %w", h, p.name, err)
		}
		return dtyp, int64(len(data)), io.NopCloser(bytes.NewReader(data)), nil
	default:
		return fail(fmt.Errorf("%w: %s has pack type %d, which tv does not read", engine.ErrObjectNotFound, h, typ))
	}
	if z, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := z.(zlib.Resetter).Reset(src, nil); err != nil {
			inflaters.Put(z)
			return fail(fmt.Errorf("read object %s from %s: %w", h, p.name, err))
		}
		r.zr = z
	} else if r.zr, err = zlib.NewReader(src); err != nil {
		return fail(fmt.Errorf("read object %s from %s: %w", h, p.name, err))
	}
	r.left = osize
	return typ, osize, r, nil
}

// packedReader yields exactly one entry's inflated bytes and checks that
// the zlib stream ends (with a good checksum) right after them.
type packedReader struct {
	zr   io.ReadCloser
	buf  *[]byte       // the entry, when read whole
	br   *bufio.Reader // the pack, when streamed
	left int64
	h    engine.Hash
	pack string
	err  error
}

// release returns the pooled state.
func (r *packedReader) release() {
	if r.zr != nil {
		inflaters.Put(r.zr)
		r.zr = nil
	}
	if r.buf != nil {
		*r.buf = (*r.buf)[:0]
		entryBufs.Put(r.buf)
		r.buf = nil
	}
	if r.br != nil {
		r.br.Reset(nil)
		packBufs.Put(r.br)
		r.br = nil
	}
}

func (r *packedReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.left == 0 {
		// The stream must end here: this read checks its adler32.
		var one [1]byte
		n, err := io.ReadFull(r.zr, one[:])
		switch {
		case n > 0:
			r.err = fmt.Errorf("read object %s from %s: more bytes than its size", r.h, r.pack)
		case err == io.EOF:
			r.err = io.EOF
		default:
			r.err = fmt.Errorf("read object %s from %s: %w", r.h, r.pack, err)
		}
		return 0, r.err
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.zr.Read(p)
	r.left -= int64(n)
	switch {
	case err == io.EOF && r.left > 0:
		r.err = fmt.Errorf("read object %s from %s: %w", r.h, r.pack, io.ErrUnexpectedEOF)
		return n, r.err
	case err == io.EOF:
		err = nil // checked on the next Read
	case err != nil:
		r.err = fmt.Errorf("read object %s from %s: %w", r.h, r.pack, err)
		return n, r.err
	}
	return n, nil
}

func (r *packedReader) Close() error {
	r.release()
	if r.err == nil {
		r.err = errors.New("read after close")
	}
	return nil
}
