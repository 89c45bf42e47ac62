package hugeheap

import (
	"syscall"
	"unsafe"
)

// arenaBytes is the Go heap arena's size and alignment on 64-bit Linux
// (the runtime's heapArenaBytes). Advise marks the arena holding a fresh
// heap object and the next one, where the runtime's first chunk may end.
const arenaBytes = 64 << 20

// probe is the heap object Advise places: its address says where the
// heap is.
var probe *[16]byte

// Advise marks (on true) or unmarks (on false) the Go heap's first arena
// for transparent huge pages: MADV_HUGEPAGE or MADV_NOHUGEPAGE over it.
// Parts of the range that are not mapped are skipped (madvise reports
// ENOMEM for them after advising the rest), so any error is ignored: the
// advice is an optimisation, never a condition.
func Advise(on bool) {
	probe = new([16]byte)
	base := uintptr(unsafe.Pointer(probe)) &^ (arenaBytes - 1)
	advice := uintptr(syscall.MADV_HUGEPAGE)
	if !on {
		advice = syscall.MADV_NOHUGEPAGE
	}
	syscall.Syscall(syscall.SYS_MADVISE, base, 2*arenaBytes, advice)
}
