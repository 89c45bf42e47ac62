//go:build !unix

package mcptools

import (
	"errors"
	"time"
)

// cpuTime is unknown here (no getrusage): benchmarks report 0 cpu-ns/op.
func cpuTime() time.Duration { return 0 }

// mkfifo fails: there are no FIFOs in the file system here.
func mkfifo(p string) error { return errors.ErrUnsupported }
