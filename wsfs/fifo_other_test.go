//go:build !unix

package wsfs

import (
	"runtime"
	"testing"
)

// mkfifo skips the test: there are no FIFOs in the file system here.
func mkfifo(t testing.TB, p string) {
	t.Helper()
	t.Skipf("no FIFOs on %s", runtime.GOOS)
}
