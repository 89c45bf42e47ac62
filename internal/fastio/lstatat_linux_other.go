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

// rawOpenat2 is openat2(2) of the NUL-terminated name below folder dirfd.
func rawOpenat2(dirfd int, name *byte, how *unix.OpenHow) (int, syscall.Errno) {
	r, _, e := unix.Syscall6(unix.SYS_OPENAT2, uintptr(dirfd), uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
	return int(r), e
}

// rawRead is read(2).
func rawRead(fd int, p []byte) (int, syscall.Errno) {
	n, err := unix.Read(fd, p)
	if err != nil {
		return n, err.(syscall.Errno)
	}
	return n, 0
}

// rawFstat is fstat(2).
func rawFstat(fd int, st *unix.Stat_t) syscall.Errno {
	if err := unix.Fstat(fd, st); err != nil {
		return err.(syscall.Errno)
	}
	return 0
}

// rawClose is close(2).
func rawClose(fd int) syscall.Errno {
	if err := unix.Close(fd); err != nil {
		return err.(syscall.Errno)
	}
	return 0
}

// rawOpenat is openat(2) of the NUL-terminated name in folder dirfd.
func rawOpenat(dirfd int, name *byte, flags int) (int, syscall.Errno) {
	r, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(name)), uintptr(flags), 0, 0, 0)
	return int(r), e
}
