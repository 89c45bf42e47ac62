//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package fastio

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawLstatAt lstats the NUL-terminated name in folder fd as a raw system
// call (see Lister.Lstat), never following a symlink.
func rawLstatAt(fd int, name *byte, st *unix.Stat_t) syscall.Errno {
	_, _, e := unix.RawSyscall6(sysFstatat, uintptr(fd), uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	return e
}

// The calls that read a file OpenBeneath opened are raw too (see File):
// a file a checkout holds is read from the page cache in microseconds,
// and telling the scheduler about each of 40k calls (open, fstat, read,
// close of 10k Markdown files in a tv check) cost a thread hand-off
// whenever one outlived sysmon's 20 µs tick.

// rawOpenat2 is openat2(2) of the NUL-terminated name below folder dirfd.
func rawOpenat2(dirfd int, name *byte, how *unix.OpenHow) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_OPENAT2, uintptr(dirfd), uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
	return int(r), e
}

// rawRead is read(2).
func rawRead(fd int, p []byte) (int, syscall.Errno) { return rawTransfer(unix.SYS_READ, fd, p) }

// rawTransfer is read(2) or write(2) (trap) of p on fd, as a raw system
// call.
func rawTransfer(trap uintptr, fd int, p []byte) (int, syscall.Errno) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	r, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(ptr), uintptr(len(p)))
	return int(r), e
}

// emptyName is the "" fstatat needs with AT_EMPTY_PATH.
var emptyName = [1]byte{0}

// rawFstat is fstat(2), as fstatat(fd, "", AT_EMPTY_PATH).
func rawFstat(fd int, st *unix.Stat_t) syscall.Errno {
	_, _, e := unix.RawSyscall6(sysFstatat, uintptr(fd), uintptr(unsafe.Pointer(&emptyName[0])), uintptr(unsafe.Pointer(st)), unix.AT_EMPTY_PATH, 0, 0)
	return e
}

// rawClose is close(2).
func rawClose(fd int) syscall.Errno {
	_, _, e := unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
	return e
}

// rawOpenat is openat(2) of the NUL-terminated name in folder dirfd.
func rawOpenat(dirfd int, name *byte, flags int) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(name)), uintptr(flags), 0, 0, 0)
	return int(r), e
}
