package wsfs

import (
	"fmt"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// readHeld is ReadFile of name directly in the held directory d, with the
// same checks and messages as openRegular and ReadFile: an lstat
// (fstatat, no following) must show a regular file, the open is
// O_NOFOLLOW|O_NONBLOCK, and fstat must show the same regular file. The
// descriptors are used directly (no os.File: no poller registration, no
// finalizer), and the read stops at the size fstat reported, where a
// regular file ends, instead of reading once more to see end of file. ok
// is false when d cannot be used; the caller then reads the usual way.
func readHeld(d *os.File, name, clean string, max int64) (b []byte, st fs.FileInfo, err error, ok bool) {
	rc, cerr := d.SyscallConn()
	if cerr != nil {
		return nil, nil, nil, false
	}
	cerr = rc.Control(func(dirfd uintptr) { b, st, err = readAt(int(dirfd), name, clean, max) })
	if cerr != nil {
		return nil, nil, nil, false
	}
	return b, st, err, true
}

func readAt(dirfd int, name, clean string, max int64) ([]byte, fs.FileInfo, error) {
	var lst unix.Stat_t
	if err := retryEINTR(func() error { return unix.Fstatat(dirfd, name, &lst, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", Show(clean), statErr(name, &fs.PathError{Op: "lstat", Path: name, Err: err}))
	}
	if err := checkRegular(statInfo{name, lst}, clean); err != nil {
		return nil, nil, err
	}
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: opening %s: %v", ErrChanged, Show(clean), &fs.PathError{Op: "openat", Path: name, Err: err})
	}
	defer unix.Close(fd)
	var fst unix.Stat_t
	if err := retryEINTR(func() error { return unix.Fstat(fd, &fst) }); err != nil || fst.Dev != lst.Dev || fst.Ino != lst.Ino || fst.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, nil, fmt.Errorf("%w: %s was replaced while it was being opened", ErrChanged, Show(clean))
	}
	st := statInfo{name, fst}
	if err := checkSize(st, clean, max); err != nil {
		return nil, nil, err
	}
	b, err := readFD(fd, fst.Size, max)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", Show(clean), err)
	}
	if err := checkGrown(b, clean, max); err != nil {
		return nil, nil, err
	}
	return b, st, nil
}

// readFD reads the regular file fd whose fstat size is size: up to that
// size, or to end of file when it shrank, or on past it (at most max+1
// bytes; max <= 0: no limit) when the first reads found more.
func readFD(fd int, size, max int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		want := cap(b) - len(b)
		if max > 0 && int64(len(b)+want) > max+1 {
			want = int(max + 1 - int64(len(b)))
		}
		var n int
		err := retryEINTR(func() (err error) {
			n, err = unix.Read(fd, b[len(b):len(b)+want])
			return err
		})
		if err != nil {
			return nil, err
		}
		b = b[:len(b)+n]
		if n == 0 || int64(len(b)) == size || max > 0 && int64(len(b)) > max {
			return b, nil
		}
	}
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// statInfo is an fs.FileInfo of a stat result, with the mode bits as
// os.Lstat reports them.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.st.Size }
func (s statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s statInfo) Sys() any           { return &s.st }

func (s statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
