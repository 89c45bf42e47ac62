//go:build unix

package wsfs

import (
	"syscall"
	"testing"
)

// mkfifo makes a FIFO at p, failing the test when it cannot.
func mkfifo(t testing.TB, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}
