//go:build unix

package mcptools

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pipeServer is a local server serving an OS pipe as its stdin (in
// blocking mode, as a host passes it), already initialized.
type pipeServer struct {
	inR, inW   *os.File
	outR, outW *os.File
	out        *bufio.Scanner
	done       chan error
}

// startPipeServer starts l serving fresh OS pipes as stdin and stdout
// (both in blocking mode) until ctx ends or stdin closes, and initializes
// it.
func startPipeServer(t *testing.T, ctx context.Context) *pipeServer {
	t.Helper()
	l, err := New(Config{LaunchDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inR.Close(); inW.Close() })
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { outR.Close(); outW.Close() })
	setBlocking(t, inR) // as a host passes them (os.Pipe makes them non-blocking)
	setBlocking(t, outW)
	s := &pipeServer{inR: inR, inW: inW, outR: outR, outW: outW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	go func() { s.done <- l.Serve(ctx, inR, outW, io.Discard); outW.Close() }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if !s.out.Scan() || !strings.Contains(s.out.Text(), `"id":1,"result"`) {
		t.Fatalf("initialize answer: %q", s.out.Text())
	}
	return s
}

// TestServeOverPipe: a server whose stdin and stdout are OS pipes reads
// and writes them through the poller (reopened, non-blocking descriptors:
// mcpkit's pollable), answers over them, and leaves both pipes in
// blocking mode while it runs and when it returns.
func TestServeOverPipe(t *testing.T) {
	s := startPipeServer(t, context.Background())
	io.WriteString(s.inW, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	if !s.out.Scan() || s.out.Text() != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("ping answer: %q", s.out.Text())
	}
	assertBlocking(t, s.inR)
	assertBlocking(t, s.outW)
	s.inW.Close()
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
	assertBlocking(t, s.inR)
	assertBlocking(t, s.outW)
}

// TestServeOverPipeCancelledWhileIdle: a server whose client is idle (its
// stdin pipe open, nothing written) returns when its context is cancelled,
// and leaves the pipe in blocking mode; it does not wait for the client's
// next byte.
func TestServeOverPipeCancelledWhileIdle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := startPipeServer(t, ctx)
	go io.Copy(io.Discard, s.outR)
	cancel()
	select {
	case <-s.done:
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return after its context was cancelled while the client was idle")
	}
	assertBlocking(t, s.inR)
}

// assertBlocking fails t when f's open file description is non-blocking.
func assertBlocking(t *testing.T, f *os.File) {
	t.Helper()
	if flags := fileFlags(t, f); flags&syscall.O_NONBLOCK != 0 {
		t.Errorf("%s left non-blocking (flags %#x)", f.Name(), flags)
	}
}

// fileFlags returns the status flags (F_GETFL) of f's open file description.
func fileFlags(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	rc.Control(func(fd uintptr) {
		f, _, _ := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		flags = int(f)
	})
	return flags
}

// setBlocking puts f's open file description in blocking mode, as a
// parent process hands a pipe to a child.
func setBlocking(t *testing.T, f *os.File) {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	rc.Control(func(fd uintptr) { err = syscall.SetNonblock(int(fd), false) })
	if err != nil {
		t.Fatal(err)
	}
}

// childServeEnv makes the test binary a `tv mcp local` stand-in
// (TestHelperServeStdio) serving its own stdin and stdout.
const childServeEnv = "TV_MCPTOOLS_TEST_SERVE_STDIO"

// TestHelperServeStdio is not a test: run by TestServeLeavesParentPipeBlocking
// as a child process, it serves the local tools on the process's real
// stdin and stdout, as `tv mcp local` does.
func TestHelperServeStdio(t *testing.T) {
	dir := os.Getenv(childServeEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	l, err := New(Config{LaunchDir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := l.Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestServeLeavesParentPipeBlocking: a server process whose stdin is a pipe
// or FIFO the parent also holds (the same open file description) never
// makes the parent's descriptor non-blocking: not while it serves (it
// reads a description of its own, opened anew) and not after it is
// killed with SIGKILL, when it cannot clean up.
func TestServeLeavesParentPipeBlocking(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd/0"); err != nil {
		t.Skip("no /proc/self/fd: pipes are read in blocking mode here")
	}
	for _, kind := range []string{"pipe", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			r, w := parentPipe(t, kind)
			defer r.Close()
			defer w.Close()
			setBlocking(t, r)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServeStdio$")
			cmd.Env = append(os.Environ(), childServeEnv+"="+t.TempDir())
			cmd.Stdin = r // the child's fd 0 shares r's open file description
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			out := bufio.NewScanner(stdout)
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
			if !out.Scan() || !strings.Contains(out.Text(), `"id":1,"result"`) {
				t.Fatalf("initialize answer: %q (%v)", out.Text(), out.Err())
			}
			assertBlocking(t, r) // while the server runs (and reads)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			assertBlocking(t, r) // after it was killed
		})
	}
}

// parentPipe returns the read and write ends of an OS pipe or of a FIFO
// in a temporary directory.
func parentPipe(t *testing.T, kind string) (r, w *os.File) {
	t.Helper()
	if kind == "pipe" {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		return r, w
	}
	path := filepath.Join(t.TempDir(), "stdin.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // no writer yet
	if err != nil {
		t.Fatal(err)
	}
	if w, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
		t.Fatal(err)
	}
	return r, w
}
