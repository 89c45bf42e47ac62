package fastio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadIn: LstatIn and OpenIn never follow a symlink, Info describes
// the opened file (Same as its lstat), and ReadSized stops at the stated
// size, reads a shrunk file to its end and reads past a grown one only up
// to max+1 bytes.
func TestReadIn(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	dirfd := int(d.Fd())

	lst, err := LstatIn(dirfd, "link")
	if err != nil || lst.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("LstatIn(link) = %v, %v; want the symlink itself", lst, err)
	}
	if _, err := OpenIn(dirfd, "link"); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("OpenIn(link) = %v, want ELOOP", err)
	}
	if _, err := LstatIn(dirfd, "a\x00b"); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("LstatIn(NUL) = %v, want EINVAL", err)
	}
	lst, err = LstatIn(dirfd, "a.md")
	if err != nil || !lst.Mode().IsRegular() || lst.Size() != 11 || lst.Name() != "a.md" {
		t.Fatalf("LstatIn(a.md) = %+v, %v", lst, err)
	}
	tests := []struct {
		name      string
		size, max int64
		want      string
	}{
		{"the stated size", 11, 0, "hello world"},
		{"grown, no limit: read on to its end", 5, 0, "hello world"},
		{"shrunk: to its end", 20, 0, "hello world"},
		{"grown past max: max+1 bytes", 3, 5, "hello "},
		{"within max", 11, 11, "hello world"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := OpenIn(dirfd, "a.md")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, err := f.Info()
			if err != nil || !st.Same(lst) || st.Size() != 11 {
				t.Fatalf("Info = %+v, %v; want a.md's", st, err)
			}
			b, err := f.ReadSized(tt.size, tt.max)
			if err != nil || string(b) != tt.want {
				t.Fatalf("ReadSized(%d, %d) = %q, %v; want %q", tt.size, tt.max, b, err, tt.want)
			}
		})
	}
	if f, err := OpenIn(dirfd, "."); err == nil {
		st, _ := f.Info()
		f.Close()
		if o, _ := LstatIn(dirfd, "a.md"); st.Same(o) || !strings.Contains(st.Mode().String(), "d") {
			t.Fatalf("the folder's Info %v is a.md's", st.Mode())
		}
	}
}

// TestStatRead: Lister.StatRead stamps what an lstat stamps, reads a
// regular file whole up to max+1 bytes (so a longer one is seen cut),
// reads a file stamped empty to its end, never follows a symlink and
// never reads (nor blocks on) a FIFO.
func TestStatRead(t *testing.T) {
	dir := t.TempDir()
	const limit = 10
	files := map[string]string{"small.md": "hello", "exact.md": "0123456789", "long.md": "0123456789abcdef", "empty.md": ""}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("small.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := OpenLister(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tests := []struct {
		name    string
		want    string // the bytes read
		regular bool
		err     error
	}{
		{"small.md", "hello", true, nil},
		{"exact.md", "0123456789", true, nil},
		{"long.md", "0123456789a", true, nil}, // max+1: the caller sees it cut
		{"empty.md", "", true, nil},
		{"link.md", "", false, syscall.ELOOP},
		{"pipe.md", "", false, nil},
		{"missing.md", "", false, syscall.ENOENT},
	}
	var buf []byte
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, data, err := l.StatRead(tc.name, limit, buf)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if got := fs.FileMode(st.Mode).IsRegular(); got != tc.regular {
				t.Fatalf("regular = %v, want %v (mode %v)", got, tc.regular, fs.FileMode(st.Mode))
			}
			if string(data) != tc.want || !tc.regular && data != nil {
				t.Fatalf("read %q, want %q", data, tc.want)
			}
			if tc.regular {
				lst, err := l.Lstat(tc.name)
				if err != nil || lst != st {
					t.Fatalf("stamp %+v, lstat's %+v (%v)", st, lst, err)
				}
				buf = data[:0]
			}
		})
	}
}
