package gitbackend

import (
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSmallFile: a file up to the limit comes back whole, a larger one
// open for streaming, a missing one as fs.ErrNotExist.
func TestReadSmallFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		content string
		max     int64
		whole   bool
	}{
		{"empty", "", 10, true},
		{"under the limit", "loose object bytes", 100, true},
		{"at the limit", "0123456789", 10, true},
		{"over the limit", "0123456789a", 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			writeTestFile(t, path, tc.content)
			data, f, err := readSmallFile(path, tc.max)
			if err != nil {
				t.Fatal(err)
			}
			if tc.whole != (f == nil) {
				t.Fatalf("read whole: %v, want %v", f == nil, tc.whole)
			}
			if f != nil {
				defer f.Close()
				if data, err = io.ReadAll(f); err != nil {
					t.Fatal(err)
				}
			}
			if string(data) != tc.content {
				t.Errorf("read %q, want %q", data, tc.content)
			}
		})
	}
	if _, _, err := readSmallFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}
