package atomicfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Durability says which fsyncs a replacement makes.
type Durability int

const (
	// SyncAll fsyncs the new file before the rename and the directory
	// after it: once the call returns, the new content survives a power
	// loss. The default.
	SyncAll Durability = iota
	// SyncData fsyncs the new file before the rename but not the
	// directory: after a power loss the file holds the old or the new
	// content, complete, but the rename may be lost.
	SyncData
	// SyncNone makes no fsync, for caches that detect a torn file
	// themselves. The old file is removed before the rename: ext4 flushes
	// a file renamed over another (auto_da_alloc), which would cost the
	// fsync saved; a reader in between finds no file.
	SyncNone
)

// Options say how a file is replaced. The zero value replaces with mode
// 0600, a hidden temporary name beside the target, and SyncAll.
type Options struct {
	// Mode is the permission bits of the new file, set exactly (the
	// umask does not apply); 0 means 0600.
	Mode fs.FileMode
	// Sync is the durability of the replacement.
	Sync Durability
	// MkdirMode, when not zero, creates missing parent directories with
	// this mode (path-based calls only).
	MkdirMode fs.FileMode
	// TempPattern names the temporary file, as os.CreateTemp's pattern
	// (the last "*" becomes a random string). Empty means
	// ".<name>.*.tmp", a hidden name beside the target.
	TempPattern string
	// BeforeRename, when set, runs after the new file is written and
	// synced, just before it is renamed over the target. Its error
	// aborts the replacement (returned as is), leaving the target as it
	// was: the place to re-check that nobody else changed it.
	BeforeRename func() error
}

// Write replaces path with data, created with mode and fully synced.
// Missing parent directories are created with mode 0700.
func Write(path string, data []byte, mode fs.FileMode) error {
	return WriteFile(path, data, Options{Mode: mode, MkdirMode: 0o700})
}

// WriteFile replaces path with data as opt says.
func WriteFile(path string, data []byte, opt Options) error {
	dir := filepath.Dir(path)
	if opt.MkdirMode != 0 {
		if err := os.MkdirAll(dir, opt.MkdirMode); err != nil {
			return err
		}
	}
	return replace(pathDir(dir), filepath.Base(path), opt, writeAll(data))
}

func writeAll(data []byte) func(w io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// WriteFunc replaces path with what fill writes, through a buffer, so a
// writer of a large file need not hold it whole. An error from fill
// aborts the replacement and is returned as is.
func WriteFunc(path string, opt Options, fill func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	if opt.MkdirMode != 0 {
		if err := os.MkdirAll(dir, opt.MkdirMode); err != nil {
			return err
		}
	}
	return replace(pathDir(dir), filepath.Base(path), opt, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, fillBuffer)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// fillBuffer is WriteFunc's buffer size.
const fillBuffer = 64 << 10

// WriteRoot replaces the file name of the directory root with data as opt
// says. name must be a single path component (no separator): the
// temporary file sits beside it, and the rename stays inside root.
func WriteRoot(root *os.Root, name string, data []byte, opt Options) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/`+string(filepath.Separator)) {
		return &fs.PathError{Op: "atomicfile", Path: name, Err: errNotName}
	}
	return replace(rootDir{root}, name, opt, writeAll(data))
}

// errNotName: WriteRoot was given a path, not a name.
var errNotName = errors.New("not a single file name")

// SyncDir fsyncs a directory so that a rename, creation or removal inside
// it is durable. Windows cannot fsync a directory (its renames are durable
// on their own): there it does nothing.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// directory is where a replacement happens: a path or an os.Root.
type directory interface {
	create(name string) (*os.File, error)
	rename(from, to string) error
	remove(name string) error
	sync() error
}

type pathDir string

func (d pathDir) create(name string) (*os.File, error) {
	return os.OpenFile(filepath.Join(string(d), name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}
func (d pathDir) rename(from, to string) error {
	return os.Rename(filepath.Join(string(d), from), filepath.Join(string(d), to))
}
func (d pathDir) remove(name string) error { return os.Remove(filepath.Join(string(d), name)) }
func (d pathDir) sync() error              { return SyncDir(string(d)) }

type rootDir struct{ *os.Root }

func (d rootDir) create(name string) (*os.File, error) {
	return d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}
func (d rootDir) rename(from, to string) error { return d.Rename(from, to) }
func (d rootDir) remove(name string) error     { return d.Remove(name) }
func (d rootDir) sync() error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := d.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// maxTempTries bounds the attempts at a fresh temporary name.
const maxTempTries = 100

// replace is the one sequence: a temporary file beside the target,
// written, chmodded and (per opt.Sync) fsynced, BeforeRename, renamed over
// the target, the directory fsynced. Any failure removes the temporary
// file and leaves the target as it was.
func replace(d directory, name string, opt Options, fill func(w io.Writer) error) error {
	f, tmp, err := createTemp(d, name, opt.TempPattern)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			d.remove(tmp)
		}
	}()
	if err := writeTemp(f, opt, fill); err != nil {
		return err
	}
	if opt.BeforeRename != nil {
		if err := opt.BeforeRename(); err != nil {
			return err
		}
	}
	if opt.Sync == SyncNone {
		if err := d.remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := d.rename(tmp, name); err != nil {
		return err
	}
	renamed = true
	if opt.Sync == SyncAll {
		return d.sync()
	}
	return nil
}

// writeTemp fills f, sets its mode, syncs it unless SyncNone, and closes
// it.
func writeTemp(f *os.File, opt Options, fill func(w io.Writer) error) error {
	mode := opt.Mode
	if mode == 0 {
		mode = 0o600
	}
	err := fill(f)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil && opt.Sync != SyncNone {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// createTemp creates a new file named by pattern (default ".<name>.*.tmp")
// in d, retrying on a name that exists.
func createTemp(d directory, name, pattern string) (*os.File, string, error) {
	if pattern == "" {
		pattern = "." + name + ".*.tmp"
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for try := 0; ; try++ {
		var rnd [6]byte
		rand.Read(rnd[:])
		tmp := prefix + hex.EncodeToString(rnd[:]) + suffix
		f, err := d.create(tmp)
		if err == nil {
			return f, tmp, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == maxTempTries {
			return nil, "", err
		}
	}
}
