//go:build !linux

package mcptools

import "os/exec"

// waitExited waits for the command and reaps it (no WNOWAIT here), so the
// group kill that follows has a small window in which the pid could be
// reused. It reports true: cmd.Wait has been called.
func waitExited(cmd *exec.Cmd) (reaped bool) {
	cmd.Wait()
	return true
}
