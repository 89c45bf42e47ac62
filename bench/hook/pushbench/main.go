//go:build unix

// Command pushbench is bench/hook/compare.sh's helper: it times one
// command with sub-millisecond resolution, serves bare repositories over
// smart HTTP, and times `tv hook pre-receive`'s work inside one process.
//
//	pushbench time CMD [ARG...]
//	    runs CMD on this process's stdin (its output discarded, its stderr
//	    shown if it fails) and prints "WALL_MS CPU_MS": wall time from
//	    start to exit, and the user plus system CPU of CMD and of every
//	    process it waited for (for a local push: git push, receive-pack
//	    and the hook), both with microsecond resolution.
//	pushbench serve -root DIR -user NAME -url-file FILE [-for 1h]
//	    serves the bare repositories under DIR with git http-backend on
//	    127.0.0.1 (a free port), every request as REMOTE_USER=NAME, writes
//	    the base URL to FILE, and stops on SIGTERM or SIGINT, or by itself
//	    after -for.
//	pushbench inproc -git-dir DIR -step FILE -user NAME
//	    runs hook.PreReceive once on the "old new ref" lines of FILE in
//	    DIR and prints "WALL_MS CPU_MS" of that call: the hook's own work
//	    in a fresh process (as git runs it), without the process start-up
//	    or command-line parsing.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/thalix/tv/hook"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pushbench:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: pushbench time|serve|inproc ... (see the doc comment)")
	}
	switch args[0] {
	case "time":
		return timeCommand(args[1:], stdin, stdout, stderr)
	case "serve":
		return serve(args[1:])
	case "inproc":
		return inproc(args[1:], stdout)
	}
	return fmt.Errorf("unknown subcommand %q: want time, serve or inproc", args[0])
}

// timeCommand runs args and prints its wall and CPU time in ms.
func timeCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("time: name the command to run")
	}
	var errBuf bytes.Buffer
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = stdin
	cmd.Stderr = &errBuf
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		stderr.Write(errBuf.Bytes())
		return fmt.Errorf("time: %s: %w", args[0], err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return errors.New("time: no resource usage on this system")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Fprintf(stdout, "%.3f %.3f\n", ms(wall), ms(cpu))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// serve runs git http-backend behind an HTTP server on 127.0.0.1.
func serve(args []string) error {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	root := fl.String("root", "", "the folder of the served bare repositories")
	user := fl.String("user", "", "REMOTE_USER of every request (the pusher the hook sees)")
	urlFile := fl.String("url-file", "", "where to write the server's base URL")
	life := fl.Duration("for", time.Hour, "stop by itself after this long")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *root == "" || *user == "" || *urlFile == "" {
		return errors.New("serve: -root, -user and -url-file are required")
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	backend := &cgi.Handler{
		Path: gitBin,
		Args: []string{"http-backend"},
		Dir:  *root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + *root,
			"GIT_HTTP_EXPORT_ALL=1",
			"REMOTE_USER=" + *user,
		},
		// HOME and the GIT_CONFIG_* of bench/privateenv.sh: receive-pack
		// and the hook see the bench's private environment.
		InheritEnv: []string{"PATH", "HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "LC_ALL"},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{Handler: backend, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if err := os.WriteFile(*urlFile, []byte("http://"+ln.Addr().String()+"\n"), 0o644); err != nil {
		srv.Close()
		return fmt.Errorf("serve: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(*life):
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	}
	return srv.Close()
}

// inproc times one run of hook.PreReceive on one push's lines, in a
// fresh process as the hook always runs: wall time and this process's CPU
// (every thread: the collector's too) from the call to its return.
func inproc(args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("inproc", flag.ContinueOnError)
	gitDir := fl.String("git-dir", "", "the bare repository")
	stepFile := fl.String("step", "", `a file of "old new ref" lines`)
	user := fl.String("user", "", "the pusher (REMOTE_USER)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *gitDir == "" || *stepFile == "" || *user == "" {
		return errors.New("inproc: -git-dir, -step and -user are required")
	}
	step, err := os.ReadFile(*stepFile)
	if err != nil {
		return fmt.Errorf("inproc: %w", err)
	}
	getenv := func(k string) string {
		if k == "REMOTE_USER" {
			return *user
		}
		return ""
	}
	var refusals bytes.Buffer
	opts := hook.Options{GitDir: *gitDir, Getenv: getenv, Stderr: &refusals}
	cpu0, err := processCPU()
	if err != nil {
		return err
	}
	start := time.Now()
	err = hook.PreReceive(context.Background(), bytes.NewReader(step), opts)
	wall := time.Since(start)
	cpu1, cerr := processCPU()
	if err != nil {
		return fmt.Errorf("inproc: the hook refused the step: %w\n%s", err, refusals.Bytes())
	}
	if cerr != nil {
		return cerr
	}
	fmt.Fprintf(stdout, "%.3f %.3f\n", ms(wall), ms(cpu1-cpu0))
	return nil
}

// processCPU is the user plus system CPU this process has used.
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
