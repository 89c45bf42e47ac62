package lebin

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestRoundTrip: what a Writer appends, a Reader reads back, and the
// reader ends exactly at the end.
func TestRoundTrip(t *testing.T) {
	var w Writer
	w.U32(7)
	w.U64(1 << 40)
	w.Str("héllo")
	w.Bytes([]byte{1, 2, 3})
	w.Str("")
	r := NewReader(w.B, 0)
	if v := r.U32(); v != 7 {
		t.Fatalf("U32 = %d", v)
	}
	if v := r.U64(); v != 1<<40 {
		t.Fatalf("U64 = %d", v)
	}
	if s := r.Str(); s != "héllo" {
		t.Fatalf("Str = %q", s)
	}
	if b := r.Take(3); string(b) != "\x01\x02\x03" {
		t.Fatalf("Take = %v", b)
	}
	if s := r.Str(); s != "" || r.Err() != nil || r.Remaining() != 0 || r.Offset() != len(w.B) {
		t.Fatalf("end: %q, %v, %d left at %d", s, r.Err(), r.Remaining(), r.Offset())
	}
}

// TestTruncated: a read past the end sets ErrTruncated, yields zeros and
// keeps the first error; Fail sets an error of the caller's.
func TestTruncated(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		read func(r *Reader) any
		zero any
	}{
		{"u32", []byte{1, 2, 3}, func(r *Reader) any { return r.U32() }, uint32(0)},
		{"u64", []byte{1, 2, 3, 4}, func(r *Reader) any { return r.U64() }, uint64(0)},
		{"str length", []byte{1}, func(r *Reader) any { return r.Str() }, ""},
		{"str bytes", []byte{5, 0, 'a'}, func(r *Reader) any { return r.Str() }, ""},
		{"take", []byte{1}, func(r *Reader) any { return len(r.Take(2)) }, 2},
		{"negative take", []byte{1}, func(r *Reader) any { return len(r.Take(-1)) }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.in, 0)
			if got := tt.read(r); got != tt.zero || !errors.Is(r.Err(), ErrTruncated) {
				t.Fatalf("read %v (%v), want %v and ErrTruncated", got, r.Err(), tt.zero)
			}
			r.Fail(errors.New("other"))
			if !errors.Is(r.Err(), ErrTruncated) {
				t.Fatalf("Fail replaced the first error: %v", r.Err())
			}
		})
	}
	mine := errors.New("mine")
	r := NewReader([]byte{1, 0, 0, 0}, 0)
	r.Fail(mine)
	if r.U32() != 0 || r.Err() != mine {
		t.Fatalf("after Fail: %v", r.Err())
	}
}

// TestStrTooLong: a string over MaxStr bytes is not written (its uint16
// length could not say how long it is) and sets Err; MaxStr bytes fit.
func TestStrTooLong(t *testing.T) {
	tests := []struct {
		n       int
		wantErr bool
	}{
		{MaxStr, false},
		{MaxStr + 1, true},
		{1 << 20, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			var w Writer
			w.Str(strings.Repeat("x", tt.n))
			w.U32(9)
			if got := w.Err(); errors.Is(got, ErrTooLong) != tt.wantErr {
				t.Fatalf("Err() = %v, want too long: %v", got, tt.wantErr)
			}
			r := NewReader(w.B, 0)
			if !tt.wantErr {
				if s := r.Str(); len(s) != tt.n {
					t.Fatalf("read back %d bytes, want %d", len(s), tt.n)
				}
			}
			if v := r.U32(); v != 9 || r.Err() != nil || r.Remaining() != 0 {
				t.Fatalf("after the string: %d, %v, %d left", v, r.Err(), r.Remaining())
			}
		})
	}
}
