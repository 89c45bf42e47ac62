//go:build !unix

package engine_test

import (
	"runtime"
	"testing"
)

// mkfifo skips the test: there are no FIFOs in the file system here.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	t.Skipf("no FIFOs on %s", runtime.GOOS)
}

// mknodNull skips the test: there are no device files to make here.
func mknodNull(t *testing.T, p string) {
	t.Helper()
	t.Skipf("no device files on %s", runtime.GOOS)
}
