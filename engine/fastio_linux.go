//go:build linux

package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// Speed helpers for checkout and scan on Linux: one syscall per file.
// os.Root resolves a path one component at a time (an openat and a close
// per folder of the path) and every *os.File it opens costs four fcntl and
// a refused epoll_ctl; on a tree of 10k+ files those syscalls are most of
// the time. Here each folder is opened once and files are created and
// stat'ed relative to it by a single name, never following a symlink.

// dirHandle is an open folder of a checkout being written.
type dirHandle struct{ fd int }

// openRootDir opens root's own folder.
func openRootDir(root *os.Root) (*dirHandle, error) {
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
	return &dirHandle{fd: fd}, nil
}

// mkdir creates the folder name (one path element) inside d and opens it.
func (d *dirHandle) mkdir(name string) (*dirHandle, error) {
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
	return &dirHandle{fd: fd}, nil
}

func (d *dirHandle) close() { unix.Close(d.fd) }

// create makes the new file name inside d (O_EXCL, no symlink followed).
func (d *dirHandle) create(name string, perm fs.FileMode) (*newFile, error) {
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
	return &newFile{fd: fd, name: name}, nil
}

// newFile is a file being written by checkout.
type newFile struct {
	fd   int
	name string
}

func (f *newFile) Write(p []byte) (int, error) {
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

// finish gives the file mode perm (whatever the umask did), stamps it and
// closes it.
func (f *newFile) finish(perm fs.FileMode) (fileStamp, error) {
	st, err := f.stat()
	if err == nil && fs.FileMode(st.Mode)&fs.ModePerm != perm {
		if err = ignoringEINTR(func() error { return unix.Fchmod(f.fd, uint32(perm)) }); err == nil {
			st, err = f.stat()
		}
	}
	if cerr := f.close(); err == nil {
		err = cerr
	}
	return st, err
}

func (f *newFile) stat() (fileStamp, error) {
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstat(f.fd, &st) }); err != nil {
		return fileStamp{}, &fs.PathError{Op: "fstat", Path: f.name, Err: err}
	}
	return stampOfStat(&st), nil
}

func (f *newFile) close() error {
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

// dirLister lists one folder and lstats its entries relative to it.
type dirLister struct{ f *os.File }

// openDirLister opens folder abs; follow says whether a symlink there is
// followed (only for the checkout's own root, as os.ReadDir would).
func openDirLister(abs string, follow bool) (*dirLister, error) {
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
	// A blocking descriptor: os.NewFile does not register it with the
	// poller (no fcntl/epoll round trips).
	return &dirLister{f: os.NewFile(uintptr(fd), abs)}, nil
}

func (l *dirLister) entries() ([]fs.DirEntry, error) { return l.f.ReadDir(-1) }

// lstat stats entry name of the folder without following a symlink.
func (l *dirLister) lstat(name string) (fileStamp, error) {
	var st unix.Stat_t
	err := ignoringEINTR(func() error { return unix.Fstatat(int(l.f.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return fileStamp{}, &fs.PathError{Op: "lstat", Path: filepath.Join(l.f.Name(), name), Err: err}
	}
	return stampOfStat(&st), nil
}

func (l *dirLister) close() { l.f.Close() }

// stampOfStat is stampOf for a raw stat: the same fields, the mode as
// os.FileMode encodes it.
func stampOfStat(st *unix.Stat_t) fileStamp {
	return fileStamp{
		Size:  st.Size,
		Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
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
