package hostconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/thalix/tv/atomicfile"
)

const (
	newFileMode fs.FileMode = 0o600 // new config files: ~/.claude.json holds other tools' secrets
	newDirMode  fs.FileMode = 0o700 // missing config directories
)

// errRaced: the file changed between tv's read and its rename.
var errRaced = errors.New("config file changed during the edit")

// beforeCommit, when set by a test, runs just before tv re-checks the file
// and renames over it.
var beforeCommit func(path string)

// configFile is one read of a host config file.
type configFile struct {
	path    string      // the selected path
	real    string      // the path written: symlinks resolved
	symlink bool        // path is a symlink
	exists  bool        // the file existed when read
	data    []byte      // its content
	mode    fs.FileMode // its permission bits, or newFileMode
}

// retry reads the file and runs op, again when op's commit raced with
// another writer, up to MaxWriteAttempts times.
func retry(path string, op func(cf *configFile) error) error {
	for attempt := 1; ; attempt++ {
		cf, err := readConfig(path)
		if err != nil {
			return err
		}
		err = op(cf)
		if !errors.Is(err, errRaced) {
			return err
		}
		if attempt >= MaxWriteAttempts {
			return fmt.Errorf("%s: %w (%d attempts, MaxWriteAttempts); close the program that is writing it and retry",
				path, ErrConcurrentEdit, MaxWriteAttempts)
		}
	}
}

func readConfig(path string) (*configFile, error) {
	cf := &configFile{path: path, real: path, mode: newFileMode}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cf, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, fmt.Errorf("%s is a symbolic link that cannot be resolved: %w", path, err)
		}
		cf.real, cf.symlink = real, true
	}
	data, fi, err := readLimited(cf.real)
	if err != nil {
		return nil, err
	}
	cf.exists, cf.data, cf.mode = true, data, fi.Mode().Perm()
	return cf, nil
}

// readLimited reads a regular file of at most MaxConfigBytes.
func readLimited(name string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", name)
	}
	if fi.Size() > MaxConfigBytes {
		return nil, nil, fmt.Errorf("%s: %w", name, tooLarge(int(min(fi.Size(), 1<<40))))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > MaxConfigBytes {
		return nil, nil, fmt.Errorf("%s: %w", name, tooLarge(len(data)))
	}
	return data, fi, nil
}

// unchanged reports errRaced if the file no longer holds what cf read.
func unchanged(cf *configFile) error {
	if !cf.exists {
		if _, err := os.Lstat(cf.real); !errors.Is(err, fs.ErrNotExist) {
			return errRaced
		}
		return nil
	}
	data, _, err := readLimited(cf.real)
	if err != nil || !bytes.Equal(data, cf.data) {
		return errRaced
	}
	return nil
}

// commit replaces the file with out atomically (atomicfile: temp file in
// the same directory, fsync, re-check, rename, directory fsync), keeping
// its mode; with remove it deletes the file instead, unless the config
// path is a symlink, which gets out written through it.
func commit(cf *configFile, out []byte, remove bool) error {
	dir := filepath.Dir(cf.real)
	if remove && !cf.symlink {
		if beforeCommit != nil {
			beforeCommit(cf.real)
		}
		if err := unchanged(cf); err != nil {
			return err
		}
		if err := os.Remove(cf.real); err != nil {
			return err
		}
		return atomicfile.SyncDir(dir)
	}
	return atomicfile.WriteFile(cf.real, out, atomicfile.Options{
		Mode:        cf.mode,
		MkdirMode:   newDirMode,
		TempPattern: "." + filepath.Base(cf.real) + ".tv-*.tmp",
		BeforeRename: func() error {
			if beforeCommit != nil {
				beforeCommit(cf.real)
			}
			return unchanged(cf)
		},
	})
}
