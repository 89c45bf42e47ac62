//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package textsearch

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"sync/atomic"
)

// dirRef is a directory inside the root, addressed by path. On this
// platform every open goes through the os.Root by path and is checked with
// Lstat before and Stat after (os.SameFile), so a symlink is never used.
type dirRef struct {
	root *os.Root
	rel  string // "" for the root
	refs atomic.Int32
}

func newDirRef(root *os.Root, rel string) *dirRef {
	d := &dirRef{root: root, rel: rel}
	d.refs.Store(1)
	return d
}

func (d *dirRef) acquire() { d.refs.Add(1) }
func (d *dirRef) release() { d.refs.Add(-1) }

func openRootDir(root *os.Root) (*dirRef, error) { return newDirRef(root, ""), nil }

func (d *dirRef) join(name string) string {
	if d.rel == "" {
		return name
	}
	return path.Join(d.rel, name)
}

func (d *dirRef) sub(name string) (*dirRef, error) {
	fi, err := d.root.Lstat(d.join(name))
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a directory")}
	}
	return newDirRef(d.root, d.join(name)), nil
}

func (d *dirRef) list() ([]fs.DirEntry, error) {
	name := d.rel
	if name == "" {
		name = "."
	}
	f, err := d.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (d *dirRef) lstat(name string) (fs.FileMode, error) {
	fi, err := d.root.Lstat(d.join(name))
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

var errNotRegular = errors.New("not a regular file")

type fileHandle struct{ f *os.File }

func (d *dirRef) openFile(name string) (fileHandle, int64, error) {
	p := d.join(name)
	fi, err := d.root.Lstat(p)
	if err != nil {
		return fileHandle{}, 0, err
	}
	if !fi.Mode().IsRegular() {
		return fileHandle{}, 0, errNotRegular
	}
	f, err := d.root.Open(p)
	if err != nil {
		return fileHandle{}, 0, err
	}
	fi2, err := f.Stat()
	if err != nil || !os.SameFile(fi, fi2) {
		f.Close()
		return fileHandle{}, 0, errNotRegular
	}
	return fileHandle{f}, fi2.Size(), nil
}

func (h fileHandle) readFull(buf []byte) (int, error) {
	n, err := io.ReadFull(h.f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return n, err
}

func (h fileHandle) close() { h.f.Close() }
