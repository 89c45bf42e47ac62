// Package lebin reads and writes the little-endian binary records of
// tv's checkout caches (the stat cache, the ICM cache): fixed-width
// integers, raw bytes, and strings of at most 64 KiB with a 16-bit length.
//
// A Reader never panics on short or damaged input: the first read past
// the end sets Err and every later read yields zeros, so a decoder reads
// a whole record and checks Err once. Strings are cut from the input
// without a copy (the input must not change while they are in use), which
// is why a cache of 100k paths decodes into one string, not 100k.
package lebin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

// ErrTruncated is a Reader's error when the input ends inside a field.
var ErrTruncated = errors.New("binary record truncated")

// Reader reads fields from a byte slice.
type Reader struct {
	b   []byte
	s   string // the same bytes as b, for strings without a copy
	off int
	err error
}

// NewReader reads b from offset off. b must not change while the strings
// read from it are in use.
func NewReader(b []byte, off int) *Reader {
	return &Reader{b: b, s: unsafe.String(unsafe.SliceData(b), len(b)), off: off}
}

// Err is the first error: ErrTruncated, or what Fail set.
func (r *Reader) Err() error { return r.err }

// Fail sets err as the reader's error unless it has one; reads then yield
// zeros.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Offset is how many bytes of the input lie before the next field.
func (r *Reader) Offset() int { return r.off }

// Remaining is how many bytes of the input are left.
func (r *Reader) Remaining() int { return len(r.b) - r.off }

// Take returns the next n bytes (not copied), or n zero bytes past the end.
func (r *Reader) Take(n int) []byte {
	if r.err != nil || n < 0 || len(r.b)-r.off < n {
		r.Fail(ErrTruncated)
		return make([]byte, max(n, 0))
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v
}

// U32 reads a little-endian uint32.
func (r *Reader) U32() uint32 { return binary.LittleEndian.Uint32(r.Take(4)) }

// U64 reads a little-endian uint64.
func (r *Reader) U64() uint64 { return binary.LittleEndian.Uint64(r.Take(8)) }

// Str reads a string: a uint16 length, then its bytes (not copied).
func (r *Reader) Str() string {
	n := int(binary.LittleEndian.Uint16(r.Take(2)))
	if r.err != nil || len(r.s)-r.off < n {
		r.Fail(ErrTruncated)
		return ""
	}
	v := r.s[r.off : r.off+n]
	r.off += n
	return v
}

// ErrTooLong is Writer.Err's error after a Str over MaxStr bytes.
var ErrTooLong = errors.New("string over the format's 65535-byte limit")

// Writer appends fields to B. A Str too long for the format is not
// written; Err reports it, and the caller must not store B then.
type Writer struct {
	B   []byte
	err error
}

// Err is the first error of w's appends: nil, or ErrTooLong.
func (w *Writer) Err() error { return w.err }

// U32 appends v little-endian.
func (w *Writer) U32(v uint32) { w.B = binary.LittleEndian.AppendUint32(w.B, v) }

// U64 appends v little-endian.
func (w *Writer) U64(v uint64) { w.B = binary.LittleEndian.AppendUint64(w.B, v) }

// Bytes appends b as it is.
func (w *Writer) Bytes(b []byte) { w.B = append(w.B, b...) }

// Str appends s with its uint16 length. A string over MaxStr bytes is not
// appended, and sets Err: a length prefix that disagreed with its bytes
// would still pass the checksum taken over them.
func (w *Writer) Str(s string) {
	if len(s) > MaxStr {
		if w.err == nil {
			w.err = fmt.Errorf("%w: %d bytes", ErrTooLong, len(s))
		}
		return
	}
	w.B = binary.LittleEndian.AppendUint16(w.B, uint16(len(s)))
	w.B = append(w.B, s...)
}
