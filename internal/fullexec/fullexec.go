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
	"runtime/debug"
	"strings"
)

// Name is tv-full's file name, and FrontName tv's (with .exe on Windows).
var Name, FrontName = func() (string, string) {
	if runtime.GOOS == "windows" {
		return "tv-full.exe", "tv.exe"
	}
	return "tv-full", "tv"
}()

// FrontEnv carries, from tv to the tv-full it runs, the path of that tv:
// tv-full registers and installs it (not itself), and a tv that finds the
// variable set was handed a command line back by a file that is not
// tv-full. Both clear it (TakeFront), so no process they start inherits it.
const FrontEnv = "TV_HANDED_OFF_BY"

// ErrNotInstalled: tv-full is not beside the running executable, or the
// file there is not a tv-full that runs.
var ErrNotInstalled = errors.New("tv-full not found")

// installHint says how to install both binaries: at this build's version
// when it is a release, else @latest.
func installHint() string {
	v := "latest"
	if bi, ok := debug.ReadBuildInfo(); ok && isRelease(bi.Main.Version) {
		v = bi.Main.Version
	}
	return "tv runs it for the MCP servers and remote vaults (install both binaries: go install github.com/thalix/tv/cmd/...@" + v + ")"
}

// isRelease reports whether v is a tagged version (v1.2.3, v1.2.3-rc.1),
// not "(devel)", a build of a modified tree (+dirty) or a pseudo-version
// (v0.0.0-20261202175357-1b71b10a8998), which `go install` could not
// fetch or would not mean.
func isRelease(v string) bool {
	if !strings.HasPrefix(v, "v") || strings.Contains(v, "+") {
		return false
	}
	parts := strings.Split(v, "-")
	if n := len(parts); n >= 3 {
		stamp, rev := parts[n-2], parts[n-1]
		if i := strings.LastIndexByte(stamp, '.'); i >= 0 {
			stamp = stamp[i+1:] // v1.2.4-0.20261202175357-… and v1.2.3-pre.0.2026…-…
		}
		if len(stamp) == 14 && len(rev) == 12 {
			return false
		}
	}
	return true
}

// Find returns tv-full's path and the running executable's (symlinks
// resolved): tv-full is the file beside it. Only there, never on PATH:
// the two binaries are built and installed together, and a tv-full of
// another version found elsewhere could disagree with this tv about the
// vault.
func Find() (full, self string, err error) {
	self, err = os.Executable()
	if err != nil {
		return "", "", fmt.Errorf("%w: cannot find the running executable: %v", ErrNotInstalled, err)
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	full = filepath.Join(filepath.Dir(self), Name)
	fi, err := os.Stat(full)
	switch {
	case err != nil || !fi.Mode().IsRegular():
		return "", "", fmt.Errorf("%w beside %s; %s", ErrNotInstalled, self, installHint())
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return "", "", fmt.Errorf("%w: %s is not executable; %s", ErrNotInstalled, full, installHint())
	}
	return full, self, nil
}

// TakeFront reads and clears FrontEnv. In tv-full (lean false) it returns
// the tv that handed the command line over, "" when tv-full was run
// directly. In tv it is an error when set: the tv-full tv ran handed the
// command line back, so it is not tv-full.
func TakeFront(lean bool) (string, error) {
	front, ok := os.LookupEnv(FrontEnv)
	if !ok {
		return "", nil
	}
	os.Unsetenv(FrontEnv)
	if lean {
		return "", fmt.Errorf("%w: %s handed the command line back to tv, so it is not tv-full; %s",
			ErrNotInstalled, filepath.Join(filepath.Dir(front), Name), installHint())
	}
	return front, nil
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
// environment (plus FrontEnv) and standard streams. Where the platform can
// replace a process (Unix) it returns only on failure; elsewhere it runs
// tv-full as a child and returns its exit code.
func Run(args []string) (code int, err error) {
	full, self, err := Find()
	if err != nil {
		return 0, err
	}
	env := append(os.Environ(), FrontEnv+"="+self)
	return run(full, append([]string{full}, args[1:]...), env)
}
