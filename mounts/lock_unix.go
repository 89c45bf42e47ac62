//go:build unix

package mounts

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockRegistry takes an exclusive flock on a lock file beside the registry,
// so concurrent checkouts never lose each other's entries. The kernel
// releases it if the process dies.
func lockRegistry(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
