//go:build !linux

package gitbackend

import "os"

// startWriteback is a no-op where sync_file_range is not available.
func startWriteback(f *os.File, off, n int64) {}
