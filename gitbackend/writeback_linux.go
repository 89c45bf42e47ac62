//go:build linux

package gitbackend

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing n bytes of f at off to
// disk without waiting for them, so the fsync at Finish finds most of a
// big pack already written instead of writing all of it then.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE) // advisory
}
