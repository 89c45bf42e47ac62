//go:build !unix

package mcpdoctor

import "os/exec"

// setGroup does nothing where there are no Unix process groups.
func setGroup(*exec.Cmd) {}

// killGroup kills the server process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
