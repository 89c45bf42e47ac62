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

// hugePageBytes is a transparent huge page (a PMD) on amd64 and arm64
// with 4 KiB pages; collapseRegions of them are collapsed around the
// first heap object: the one before it and two after, so both halves of
// the runtime's 4 MiB first chunk are covered wherever in it the object
// is. A region outside the heap's mapping is refused by the kernel and
// left alone.
const (
	hugePageBytes   = 2 << 20
	collapseRegions = 4
)

// madvCollapse is MADV_COLLAPSE (golang.org/x/sys/unix's value on every
// Linux architecture; package syscall predates it). Importing x/sys/unix
// for it would move this package's init after that package's.
const madvCollapse = 25

// probe holds the heap object Advise last placed: its address says where
// the heap is (stored, it must be on the heap; atomic, Advise may run on
// several goroutines, as the servers' tests do).
var probe atomic.Pointer[[16]byte]

// marked is the start of the range Advise(true) marked (0: none), which
// Advise(false) unmarks too: the heap may have moved on to a later arena
// in between.
var marked atomic.Uintptr

// collapseErr is the result of the last collapse of the region holding
// the probe, all ones before any (for tests).
var collapseErr atomic.Uintptr

func init() {
	collapseErr.Store(^uintptr(0))
	Advise(true)
}

// Advise marks (on true) or unmarks (on false) the Go heap's arenas for
// transparent huge pages: MADV_HUGEPAGE or MADV_NOHUGEPAGE over them. On
// true it also collapses the heap's pages around a fresh object into
// huge pages (see the package doc). Parts of a range that are not mapped
// are skipped (madvise reports ENOMEM for them after advising the rest),
// so any error is ignored: the advice is an optimisation, never a
// condition. Where the system's policy is "never", true does nothing.
func Advise(on bool) {
	p := new([16]byte)
	probe.Store(p)
	addr := uintptr(unsafe.Pointer(p))
	base := addr &^ (arenaBytes - 1)
	if on {
		if !allowed() {
			return
		}
		madvise(base, 2*arenaBytes, syscall.MADV_HUGEPAGE)
		marked.Store(base)
		own := addr &^ (hugePageBytes - 1)
		end := own + (collapseRegions-1)*hugePageBytes
		for r := own - hugePageBytes; r < end; r += hugePageBytes {
			e := madvise(r, hugePageBytes, madvCollapse)
			if r == own {
				collapseErr.Store(uintptr(e))
			}
		}
		return
	}
	if m := marked.Swap(0); m != 0 && m != base {
		madvise(m, 2*arenaBytes, syscall.MADV_NOHUGEPAGE)
	}
	madvise(base, 2*arenaBytes, syscall.MADV_NOHUGEPAGE)
}

// madvise gives advice for n bytes from base.
func madvise(base, n uintptr, advice int) syscall.Errno {
	_, _, e := syscall.Syscall(syscall.SYS_MADVISE, base, n, uintptr(advice))
	return e
}

// thpPolicy is where Linux shows the system's transparent huge page
// policy: "always [madvise] never", the bracketed one in force.
const thpPolicy = "/sys/kernel/mm/transparent_hugepage/enabled"

// allowed reports whether the system lets a program ask for huge pages:
// the policy file exists and "never" is not the one in force.
// MADV_COLLAPSE would collapse even under "never"; tv leaves that
// decision to the system's administrator.
func allowed() bool {
	fd, err := syscall.Open(thpPolicy, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	var b [64]byte
	n, err := syscall.Read(fd, b[:])
	return err == nil && n > 0 && !contains(string(b[:n]), "[never]")
}

// contains is strings.Contains, which would move this package's init
// after that of package strings and its dependencies.
func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
