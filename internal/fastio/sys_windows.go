//go:build windows

package fastio

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// inodeCtime: Windows stats carry neither an inode nor a change time; the
// stat cache then relies on size, mtime and mode (and re-hashes a file
// written in the cache's clock tick, as everywhere).
func inodeCtime(os.FileInfo) (ino uint64, ctime int64) { return 0, 0 }

// LockDir takes an exclusive lock for folder dir, waiting for it, and
// holds it until unlock (see sys_unix.go). Windows
// cannot lock a directory handle, so the lock is LockFileEx on a file in
// the temporary directory named by the checkout's path (never a file in
// the checkout); the system releases it if the process dies.
func LockDir(dir string) (unlock func(), err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("lock %s: not a directory", dir)
	}
	sum := sha256.Sum256([]byte(strings.ToLower(abs)))
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "tv-checkout-"+hex.EncodeToString(sum[:12])+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
		f.Close()
	}, nil
}
