//go:build unix

package mcptools

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeOverPipe: a server whose stdin is an OS pipe reads it through
// the poller, answers over it, and leaves the pipe in blocking mode again
// when it returns.
func TestServeOverPipe(t *testing.T) {
	l, err := New(Config{LaunchDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- l.Serve(context.Background(), inR, outW, io.Discard); outW.Close() }()
	out := bufio.NewScanner(outR)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if !out.Scan() || !strings.Contains(out.Text(), `"id":1,"result"`) {
		t.Fatalf("initialize answer: %q", out.Text())
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	if !out.Scan() || out.Text() != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("ping answer: %q", out.Text())
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	assertBlocking(t, inR)
}

// TestServeOverPipeCancelledWhileIdle: a server whose client is idle (its
// stdin pipe open, nothing written) returns when its context is cancelled,
// and leaves the pipe in blocking mode; it does not wait for the client's
// next byte.
func TestServeOverPipeCancelledWhileIdle(t *testing.T) {
	l, err := New(Config{LaunchDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, inR, outW, io.Discard); outW.Close() }()
	out := bufio.NewScanner(outR)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if !out.Scan() || !strings.Contains(out.Text(), `"id":1,"result"`) {
		t.Fatalf("initialize answer: %q", out.Text())
	}
	go io.Copy(io.Discard, outR)
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return after its context was cancelled while the client was idle")
	}
	assertBlocking(t, inR)
}

// assertBlocking fails t when f's open file description is non-blocking.
func assertBlocking(t *testing.T, f *os.File) {
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
	if flags&syscall.O_NONBLOCK != 0 {
		t.Errorf("stdin left non-blocking after Serve returned (flags %#x)", flags)
	}
}
