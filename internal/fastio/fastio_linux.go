//go:build linux

package fastio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Linux: one system call per file (see the package doc).

// Dir is an open folder: files are made and opened relative to it.
type Dir struct{ fd int }

// OpenDir opens root's own folder.
func OpenDir(root *os.Root) (*Dir, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, &fs.PathError{Op: "dup", Path: root.Name(), Err: err}
	}
	unix.CloseOnExec(fd)
	return &Dir{fd: fd}, nil
}

// Mkdir creates the folder name (one path element) inside d, mode 0755
// before the umask, and opens it.
func (d *Dir) Mkdir(name string) (*Dir, error) {
	if err := checkElem(name); err != nil {
		return nil, err
	}
	if err := ignoringEINTR(func() error { return unix.Mkdirat(d.fd, name, 0o755) }); err != nil {
		return nil, &fs.PathError{Op: "mkdirat", Path: name, Err: err}
	}
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return &Dir{fd: fd}, nil
}

// Close closes the folder.
func (d *Dir) Close() { unix.Close(d.fd) }

// Create makes the new file name (one path element) inside d for writing
// (O_EXCL, no symlink followed).
func (d *Dir) Create(name string, perm fs.FileMode) (*NewFile, error) {
	if err := checkElem(name); err != nil {
		return nil, err
	}
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &NewFile{fd: fd, name: name}, nil
}

// NewFile is a file being written, made by Dir.Create.
type NewFile struct {
	fd   int
	name string
}

// Write writes all of p (retrying short writes).
func (f *NewFile) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k, err := unix.Write(f.fd, p[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "write", Path: f.name, Err: err}
		}
		n += k
	}
	return n, nil
}

// Finish gives the file mode perm (whatever the umask did), stamps it and
// closes it.
func (f *NewFile) Finish(perm fs.FileMode) (Stamp, error) {
	st, err := f.stat()
	if err == nil && fs.FileMode(st.Mode)&fs.ModePerm != perm {
		if err = ignoringEINTR(func() error { return unix.Fchmod(f.fd, uint32(perm)) }); err == nil {
			st, err = f.stat()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return st, err
}

func (f *NewFile) stat() (Stamp, error) {
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstat(f.fd, &st) }); err != nil {
		return Stamp{}, &fs.PathError{Op: "fstat", Path: f.name, Err: err}
	}
	return stampOfStat(&st), nil
}

// Close closes the file (again: nothing).
func (f *NewFile) Close() error {
	if f.fd < 0 {
		return nil
	}
	err := unix.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}

// Lister lists one folder and lstats its entries relative to it.
type Lister struct {
	fd  int
	abs string
	// cname holds the name being stat'ed, NUL-terminated for the kernel
	// (reused: x/sys/unix would allocate a copy per call).
	cname []byte
}

