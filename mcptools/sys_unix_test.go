//go:build unix

package mcptools

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// mkfifo makes a FIFO at p.
func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
