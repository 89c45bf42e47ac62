//go:build linux || darwin || freebsd || netbsd || openbsd

package textsearch

import (
	"errors"
	"io/fs"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// dirRef is an open directory. Everything below the search start is
// opened relative to its parent's descriptor with O_NOFOLLOW, so no path
// component can be a symlink; the start itself is reached the same way
// from the root's descriptor. A dirRef is reference counted: the walker
// holds one reference while listing, each queued file one more.
type dirRef struct {
	f    *os.File
	fd   int
	refs atomic.Int32
}

func newDirRef(f *os.File) *dirRef {
	d := &dirRef{f: f, fd: int(f.Fd())}
	d.refs.Store(1)
	return d
}

func (d *dirRef) acquire() { d.refs.Add(1) }

func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 {
		d.f.Close()
	}
}

// openRootDir opens the root's top directory.
func openRootDir(root *os.Root) (*dirRef, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	return newDirRef(f), nil
}

// sub opens the subdirectory name of d without following a symlink.
func (d *dirRef) sub(name string) (*dirRef, error) {
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return newDirRef(os.NewFile(uintptr(fd), name)), nil
}

// list returns d's entries (unsorted).
func (d *dirRef) list() ([]fs.DirEntry, error) {
	return d.f.ReadDir(-1)
}

// lstat returns the type of d's entry name without following a symlink.
func (d *dirRef) lstat(name string) (fs.FileMode, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		break
	}
	return modeOf(uint32(st.Mode)), nil
}

func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err == unix.EINTR {
			continue
		}
		return fd, err
	}
}

// errNotRegular: the entry was replaced by something that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// fileHandle is an open regular file.
type fileHandle struct{ fd int }

// openFile opens d's entry name if it is a regular file, never following a
// symlink and never blocking (a FIFO swapped in is refused after fstat).
func (d *dirRef) openFile(name string) (fileHandle, int64, error) {
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY)
	if err != nil {
		return fileHandle{-1}, 0, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return fileHandle{-1}, 0, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return fileHandle{-1}, 0, errNotRegular
	}
	return fileHandle{fd}, st.Size, nil
}

// readFull fills buf, stopping early only at end of file.
func (h fileHandle) readFull(buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := unix.Read(h.fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

func (h fileHandle) close() { unix.Close(h.fd) }