// OpenLister opens folder abs; follow says whether a symlink there is
// followed (only for the checkout's own root, as os.ReadDir would).
func OpenLister(abs string, follow bool) (*Lister, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Open(abs, flags, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	return &Lister{fd: fd, abs: abs}, nil
}

// Entries appends the folder's entries to ds, sorted by name, without "."
// and "..". It reads the raw directory entries itself: the names of one
// read are copied into one allocation of just their bytes (not allocated
// one by one as os.File.ReadDir does, nor cut from a copy of the whole
// read, whose record headers would stay alive with them: at 100k files
// that was 13 MiB of a walk-test's 55 MiB live heap).
func (l *Lister) Entries(ds []Dirent) ([]Dirent, error) {
	bufp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bufp)
	buf := *bufp
	fd := l.fd
	for {
		var n int
		err := ignoringEINTR(func() (err error) {
			n, err = unix.Getdents(fd, buf)
			return err
		})
		if err != nil {
			return ds, &fs.PathError{Op: "readdirent", Path: l.abs, Err: err}
		}
		if n <= 0 {
			break
		}
		count, total := 0, 0
		eachDirent(buf[:n], func(_ byte, name []byte) error {
			count++
			total += len(name)
			return nil
		})
		names := make([]byte, 0, total) // never grows: the names below point into it
		ds = slices.Grow(ds, count)
		err = eachDirent(buf[:n], func(typ byte, raw []byte) error {
			at := len(names)
			names = append(names, raw...)
			name := unsafe.String(&names[at], len(raw))
			t, ok := direntType(typ)
			if !ok { // the file system does not say: ask
				var st unix.Stat_t
				err := ignoringEINTR(func() error { return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
				if errors.Is(err, unix.ENOENT) {
					return nil // removed while listing
				}
				if err != nil {
					return &fs.PathError{Op: "lstat", Path: filepath.Join(l.abs, name), Err: err}
				}
				t = fileModeOfStat(uint32(st.Mode)).Type()
			}
			ds = append(ds, Dirent{Name: name, Type: t})
			return nil
		})
		if err != nil {
			return ds, err
		}
	}
	slices.SortFunc(ds, func(a, b Dirent) int { return strings.Compare(a.Name, b.Name) })
	return ds, nil
}

// eachDirent calls f with the type and name of every record of b, the
// bytes of one getdents64 read, but "." and "..", until f fails.
func eachDirent(b []byte, f func(typ byte, name []byte) error) error {
	for off := 0; off+19 <= len(b); {
		// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
		ino := binary.NativeEndian.Uint64(b[off:])
		reclen := int(binary.NativeEndian.Uint16(b[off+16:]))
		typ := b[off+18]
		if reclen < 19 || off+reclen > len(b) {
			break
		}
		name := b[off+19 : off+reclen]
		if end := bytes.IndexByte(name, 0); end >= 0 {
			name = name[:end]
		}
		off += reclen
		if ino == 0 || len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		if err := f(typ, name); err != nil {
			return err
		}
	}
	return nil
}

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// direntType maps a dirent d_type to a file type; ok is false for
// DT_UNKNOWN.
func direntType(t byte) (fs.FileMode, bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// Lstat stats entry name of the folder without following a symlink.
//
// It calls the kernel directly, as a raw system call: an lstat of a name
// in an open folder does not block on anything but the disk, and telling
// the Go scheduler about each of a tree's 10k+ calls (so that it may hand
// the processor to another thread meanwhile) cost more than the calls on
// a busy machine: a thread wake-up per call that outlived a time slice.
func (l *Lister) Lstat(name string) (Stamp, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return Stamp{}, &fs.PathError{Op: "lstat", Path: filepath.Join(l.abs, name), Err: unix.EINVAL}
	}
	l.cname = append(append(l.cname[:0], name...), 0)
	var st unix.Stat_t
	e := rawLstatAt(l.fd, &l.cname[0], &st)
	for e == unix.EINTR {
		e = rawLstatAt(l.fd, &l.cname[0], &st)
	}
	if e != 0 {
		return Stamp{}, &fs.PathError{Op: "lstat", Path: filepath.Join(l.abs, name), Err: e}
	}
	return stampOfStat(&st), nil
}

// Stat stats the open folder itself.
func (l *Lister) Stat() (Stamp, error) {
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstat(l.fd, &st) }); err != nil {
		return Stamp{}, &fs.PathError{Op: "fstat", Path: l.abs, Err: err}
	}
	return stampOfStat(&st), nil
}

// Close closes the folder.
func (l *Lister) Close() { unix.Close(l.fd) }

// stampOfStat is StampOf for a raw stat: the same fields, the mode as
// os.FileMode encodes it.
func stampOfStat(st *unix.Stat_t) Stamp {
	return Stamp{
		Size:  st.Size,
		Mtime: st.Mtim.Nano(),
		Ctime: st.Ctim.Nano(),
		Ino:   st.Ino,
		Mode:  uint32(fileModeOfStat(uint32(st.Mode))),
	}
}

