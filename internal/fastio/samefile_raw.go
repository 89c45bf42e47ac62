//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package fastio

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func sameFile(path string, fi os.FileInfo) bool {
	want, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	name, err := unix.BytePtrFromString(path)
	if err != nil {
		return false
	}
	var st unix.Stat_t
	cwd := unix.AT_FDCWD
	for {
		_, _, e := unix.RawSyscall6(sysFstatat, uintptr(cwd), uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(&st)), 0, 0, 0)
		switch e {
		case 0:
			return uint64(st.Dev) == uint64(want.Dev) && uint64(st.Ino) == uint64(want.Ino)
		case syscall.EINTR:
			continue
		}
		return false
	}
}
