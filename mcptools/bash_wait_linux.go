package mcptools

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitExited blocks until the command's process has exited without
// reaping it (waitid WNOWAIT): while it stays a zombie its pid, which is
// also its process group's id, cannot be reused, so killing the group
// afterwards cannot hit an unrelated one. It reports false: the caller
// reaps the process with cmd.Wait.
func waitExited(cmd *exec.Cmd) (reaped bool) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return false
		}
	}
}
