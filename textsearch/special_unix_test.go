//go:build unix

package textsearch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

func TestSpecialFilesSkipped(t *testing.T) {
	root, dir := makeTree(t, map[string]string{"real/f.txt": "needle\n", "other.txt": "needle\n"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Skip("cannot create special file:", err)
		}
	}
	must(os.Symlink("real/f.txt", filepath.Join(dir, "link.txt")))
	must(os.Symlink("real", filepath.Join(dir, "linkdir")))
	must(os.Symlink("/etc/passwd", filepath.Join(dir, "escape.txt")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	res := run(t, root, ".", Options{Pattern: "needle|root"})
	if got := hits(res); !slices.Equal(got, []string{"other.txt:1:1:needle", "real/f.txt:1:1:needle"}) {
		t.Errorf("got %q", got)
	}
	if res.FilesScanned != 2 {
		t.Errorf("FilesScanned = %d", res.FilesScanned)
	}
	for _, start := range []string{"linkdir", "link.txt", "linkdir/f.txt", "fifo"} {
		_, err := Search(context.Background(), root, start, Options{Pattern: "needle"})
		if !errors.Is(err, ErrBadPath) {
			t.Errorf("start %q: err = %v, want ErrBadPath", start, err)
		}
	}
}
