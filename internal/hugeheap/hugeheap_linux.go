package hugeheap

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// arenaBytes is the Go heap arena's size and alignment on 64-bit Linux
// (the runtime's heapArenaBytes). Advise marks the arena holding a fresh
// heap object and the next one, where the runtime's first chunk may end.
const arenaBytes = 64 << 20

// probe holds the heap object Advise last placed: its address says where
// the heap is (stored, it must be on the heap; atomic, Advise may run on
// several goroutines, as the servers' tests do).
var probe atomic.Pointer[[16]byte]

// Advise marks (on true) or unmarks (on false) the Go heap's first arena
// for transparent huge pages: MADV_HUGEPAGE or MADV_NOHUGEPAGE over it.
// Parts of the range that are not mapped are skipped (madvise reports
// ENOMEM for them after advising the rest), so any error is ignored: the
// advice is an optimisation, never a condition.
func Advise(on bool) {
	p := new([16]byte)
	probe.Store(p)
	base := uintptr(unsafe.Pointer(p)) &^ (arenaBytes - 1)
	advice := uintptr(syscall.MADV_HUGEPAGE)
	if !on {
		advice = syscall.MADV_NOHUGEPAGE
	}
	syscall.Syscall(syscall.SYS_MADVISE, base, 2*arenaBytes, advice)
}
