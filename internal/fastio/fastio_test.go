package fastio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// tree makes a folder with a file, an executable, a subfolder and (where
// the system allows) a symlink, and returns its path.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{"a.md": "hello", "b.sh": "#!/bin/sh\n", "sub/c.txt": "c"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "b.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink("a.md", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestListerMatchesOS: Entries lists what os.ReadDir lists, with the same
// types, sorted; Lstat gives what os.Lstat gives (never following a
// symlink); Stat stamps the folder itself.
func TestListerMatchesOS(t *testing.T) {
	dir := tree(t)
	l, err := OpenLister(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got, err := l.Entries(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("Entries = %v, os.ReadDir = %v", got, want)
	}
	if !slices.IsSortedFunc(got, func(a, b Dirent) int { return strings.Compare(a.Name, b.Name) }) {
		t.Fatalf("Entries not sorted: %v", got)
	}
	for i, e := range want {
		t.Run(e.Name(), func(t *testing.T) {
			if got[i].Name != e.Name() || got[i].Type != e.Type() {
				t.Fatalf("entry %d = %+v, want %s %v", i, got[i], e.Name(), e.Type())
			}
			st, err := l.Lstat(e.Name())
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if st != StampOf(fi) {
				t.Fatalf("Lstat = %+v, os.Lstat = %+v", st, StampOf(fi))
			}
		})
	}
	st, err := l.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); st != StampOf(fi) {
		t.Fatalf("Stat = %+v, os.Stat = %+v", st, StampOf(fi))
	}
	if _, err := l.Lstat("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Lstat of a missing name: %v, want fs.ErrNotExist", err)
	}
}

// TestWriteThroughDir: Mkdir and Create make folders and files relative
// to an open folder, Finish sets the mode whatever the umask and stamps
// the file as lstat would; a name that is not one element is refused, and
// an existing file is not overwritten.
func TestWriteThroughDir(t *testing.T) {
	dir := t.TempDir()
	d := openDir(t, dir)
	sub, err := d.Mkdir("sub")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	f, err := sub.Create("run.sh", 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("#!/bin/sh\n")); err != nil {
		t.Fatal(err)
	}
	st, err := f.Finish(0o755)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(dir, "sub", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if st != StampOf(fi) || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o755) {
		t.Fatalf("Finish = %+v, lstat = %+v (%v)", st, StampOf(fi), fi.Mode())
	}
	if _, err := sub.Create("run.sh", 0o644); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create over an existing file: %v, want fs.ErrExist", err)
	}
	for _, name := range []string{"", ".", "..", "a/b", `a\b`, "a\x00b"} {
		if _, err := d.Mkdir(name); !errors.Is(err, ErrNotElement) {
			t.Errorf("Mkdir(%q): %v, want ErrNotElement", name, err)
		}
		if _, err := d.Create(name, 0o644); !errors.Is(err, ErrNotElement) {
			t.Errorf("Create(%q): %v, want ErrNotElement", name, err)
		}
	}
	// The wording the engine's refusals carried before the move.
	if _, err := d.Create("a/b", 0o644); err == nil || err.Error() != `"a/b" is not a file or folder name` {
		t.Errorf("Create(a/b): %v", err)
	}
}

// TestOpenBeneath: where the kernel has openat2, a file below the folder
// opens and reads, and a symlink component or an escape is refused;
// elsewhere ok is false and the caller opens through os.Root.
func TestOpenBeneath(t *testing.T) {
	d := openDir(t, tree(t))
	f, ok, err := d.OpenBeneath("sub/c.txt")
	if !ok {
		t.Skip("no openat2 here: callers open through os.Root")
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	st, serr := f.Stat()
	f.Close()
	if err != nil || serr != nil || string(b) != "c" || st.Size != 1 || !fs.FileMode(st.Mode).IsRegular() {
		t.Fatalf("read %q (%v), stat %+v (%v)", b, err, st, serr)
	}
	for _, rel := range []string{"link", "../x", "/etc/passwd", "missing"} {
		t.Run(rel, func(t *testing.T) {
			if f, _, err := d.OpenBeneath(rel); err == nil {
				f.Close()
				t.Fatalf("OpenBeneath(%q) opened it", rel)
			}
		})
	}
}

// TestMapFile: a mapped file reads as the file; an empty one is read,
// not mapped.
func TestMapFile(t *testing.T) {
	for _, data := range []string{"", "x", string(make([]byte, 70000))} {
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, release, err := MapFile(path, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != data {
			t.Errorf("MapFile of %d bytes read %d", len(data), len(got))
		}
		release()
	}
}

// TestLockDir: the lock is taken and given back, and can be taken again.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		unlock, err := LockDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		unlock()
	}
	if _, err := LockDir(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LockDir of a missing folder: %v, want fs.ErrNotExist", err)
	}
}

// openDir opens folder dir as a Dir, closed with the test.
func openDir(t *testing.T, dir string) *Dir {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// TestListerManyReads: a folder whose listing takes several reads (names
// of every length up to 255 bytes, Unicode among them) is listed as
// os.ReadDir lists it, appended after what ds already holds.
func TestListerManyReads(t *testing.T) {
	dir := t.TempDir()
	for i := range 1500 {
		name := fmt.Sprintf("%04d-%s", i, strings.Repeat("é", (i*7)%120))
		if i%9 == 0 {
			name += "/"
		}
		p := filepath.Join(dir, strings.TrimSuffix(name, "/"))
		var err error
		if strings.HasSuffix(name, "/") {
			err = os.Mkdir(p, 0o755)
		} else {
			err = os.WriteFile(p, nil, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	l, err := OpenLister(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got, err := l.Entries([]Dirent{{Name: "kept"}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want)+1 || !slices.ContainsFunc(got, func(d Dirent) bool { return d.Name == "kept" }) {
		t.Fatalf("Entries gave %d entries, os.ReadDir %d, and the one ds held must stay", len(got), len(want))
	}
	got = slices.DeleteFunc(got, func(d Dirent) bool { return d.Name == "kept" })
	for i, e := range want {
		if got[i].Name != e.Name() || got[i].Type != e.Type() {
			t.Fatalf("entry %d = %q %v, want %q %v", i, got[i].Name, got[i].Type, e.Name(), e.Type())
		}
	}
}
