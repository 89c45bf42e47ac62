package engine

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/thalix/tv/internal/fastio"
)

// beneath opens the files inside a folder without following a symlink:
// in one openat2 (RESOLVE_BENEATH, no symlinks) where the kernel has it,
// else through the os.Root, which walks a path one element at a time (an
// open and a close per folder on the way: about ten system calls for a
// file four folders deep).
type beneath struct {
	root *os.Root
	fast *fastio.Dir // nil: through root only
}

// newBeneath takes root over (beneath.close closes it) and opens its own
// folder for openat2 (fast stays nil where it cannot: root alone is used
// then).
func newBeneath(root *os.Root) beneath {
	b := beneath{root: root}
	if d, err := fastio.OpenDir(root); err == nil {
		b.fast = d
	}
	return b
}

// openRead opens the file at slash path p for reading and stats it.
func (b beneath) openRead(p string) (io.ReadCloser, fastio.Stamp, error) {
	if b.fast != nil {
		rf, ok, err := b.fast.OpenBeneath(p)
		if ok {
			if err != nil {
				return nil, fastio.Stamp{}, err
			}
			st, err := rf.Stat()
			if err != nil {
				rf.Close()
				return nil, fastio.Stamp{}, err
			}
			return rf, st, nil
		}
	}
	fh, err := b.root.OpenFile(filepath.FromSlash(p), os.O_RDONLY|fastio.NoFollow|fastio.NonBlock, 0)
	if err != nil {
		return nil, fastio.Stamp{}, err
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, fastio.Stamp{}, err
	}
	return fh, fastio.StampOf(fi), nil
}

// openRegular opens the regular file at slash path name (a valid fs
// path) and refuses anything else: a file swapped for a FIFO or device
// after it was listed is never read (a read could block forever).
func (b beneath) openRegular(name string) (fs.File, error) {
	f, st, err := b.openRead(name)
	if err != nil {
		return nil, err
	}
	if !fs.FileMode(st.Mode).IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is no longer a regular file", ErrConflict, name)
	}
	return asFile(f, name, st), nil
}

// asFile is a file openRead opened as an fs.File: a bare descriptor (an
// *os.File would register it with the poller, three more system calls
// per file) answers Stat from the stamp taken at open.
func asFile(f io.ReadCloser, name string, st fastio.Stamp) fs.File {
	if rf, ok := f.(*fastio.File); ok {
		return &statFile{File: rf, info: stampInfo{name: path.Base(name), st: st}}
	}
	return f.(*os.File)
}

// close closes the folder: fast and root (newBeneath takes root over).
func (b beneath) close() error {
	if b.fast != nil {
		b.fast.Close()
	}
	return b.root.Close()
}

// sourceFS is an import folder as the ICM validator reads it: its regular
// files through beneath, anything else (a folder) through the root's own
// fs.FS.
type sourceFS struct{ b beneath }

func (f sourceFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) || name == "." || f.b.fast == nil {
		return f.b.root.FS().Open(name)
	}
	fh, st, err := f.b.openRead(name)
	if err != nil {
		return nil, err
	}
	switch m := fs.FileMode(st.Mode); {
	case m.IsRegular():
		return asFile(fh, name, st), nil
	case m.IsDir():
		fh.Close()
		return f.b.root.FS().Open(name)
	default:
		fh.Close()
		return nil, fmt.Errorf("%w: %s is a %s, not a regular file", ErrConflict, name, typeText(m))
	}
}
