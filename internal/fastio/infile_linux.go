package fastio

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Reads of one file directly in a folder the caller keeps open (wsfs's
// held workspace root, which tv mcp local reads from on every call): an
// lstat, an open and an fstat on that folder's descriptor, then reads up
// to the size fstat gave, all raw system calls with the name in a pooled
// buffer. An os.File per read cost a failing poller registration, a
// finalizer and a second read to find end of file.

// Info is the fs.FileInfo of a raw stat, its mode as the os package
// encodes it.
type Info struct {
	name string
	st   unix.Stat_t
}

// Name is the name the file was stat'ed by.
func (i *Info) Name() string { return i.name }

// Size is the file's size in bytes.
func (i *Info) Size() int64 { return i.st.Size }

// Mode is the file's type and permission bits.
func (i *Info) Mode() fs.FileMode { return fileModeOfStat(uint32(i.st.Mode)) }

// ModTime is the file's modification time.
func (i *Info) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }

// IsDir reports whether the file is a folder.
func (i *Info) IsDir() bool { return i.Mode().IsDir() }

// Sys is the raw stat.
func (i *Info) Sys() any { return &i.st }

// Same reports whether i and o describe one file (device and inode).
func (i *Info) Same(o *Info) bool { return i.st.Dev == o.st.Dev && i.st.Ino == o.st.Ino }

// withCName calls f with name as a NUL-terminated string from the pool.
func withCName(name string, f func(*byte) unix.Errno) error {
	if strings.IndexByte(name, 0) >= 0 {
		return unix.EINVAL
	}
	bp := cnames.Get().(*[]byte)
	b := append(append((*bp)[:0], name...), 0)
	e := f(&b[0])
	for e == unix.EINTR {
		e = f(&b[0])
	}
	*bp = b
	cnames.Put(bp)
	if e != 0 {
		return e
	}
	return nil
}

// LstatIn lstats name, one path element, in the open folder dirfd,
// never following a symlink.
func LstatIn(dirfd int, name string) (*Info, error) {
	i := &Info{name: name}
	if err := withCName(name, func(c *byte) unix.Errno { return rawLstatAt(dirfd, c, &i.st) }); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return i, nil
}

// OpenIn opens name, one path element, in the open folder dirfd for
// reading: never through a symlink, and without blocking on a FIFO.
func OpenIn(dirfd int, name string) (*File, error) {
	var fd int
	err := withCName(name, func(c *byte) (e unix.Errno) {
		fd, e = rawOpenat(dirfd, c, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
		return e
	})
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return &File{fd: fd, name: name}, nil
}

// Info fstats the open file.
func (f *File) Info() (*Info, error) {
	i := &Info{name: f.name}
	e := rawFstat(f.fd, &i.st)
	for e == unix.EINTR {
		e = rawFstat(f.fd, &i.st)
	}
	if e != 0 {
		return nil, &fs.PathError{Op: "fstat", Path: f.name, Err: e}
	}
	return i, nil
}

// ReadSized reads the regular file f whose fstat size is size: up to
// that size, or to its end when it shrank, or on past it (at most max+1
// bytes; max <= 0: no limit) when the first reads found more, so that
// the caller can tell a file that grew.
func (f *File) ReadSized(size, max int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		want := cap(b) - len(b)
		if max > 0 && int64(len(b)+want) > max+1 {
			want = int(max + 1 - int64(len(b)))
		}
		n, err := f.Read(b[len(b) : len(b)+want])
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		b = b[:len(b)+n]
		if n == 0 || int64(len(b)) == size || max > 0 && int64(len(b)) > max {
			return b, nil
		}
	}
}
