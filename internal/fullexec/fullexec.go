// Package fullexec runs tv-full, the complete tv binary, in place of the
// running tv process: tv hands it the command lines that need the MCP
// servers or a remote vault's network transports, which tv does not link
// (see cmd/tv).
package fullexec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Name is tv-full's file name, and FrontName tv's (with .exe on Windows).
var Name, FrontName = func() (string, string) {
	if runtime.GOOS == "windows" {
		return "tv-full.exe", "tv.exe"
	}
	return "tv-full", "tv"
}()

// ErrNotInstalled: tv-full is not beside the running executable.
var ErrNotInstalled = errors.New("tv-full not found")

// Find returns tv-full's path: the file beside the running executable
// (symlinks resolved). Only there, never on PATH: the two binaries are
// built and installed together, and a tv-full of another version found
// elsewhere could disagree with this tv about the vault.
func Find() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("%w: cannot find the running executable: %v", ErrNotInstalled, err)
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	p := filepath.Join(filepath.Dir(self), Name)
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p, nil
	}
	return "", fmt.Errorf("%w beside %s; tv runs it for the MCP servers and remote vaults (install both binaries: go install github.com/thalix/tv/cmd/...@latest)",
		ErrNotInstalled, self)
}

// Front returns the program users run for the executable at path: the tv
// beside it when path is tv-full and that tv exists (what MCP hosts should
// register, and what tv mcp doctor checks), else path itself.
func Front(path string) string {
	if filepath.Base(path) != Name {
		return path
	}
	tv := filepath.Join(filepath.Dir(path), FrontName)
	if fi, err := os.Stat(tv); err == nil && fi.Mode().IsRegular() {
		return tv
	}
	return path
}

// Run runs tv-full with args[1:] in place of this process, with its
// environment and standard streams. Where the platform can replace a
// process (Unix) it returns only on failure; elsewhere it runs tv-full as
// a child and returns its exit code.
func Run(args []string) (code int, err error) {
	path, err := Find()
	if err != nil {
		return 0, err
	}
	return run(path, append([]string{path}, args[1:]...))
}
