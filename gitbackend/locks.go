package gitbackend

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleLock is a lock file old enough to be the leftover of a killed
// process.
type StaleLock struct {
	Path string        `json:"path"`
	Age  time.Duration `json:"age_ns"`
}

// StaleLocks lists `*.lock` files under the vault's refs/ and its
// packed-refs.lock that are at least minAge old. A live tv or git writer
// holds a ref lock for milliseconds (RefLockTimeout is how long others
// wait for it), so a lock older than StaleLockAge belongs to a process
// that died.
func StaleLocks(gitDir string, minAge time.Duration) ([]StaleLock, error) {
	if _, err := os.Stat(filepath.Join(gitDir, "refs")); err != nil {
		return nil, fmt.Errorf("%w: %s has no refs directory", ErrNotVault, gitDir)
	}
	var out []StaleLock
	now := time.Now()
	check := func(p string) {
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		if age := now.Sub(fi.ModTime()); age >= minAge {
			out = append(out, StaleLock{Path: p, Age: age})
		}
	}
	err := filepath.WalkDir(filepath.Join(gitDir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".lock") {
			check(p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	check(filepath.Join(gitDir, "packed-refs.lock"))
	return out, nil
}

// RemoveStaleLocks removes the lock files StaleLocks reports, each only if
// it is still the same file, still that old, at the moment of removal (a
// lock taken afresh by a live writer is newer and stays).
func RemoveStaleLocks(gitDir string, minAge time.Duration) ([]string, error) {
	locks, err := StaleLocks(gitDir, minAge)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, l := range locks {
		// Move it aside first, then re-check: the rename is atomic, so a
		// writer that re-created the lock meanwhile keeps its file.
		aside := l.Path + ".stale-" + fmt.Sprint(time.Now().UnixNano())
		if err := os.Rename(l.Path, aside); err != nil {
			continue
		}
		fi, err := os.Stat(aside)
		if err != nil || time.Since(fi.ModTime()) < minAge {
			os.Rename(aside, l.Path) // a fresh lock: put it back
			continue
		}
		if err := os.Remove(aside); err == nil {
			removed = append(removed, l.Path)
		}
	}
	return removed, nil
}
