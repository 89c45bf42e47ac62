//go:build unix

package fastio

import (
	"fmt"
	"os"
	"syscall"
)

// inodeCtime returns fi's inode number and change time (nanoseconds; 0
// where the platform has none), for the stat cache.
func inodeCtime(fi os.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), ctimeNanos(st)
	}
	return 0, 0
}

// LockDir takes an exclusive lock on folder dir, waiting for it, and holds
// it until unlock (tv locks a checkout while a commit plans, writes and
// updates the manifest, log and stat cache). Here it is a flock on the
// folder; the system releases it if the process dies.
func LockDir(dir string) (unlock func(), err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { d.Close() }, nil
}
