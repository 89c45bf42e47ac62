//go:build unix

package mcptools

import (
	"os/exec"
	"syscall"
)

// newProcessGroup makes cmd the leader of a new process group, so the
// group can be killed with every child the command started.
func newProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killProcessGroup kills cmd's process group.
func killProcessGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
