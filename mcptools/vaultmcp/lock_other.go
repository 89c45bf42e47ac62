//go:build !unix

package vaultmcp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// lockFile creates path exclusively (a lock file), waiting at most
// EvidenceLockTimeout for another holder to remove it, and returns its
// release. A lock file left by a crashed process is never removed
// automatically: the error names it.
func lockFile(path string) (func(), error) {
	deadline := time.Now().Add(EvidenceLockTimeout)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock file %s still exists after %v (EvidenceLockTimeout); remove it if no tv server is running", path, EvidenceLockTimeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
