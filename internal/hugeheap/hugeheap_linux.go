package hugeheap

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// arenaBytes is the Go heap arena's size and alignment on 64-bit Linux
// (the runtime's heapArenaBytes). Advise covers the arena holding a fresh
// heap object and the next one, where the runtime's first chunk may end.
const arenaBytes = 64 << 20

// probe holds the heap object Advise last placed: its address says where
// the heap is (stored, it must be on the heap; atomic, Advise may run on
// several goroutines, as the servers' tests do).
var probe atomic.Pointer[[16]byte]

// marked is the start of the range Advise(true) marked (0: none), which
// Advise(false) unmarks too: the heap may have moved on to a later arena
// in between.
var marked atomic.Uintptr

// Advise marks (on true) or unmarks (on false) the Go heap's arenas for
// transparent huge pages: MADV_HUGEPAGE or MADV_NOHUGEPAGE over them.
// Parts of a range that are not mapped are skipped (madvise reports
// ENOMEM for them after advising the rest), so any error is ignored: the
// advice is an optimisation, never a condition.
func Advise(on bool) {
	p := new([16]byte)
	probe.Store(p)
	base := uintptr(unsafe.Pointer(p)) &^ (arenaBytes - 1)
	if on {
		madvise(base, syscall.MADV_HUGEPAGE)
		marked.Store(base)
		return
	}
	if m := marked.Swap(0); m != 0 && m != base {
		madvise(m, syscall.MADV_NOHUGEPAGE)
	}
	madvise(base, syscall.MADV_NOHUGEPAGE)
}

// madvise gives advice for the two arenas from base.
func madvise(base uintptr, advice int) {
	syscall.Syscall(syscall.SYS_MADVISE, base, 2*arenaBytes, uintptr(advice))
}
