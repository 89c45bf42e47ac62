//go:build !unix

package tvcmd

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// mkfifo skips the test: there are no FIFOs in the file system here.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	t.Skipf("no FIFOs on %s", runtime.GOOS)
}

// processAlive waits up to d for pid to be gone; it reports whether the
// process could still be found then.
func processAlive(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		p, err := os.FindProcess(pid)
		if err != nil {
			return false
		}
		p.Release()
		if !time.Now().Before(deadline) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
}
