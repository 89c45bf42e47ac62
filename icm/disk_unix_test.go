//go:build unix

package icm

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
)

// diskFS writes the tree m holds (as a walk of it sees it) to a new
// temporary folder, with real symlinks and FIFOs, and returns os.DirFS of
// it; sockets, devices and other irregular entries are left out.
func diskFS(t *testing.T, m fstest.MapFS) fs.FS {
	t.Helper()
	dir := t.TempDir()
	for _, e := range walkListing(t, m) {
		full := filepath.Join(dir, filepath.FromSlash(e.Path))
		var err error
		switch e.Type {
		case fs.ModeDir:
			err = os.Mkdir(full, 0o755)
		case 0:
			var data []byte
			if data, err = fs.ReadFile(m, e.Path); err == nil {
				err = os.WriteFile(full, data, 0o644)
			}
		case fs.ModeSymlink:
			err = os.Symlink(string(m[e.Path].Data), full)
		case fs.ModeNamedPipe:
			err = syscall.Mkfifo(full, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return os.DirFS(dir)
}
