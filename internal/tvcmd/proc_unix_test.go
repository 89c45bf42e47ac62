//go:build unix

package tvcmd

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a FIFO at p, or skips the test where that fails.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
}

// processAlive waits up to d for pid to be gone (or a zombie).
func processAlive(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		alive := syscall.Kill(pid, 0) == nil
		if alive {
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
				f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
				alive = len(f) > 0 && f[0] != "Z"
			}
		}
		if !alive {
			return false
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
}
