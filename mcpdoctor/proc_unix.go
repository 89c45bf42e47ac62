//go:build unix

package mcpdoctor

import (
	"os/exec"
	"syscall"
)

// setGroup starts the server in a process group of its own, so it and
// everything it starts can be killed together.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to the server's process group (its pid is the
// group id). A group that is already gone is not an error.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
