//go:build unix

package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRead: a regular file is read; a FIFO (with no writer), /dev/zero
// behind a symlink, a directory and an oversized file are refused at once,
// without blocking or reading past the limit.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	os.WriteFile(p("ok"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(p("big"), []byte(strings.Repeat("x", 101)), 0o644)
	if err := syscall.Mkfifo(p("fifo"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	os.Symlink("/dev/zero", p("zero"))
	os.Symlink("fifo", p("fifo-link"))
	os.Mkdir(p("dir"), 0o755)
	for _, tc := range []struct {
		name string
		want error
	}{
		{"ok", nil},
		{"big", ErrTooLarge},
		{"fifo", ErrNotRegular},
		{"fifo-link", ErrNotRegular},
		{"zero", ErrNotRegular},
		{"dir", ErrNotRegular},
		{"missing", os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var b []byte
			var err error
			go func() { b, err = Read(p(tc.name), 100, time.Minute); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Read blocked")
			}
			if tc.want == nil {
				if err != nil || string(b) != "ref: refs/heads/main\n" {
					t.Fatalf("%q, %v", b, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}
