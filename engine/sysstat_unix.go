//go:build unix

package engine

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

// lockCheckout holds an exclusive flock on checkout dir while a commit
// plans, writes and updates the manifest, log and stat cache.
func lockCheckout(dir string) (unlock func(), err error) {
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
