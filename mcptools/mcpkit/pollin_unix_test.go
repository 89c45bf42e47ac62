//go:build linux

package mcpkit

import (
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/thalix/tv/internal/fastio"
)

// blockingPipe is a pipe whose ends are in blocking mode, as a host
// passes them to a stdio server.
func blockingPipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "in"), os.NewFile(uintptr(fds[1]), "out")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestPollableStdio: a pipe as stdin and one as stdout are read and
// written through fastio.PolledFile (raw system calls on reopened,
// non-blocking descriptors; that the inherited ones stay blocking is
// mcptools' TestServeOverPipe).
func TestPollableStdio(t *testing.T) {
	inR, inW := blockingPipe(t)
	outR, outW := blockingPipe(t)
	in, restoreIn := pollableInput(inR)
	out, restoreOut := pollableOutput(outW)
	for name, got := range map[string]any{"input": in, "output": out} {
		if _, ok := got.(*fastio.PolledFile); !ok {
			t.Fatalf("%s is %T, want a *fastio.PolledFile", name, got)
		}
	}
	go func() {
		inW.Write([]byte("request\n"))
		inW.Close()
	}()
	got, err := io.ReadAll(in)
	if err != nil || string(got) != "request\n" {
		t.Fatalf("read %q, %v", got, err)
	}
	if _, err := out.Write([]byte("response\n")); err != nil {
		t.Fatal(err)
	}
	restoreOut()
	restoreIn()
	outW.Close()
	got, err = io.ReadAll(outR)
	if err != nil || string(got) != "response\n" {
		t.Fatalf("stdout got %q, %v", got, err)
	}
}

// TestPollableLeavesOthers: what is not a pipe or socket is used as it is.
func TestPollableLeavesOthers(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "file")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, _ := pollableOutput(f); got != io.Writer(f) {
		t.Fatalf("a regular file became %T", got)
	}
	if got, _ := pollableInput(f); got != io.Reader(f) {
		t.Fatalf("a regular file became %T", got)
	}
}
