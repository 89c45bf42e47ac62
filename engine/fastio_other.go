//go:build !linux

package engine

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Portable versions of the Linux speed helpers (see fastio_linux.go),
// built on os.Root and os.Lstat.

type dirHandle struct{ root *os.Root }

func openRootDir(root *os.Root) (*dirHandle, error) {
	r, err := root.OpenRoot(".")
	if err != nil {
		return nil, err
	}
	return &dirHandle{root: r}, nil
}

func (d *dirHandle) mkdir(name string) (*dirHandle, error) {
	if err := checkElem(name); err != nil {
		return nil, err
	}
	if err := d.root.Mkdir(name, 0o755); err != nil {
		return nil, err
	}
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &dirHandle{root: r}, nil
}

func (d *dirHandle) close() { d.root.Close() }

func (d *dirHandle) create(name string, perm fs.FileMode) (*newFile, error) {
	if err := checkElem(name); err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, perm)
	if err != nil {
		return nil, err
	}
	return &newFile{f: f}, nil
}

type newFile struct{ f *os.File }

func (f *newFile) Write(p []byte) (int, error) { return f.f.Write(p) }

func (f *newFile) finish(perm fs.FileMode) (fileStamp, error) {
	err := f.f.Chmod(perm) // umask must not change what the version says
	var fi fs.FileInfo
	if err == nil {
		fi, err = f.f.Stat()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fileStamp{}, err
	}
	return stampOf(fi), nil
}

func (f *newFile) close() error { return f.f.Close() }

type dirLister struct {
	abs    string
	follow bool
}

func openDirLister(abs string, follow bool) (*dirLister, error) {
	return &dirLister{abs: abs, follow: follow}, nil
}

func (l *dirLister) entries(ds []dirent) ([]dirent, error) {
	all, err := os.ReadDir(l.abs) // sorted by name
	for _, e := range all {
		ds = append(ds, dirent{name: e.Name(), typ: e.Type()})
	}
	return ds, err
}

func (l *dirLister) lstat(name string) (fileStamp, error) {
	fi, err := os.Lstat(filepath.Join(l.abs, name))
	if err != nil {
		return fileStamp{}, err
	}
	return stampOf(fi), nil
}

func (l *dirLister) stat() (fileStamp, error) {
	stat := os.Lstat
	if l.follow {
		stat = os.Stat
	}
	fi, err := stat(l.abs)
	if err != nil {
		return fileStamp{}, err
	}
	return stampOf(fi), nil
}

func (l *dirLister) close() {}

// openBeneath is not available here: callers open through os.Root.
func (d *dirHandle) openBeneath(rel string) (f *rawFile, ok bool, err error) {
	return nil, false, nil
}

type rawFile struct{}

func (f *rawFile) Read(p []byte) (int, error) { return 0, io.EOF }
func (f *rawFile) stat() (fileStamp, error)   { return fileStamp{}, nil }
func (f *rawFile) Close() error               { return nil }
