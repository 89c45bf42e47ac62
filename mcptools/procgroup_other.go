//go:build !unix

package mcptools

import "os/exec"

// newProcessGroup: no process groups here (Windows); only the command
// itself is killed on a timeout (its children may outlive it).
func newProcessGroup(*exec.Cmd) {}

// killProcessGroup kills the command's process.
func killProcessGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
