// Package tvbuild builds tv's programs for tests that run them as separate
// processes (races, crashes, MCP clients over stdio, git servers' hooks):
// each program once per test binary, with the go command on PATH.
package tvbuild

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// build is one `go build` shared by every test of the run.
type build struct {
	once sync.Once
	dir  string
	err  error
}

var builds sync.Map // key -> *build

// TV returns the path of the tv binary (cmd/tv), built once per test run
// with tv-full (cmd/tv-full) beside it, where tv finds it.
func TV(t testing.TB) string {
	t.Helper()
	dir := buildOnce(t, "tv", "github.com/thalix/tv/cmd/tv", "github.com/thalix/tv/cmd/tv-full")
	return filepath.Join(dir, "tv")
}

// Full returns the path of tv-full, beside TV's tv.
func Full(t testing.TB) string {
	t.Helper()
	return filepath.Join(filepath.Dir(TV(t)), "tv-full")
}

// Program builds the main package at pkg (a directory, relative to the
// test's working directory, or an import path) once per test run and
// returns the binary's path.
func Program(t testing.TB, pkg string) string {
	t.Helper()
	name := filepath.Base(filepath.Clean(pkg))
	return filepath.Join(buildOnce(t, pkg, pkg), name)
}

// Deps lists the packages the package in the test's working directory
// links (`go list -deps .`); the test is skipped when the go command is
// not on PATH.
func Deps(t testing.TB) []string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot list the package's dependencies")
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	return strings.Fields(string(out))
}

// Cleanup removes every program built so far; a test binary's TestMain
// calls it after the tests ran (each build is ~40 MB of the temporary
// folder).
func Cleanup() {
	builds.Range(func(_, v any) bool {
		if b := v.(*build); b.dir != "" {
			os.RemoveAll(b.dir)
		}
		return true
	})
}

func buildOnce(t testing.TB, key string, pkgs ...string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(key, &build{})
	b := v.(*build)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "tv-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.dir = dir
		args := append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %v: %v\n%s", pkgs, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.dir
}
