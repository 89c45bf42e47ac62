//go:build unix

package fastio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// polledPipe returns the ends of a pipe, both non-blocking and in the
// poller (as os.Pipe makes them), the read end as a PolledFile.
func polledPipe(t *testing.T) (*PolledFile, *PolledFile) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, err := NewPolledFile(r)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := NewPolledFile(w)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close(); pw.Close() })
	return pr, pw
}

func TestPolledFile(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: sixteen pipe buffers
	tests := []struct {
		name  string
		data  []byte
		delay time.Duration // before the writer starts: the reader waits in the poller
	}{
		{"small", []byte("{\"jsonrpc\":\"2.0\"}\n"), 0},
		{"reader waits", []byte("late\n"), 50 * time.Millisecond},
		{"over the pipe buffer", big, 0},
		{"over the pipe buffer, late", big, 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w := polledPipe(t)
			werr := make(chan error, 1)
			go func() {
				time.Sleep(tt.delay)
				n, err := w.Write(tt.data)
				if err == nil && n != len(tt.data) {
					err = errors.New("short write")
				}
				w.Close()
				werr <- err
			}()
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if err := <-werr; err != nil {
				t.Fatalf("write: %v", err)
			}
			if !bytes.Equal(got, tt.data) {
				t.Fatalf("read %d bytes, want the %d written", len(got), len(tt.data))
			}
		})
	}
}

func TestPolledFileCloseWakesRead(t *testing.T) {
	r, _ := polledPipe(t)
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	r.Close()
	select {
	case err := <-done:
		if err == nil || err == io.EOF {
			t.Fatalf("read after Close returned %v, want an error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake the read waiting in the poller")
	}
}

func TestPolledFileBrokenPipe(t *testing.T) {
	r, w := polledPipe(t)
	r.Close()
	// A raw write to a pipe without a reader fails with EPIPE; the
	// process is not killed (Go ignores SIGPIPE on descriptors other than
	// 1 and 2).
	_, err := w.Write([]byte("x"))
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write to a closed pipe: %v, want EPIPE", err)
	}
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
	}{
		{dir, true},
		{link, true}, // followed
		{other, false},
		{filepath.Join(dir, "missing"), false},
		{"bad\x00name", false},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			if got := SameFile(tt.path, fi); got != tt.want {
				t.Fatalf("SameFile(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}
