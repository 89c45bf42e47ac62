//go:build linux && !(amd64 || arm64 || riscv64 || loong64)

package fastio

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawLstatAt lstats the NUL-terminated name in folder fd, never following
// a symlink (through x/sys/unix on the architectures whose stat calls
// differ).
func rawLstatAt(fd int, name *byte, st *unix.Stat_t) syscall.Errno {
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(name), n)) != 0 {
		n++
	}
	err := unix.Fstatat(fd, string(unsafe.Slice(name, n)), st, unix.AT_SYMLINK_NOFOLLOW)
	if err == nil {
		return 0
	}
	return err.(syscall.Errno)
}
