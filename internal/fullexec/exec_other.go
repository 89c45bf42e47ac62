//go:build !unix

package fullexec

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// run runs path as a child with this process's standard streams and
// returns its exit code (the platform cannot replace a process).
func run(path string, argv, env []string) (int, error) {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("run %s: %w", path, err)
	}
	return 0, nil
}
