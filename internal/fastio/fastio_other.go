//go:build !linux

package fastio

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Portable versions of the Linux fast paths (see fastio_linux.go), built
// on os.Root and os.Lstat.

// Dir is an open folder: files are made and opened relative to it.
type Dir struct{ root *os.Root }

// OpenDir opens root's own folder.
func OpenDir(root *os.Root) (*Dir, error) {
	r, err := root.OpenRoot(".")
	if err != nil {
		return nil, err
	}
	return &Dir{root: r}, nil
}

// Mkdir creates the folder name (one path element) inside d, mode 0755
// before the umask, and opens it.
func (d *Dir) Mkdir(name string) (*Dir, error) {
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
	return &Dir{root: r}, nil
}

// Close closes the folder.
func (d *Dir) Close() { d.root.Close() }

// Create makes the new file name (one path element) inside d for writing
// (O_EXCL, no symlink followed).
func (d *Dir) Create(name string, perm fs.FileMode) (*NewFile, error) {
	if err := checkElem(name); err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|NoFollow, perm)
	if err != nil {
		return nil, err
	}
	return &NewFile{f: f}, nil
}

// NewFile is a file being written, made by Dir.Create.
type NewFile struct{ f *os.File }

// Write writes all of p.
func (f *NewFile) Write(p []byte) (int, error) { return f.f.Write(p) }

// Finish gives the file mode perm (whatever the umask did), stamps it and
// closes it.
func (f *NewFile) Finish(perm fs.FileMode) (Stamp, error) {
	err := f.f.Chmod(perm) // umask must not change what the version says
	var fi fs.FileInfo
	if err == nil {
		fi, err = f.f.Stat()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Stamp{}, err
	}
	return StampOf(fi), nil
}

// Close closes the file.
func (f *NewFile) Close() error { return f.f.Close() }

// Lister lists one folder and lstats its entries relative to it.
type Lister struct {
	abs    string
	follow bool
}

// OpenLister opens folder abs; follow says whether a symlink there is
// followed (only for the checkout's own root, as os.ReadDir would).
func OpenLister(abs string, follow bool) (*Lister, error) {
	return &Lister{abs: abs, follow: follow}, nil
}

// Entries appends the folder's entries to ds, sorted by name.
func (l *Lister) Entries(ds []Dirent) ([]Dirent, error) {
	all, err := os.ReadDir(l.abs) // sorted by name
	for _, e := range all {
		ds = append(ds, Dirent{Name: e.Name(), Type: e.Type()})
	}
	return ds, err
}

// Lstat stats entry name of the folder without following a symlink.
func (l *Lister) Lstat(name string) (Stamp, error) {
	fi, err := os.Lstat(filepath.Join(l.abs, name))
	if err != nil {
		return Stamp{}, err
	}
	return StampOf(fi), nil
}

// Stat stats the folder itself.
func (l *Lister) Stat() (Stamp, error) {
	stat := os.Lstat
	if l.follow {
		stat = os.Stat
	}
	fi, err := stat(l.abs)
	if err != nil {
		return Stamp{}, err
	}
	return StampOf(fi), nil
}

// Close closes the folder.
func (l *Lister) Close() {}

// OpenBeneath is not available here (ok is false): callers open through
// os.Root.
func (d *Dir) OpenBeneath(rel string) (f *File, ok bool, err error) {
	return nil, false, nil
}

// File is a file opened by OpenBeneath (never, here).
type File struct{}

// Read reads nothing.
func (f *File) Read(p []byte) (int, error) { return 0, io.EOF }

// Stat stamps nothing.
func (f *File) Stat() (Stamp, error) { return Stamp{}, nil }

// Close closes nothing.
func (f *File) Close() error { return nil }

// StatRead is not available here: it returns errors.ErrUnsupported, and
// callers Lstat and read the file as they otherwise would.
func (l *Lister) StatRead(name string, maxBytes int, buf []byte) (Stamp, []byte, error) {
	return Stamp{}, nil, errors.ErrUnsupported
}
