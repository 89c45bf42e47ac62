package tvcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/thalix/tv/internal/testparallel"
	"github.com/thalix/tv/internal/tvbuild"
)

// TestMain lets testscript run this test binary as the `tv` command.
// As the test binary, it allows more parallel tests than cores: they
// mostly wait on the tv, git and server processes they start.
func TestMain(m *testing.M) {
	testscript.Main(parallelM{m}, map[string]func(){
		"tv": func() {
			os.Exit(Run(context.Background(), os.Args, &IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ}, testFull))
		},
	})
}

// parallelM runs the tests with testparallel's default -test.parallel
// (testscript.Main calls Run only when the binary runs as the tests, not
// as `tv`).
type parallelM struct{ m *testing.M }

func (p parallelM) Run() int {
	testparallel.Default()
	defer tvbuild.Cleanup()
	return p.m.Run()
}

// TestScripts runs the CLI end-to-end scenarios in testdata/script.
// Each script gets a fresh HOME, vault, config and state directory, with
// git identity and dates pinned.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, "testdata/script"))
}

// scriptParams are the testscript parameters of the scripts in dir. The
// scripts' tv is the built binary (tvBin, first on their PATH), the
// program users run, main's GC settings and signal handling included;
// TestMain's tv (this test binary, its name copied on PATH by
// testscript) is the fallback. `tv version` as the test binary takes
// 38 ms of CPU here, as the built binary 25 ms; the scripts run ~600 tv
// commands.
func scriptParams(t *testing.T, dir string) testscript.Params {
	bin := filepath.Dir(tvBin(t))
	return testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("PATH", bin+string(filepath.ListSeparator)+env.Getenv("PATH"))
			for k, v := range map[string]string{
				"HOME":                home,
				"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
				"XDG_DATA_HOME":       filepath.Join(home, ".local", "share"),
				"XDG_STATE_HOME":      filepath.Join(home, ".local", "state"),
				"TV_VAULT":            "",
				"GIT_CONFIG_NOSYSTEM": "1",
				"GIT_AUTHOR_DATE":     "2026-01-02T03:04:05Z",
				"GIT_COMMITTER_DATE":  "2026-01-02T03:04:05Z",
				"VAULT":               filepath.Join(home, ".local", "share", "tv", "vault.git"),
			} {
				env.Setenv(k, v)
			}
			return os.MkdirAll(home, 0o700)
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exitcode": cmdExitCode},
	}
}

// cmdExitCode implements `exitcode N prog args...`: run prog and require
// exit status N (stdout and stderr stay available to later assertions).
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", args[1], got, want, ts.ReadFile("stdout"), ts.ReadFile("stderr"))
	}
}
