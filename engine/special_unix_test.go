//go:build unix

package engine_test

import (
	"syscall"
	"testing"
)

// mkfifo makes a FIFO at p, failing the test when it cannot.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mknodNull makes a character device like /dev/null at p, or skips the
// test (mknod needs root).
func mknodNull(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 0x103); err != nil {
		t.Skip("mknod needs root:", err)
	}
}
