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
