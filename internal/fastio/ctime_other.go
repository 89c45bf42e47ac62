//go:build unix && !linux && !darwin

package fastio

import "syscall"

// ctimeNanos is unknown here; the stat cache then relies on size, mtime,
// inode and mode.
func ctimeNanos(*syscall.Stat_t) int64 { return 0 }
