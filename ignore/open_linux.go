//go:build linux

package ignore

import (
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// openat2(2) with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS resolves a whole
// path relative to the root in one system call, refusing any symlink
// component and any escape — the same guarantee as walking it component
// by component through the os.Root with Lstat checks, at a fraction of
// the system calls. Kernels before 5.6 (or seccomp filters) lack it; then
// the portable path is used.

const (
	sysOpenat2          = 437 // the same number on every Linux architecture
	resolveNoMagicLinks = 0x02
	resolveNoSymlinks   = 0x04
	resolveBeneath      = 0x08
)

type openHow struct{ flags, mode, resolve uint64 }

var openat2Unusable atomic.Bool

// rootDir is an open descriptor of the root directory.
type rootDir struct {
	f  *os.File
	fd int
}

func openRootDir(root *os.Root) *rootDir {
	if openat2Unusable.Load() {
		return nil
	}
	f, err := root.Open(".")
	if err != nil {
		return nil
	}
	return &rootDir{f: f, fd: int(f.Fd())}
}

// readFast reads name (a path relative to the root) if it is a regular
// file of at most MaxIgnoreFileBytes reached without any symlink; large
// says it was a regular file over that limit. ok is false when openat2
// cannot be used and the caller must fall back.
func (d *rootDir) readFast(name string) (data []byte, ok, large bool) {
	if d == nil || openat2Unusable.Load() {
		return nil, false, false
	}
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return nil, true, false
	}
	how := openHow{
		flags:   syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_NOCTTY,
		resolve: resolveBeneath | resolveNoSymlinks | resolveNoMagicLinks,
	}
	var r uintptr
	var errno syscall.Errno
	for {
		r, _, errno = syscall.Syscall6(sysOpenat2, uintptr(d.fd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
		if errno != syscall.EINTR && errno != syscall.EAGAIN {
			break
		}
	}
	runtime.KeepAlive(d.f)
	switch errno {
	case 0:
	case syscall.ENOSYS, syscall.EPERM, syscall.EINVAL, syscall.E2BIG:
		openat2Unusable.Store(true)
		return nil, false, false
	default: // ENOENT, ELOOP (a symlink), EXDEV, EACCES, ENOTDIR…: no file
		return nil, true, false
	}
	fd := int(r)
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size == 0 {
		return nil, true, false
	}
	if st.Size > MaxIgnoreFileBytes {
		return nil, true, true
	}
	buf := make([]byte, st.Size+1)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, true, false
		}
		if m == 0 {
			break
		}
		n += m
	}
	if n == 0 || n > MaxIgnoreFileBytes {
		return nil, true, n > MaxIgnoreFileBytes
	}
	return buf[:n], true, false
}
