//go:build unix

package fullexec

import (
	"fmt"
	"syscall"
)

// run replaces this process with path: same pid, standard streams and
// signals, no process left in between.
func run(path string, argv, env []string) (int, error) {
	if err := syscall.Exec(path, argv, env); err != nil {
		return 0, fmt.Errorf("run %s: %w", path, err)
	}
	return 0, nil // not reached
}