// fileModeOfStat converts st_mode as the os package does.
func fileModeOfStat(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != unix.EINTR {
			return err
		}
	}
}

// OpenBeneath opens the file at slash path rel below d for reading, not
// blocking on a FIFO, in one openat2 call that refuses any symlink
// component and any escape from d. ok is false when the kernel has no
// openat2 (before Linux 5.6, or filtered): the caller then opens through
// os.Root. The caller checks the file is regular (File.Stat).
func (d *Dir) OpenBeneath(rel string) (f *File, ok bool, err error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	var fd int
	err = ignoringEINTR(func() (err error) {
		fd, err = openat2(d.fd, rel, &how)
		return err
	})
	switch {
	case err == unix.ENOSYS || err == unix.EPERM:
		return nil, false, nil
	case err != nil:
		return nil, true, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return &File{fd: fd, name: rel}, true, nil
}

// cnames holds the NUL-terminated names fastio passes to the kernel
// (withCName):
// unix.Openat2 allocates one per call, ~470 KB of fresh memory for a tv
// check that reads 10k Markdown files (a page fault per 4 KiB here).
var cnames = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// openat2 is unix.Openat2 without an allocation per call (withCName),
// and raw where rawOpenat2 is.
func openat2(dirfd int, rel string, how *unix.OpenHow) (fd int, err error) {
	err = withCName(rel, func(c *byte) (e unix.Errno) {
		fd, e = rawOpenat2(dirfd, c, how)
		return e
	})
	return fd, err
}

// File is a file opened for reading by OpenBeneath.
type File struct {
	fd   int
	name string
}

// Read reads as io.Reader does.
func (f *File) Read(p []byte) (int, error) {
	for {
		n, e := rawRead(f.fd, p)
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: e}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Stat stamps the open file.
func (f *File) Stat() (Stamp, error) {
	var st unix.Stat_t
	e := rawFstat(f.fd, &st)
	for e == unix.EINTR {
		e = rawFstat(f.fd, &st)
	}
	if e != 0 {
		return Stamp{}, &fs.PathError{Op: "fstat", Path: f.name, Err: e}
	}
	return stampOfStat(&st), nil
}

// Close closes the file.
func (f *File) Close() error {
	if e := rawClose(f.fd); e != 0 {
		return e
	}
	return nil
}

// StatRead opens name, one entry of the listed folder, for reading —
// never through a symlink, without blocking on a FIFO — stamps it, and,
// when it is a regular file, reads it into buf (grown as needed): as it
// was when stamped (its stamped size, though it grew since), and at most
// maxBytes+1 bytes, so the caller can tell a longer file was cut. A file
// stamped empty is read to its end (up to maxBytes+1 bytes), as some file
// systems stamp a file they generate. It is an lstat and a read in four
// system calls (open, fstat, read, close), where an lstat and then an
// open by path from the tree's root took five and a path walk. An error
// opening it (a symlink: ELOOP; a file that cannot be read) is returned
// as is; the caller may Lstat instead.
func (l *Lister) StatRead(name string, maxBytes int, buf []byte) (Stamp, []byte, error) {
	f, err := OpenIn(l.fd, name)
	if err != nil {
		return Stamp{}, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !fs.FileMode(st.Mode).IsRegular() {
		return st, nil, err
	}
	limit, first := maxBytes+1, statReadFirst
	if st.Size > 0 && st.Size < int64(limit) {
		limit, first = int(st.Size), int(st.Size)
	}
	buf = buf[:0]
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(limit, max(first, 2*len(buf)))-len(buf))
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) || n == 0 && err == nil {
			break
		}
		if err != nil {
			return st, nil, err
		}
	}
	return st, buf, nil
}

// statReadFirst is how much StatRead reads first of a file stamped empty.
const statReadFirst = 4 << 10
