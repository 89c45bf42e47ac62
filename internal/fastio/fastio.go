package fastio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// ErrNotElement is returned for a name that is not exactly one path
// element ("", ".", "..", or holding a slash, backslash or NUL).
var ErrNotElement = errors.New("not a file or folder name")

// Stamp identifies a version of a file without reading it: what the stat
// cache compares to decide a file is unchanged.
type Stamp struct {
	Size  int64
	Mtime int64 // ns
	// Ctime (ns) changes on every write and on any mtime reset (touch -d,
	// cp -p, rsync -t, tar x), so a same-size edit whose mtime was put back
	// is still seen. 0 where the platform has none.
	Ctime int64
	Ino   uint64 // 0 where the platform has none
	Mode  uint32 // as os.FileMode encodes it
}

// StampOf is the stamp of fi.
func StampOf(fi os.FileInfo) Stamp {
	s := Stamp{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode())}
	s.Ino, s.Ctime = inodeCtime(fi)
	return s
}

// FileID identifies a file that only grows, such as a log: its inode and
// size (both zero when there is no file).
type FileID struct {
	Ino  uint64
	Size int64
}

// IDOf is fi's inode and size.
func IDOf(fi os.FileInfo) FileID {
	ino, _ := inodeCtime(fi)
	return FileID{Ino: ino, Size: fi.Size()}
}

// Dirent is one entry of a folder listing: its name and type bits.
type Dirent struct {
	Name string
	Type fs.FileMode
}

// checkElem refuses a name that is not exactly one path element, before
// it is used relative to an open folder.
func checkElem(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("%q is %w", name, ErrNotElement)
	}
	return nil
}
