package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var errHook = errors.New("changed underneath")

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// TestWriteFile: every option on a fresh and an existing target; a
// failure leaves the target as it was and no temporary file behind.
func TestWriteFile(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320 KB: over the fill buffer
	tests := []struct {
		name     string
		old      string // existing content ("" = none)
		path     string // relative to the temp dir
		data     []byte
		opt      Options
		stream   bool // through WriteFunc
		fillErr  error
		wantErr  error // errors.Is
		wantAny  bool  // any error
		wantMode fs.FileMode
		wantTemp string // regexp the temporary name seen by BeforeRename matches
	}{
		{name: "new file, default options", path: "f", data: []byte("a\n"), wantMode: 0o600, wantTemp: `^\.f\.[0-9a-f]+\.tmp$`},
		{name: "replace, mode set exactly", old: "old", path: "f", data: []byte("new"), opt: Options{Mode: 0o666}, wantMode: 0o666},
		{name: "SyncData", old: "old", path: "f", data: []byte("new"), opt: Options{Mode: 0o644, Sync: SyncData}, wantMode: 0o644},
		{name: "SyncNone", old: "old", path: "f", data: []byte("new"), opt: Options{Mode: 0o644, Sync: SyncNone}, wantMode: 0o644},
		{name: "parents made", path: "a/b/f", data: []byte("x"), opt: Options{Mode: 0o640, MkdirMode: 0o700}, wantMode: 0o640},
		{name: "no parent", path: "a/b/f", data: []byte("x"), wantErr: fs.ErrNotExist},
		{name: "temp pattern", path: "f", data: []byte("x"), opt: Options{TempPattern: "tmp_obj_*"}, wantMode: 0o600, wantTemp: `^tmp_obj_[0-9a-f]+$`},
		{name: "hook refuses", old: "old", path: "f", data: []byte("new"), opt: Options{BeforeRename: func() error { return errHook }}, wantErr: errHook},
		{name: "stream, large", old: "old", path: "f", data: big, stream: true, opt: Options{Mode: 0o644}, wantMode: 0o644},
		{name: "stream, fill fails", old: "old", path: "f", data: []byte("partial"), stream: true, fillErr: io.ErrUnexpectedEOF, wantErr: io.ErrUnexpectedEOF},
		{name: "target is a folder", path: "d", data: []byte("x"), wantAny: true},
		{name: "SyncNone, target a full folder", path: "d", data: []byte("x"), opt: Options{Sync: SyncNone}, wantAny: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tc.path)
			if tc.old != "" {
				os.WriteFile(path, []byte(tc.old), 0o644)
			}
			if tc.path == "d" {
				os.MkdirAll(filepath.Join(path, "inside"), 0o755)
			}
			opt := tc.opt
			hook := opt.BeforeRename
			var tempSeen string
			opt.BeforeRename = func() error {
				for _, n := range entries(t, filepath.Dir(path)) {
					if n != filepath.Base(path) {
						tempSeen = n
					}
				}
				if got, _ := os.ReadFile(filepath.Join(filepath.Dir(path), tempSeen)); !bytes.Equal(got, tc.data) {
					t.Errorf("before the rename, the temporary file %s holds %d bytes, want %d", tempSeen, len(got), len(tc.data))
				}
				if hook != nil {
					return hook()
				}
				return nil
			}
			var err error
			if tc.stream {
				err = WriteFunc(path, opt, func(w io.Writer) error {
					for rest := tc.data; len(rest) > 0; rest = rest[min(len(rest), 1000):] {
						w.Write(rest[:min(len(rest), 1000)])
					}
					return tc.fillErr
				})
			} else {
				err = WriteFile(path, tc.data, opt)
			}
			if tc.wantErr != nil || tc.wantAny {
				if err == nil || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if got, _ := os.ReadFile(path); tc.old != "" && string(got) != tc.old {
					t.Errorf("after a failure the target holds %q, want %q", got, tc.old)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(path)
				if !bytes.Equal(got, tc.data) {
					t.Errorf("target holds %d bytes, want %d", len(got), len(tc.data))
				}
				if fi, _ := os.Stat(path); fi.Mode().Perm() != tc.wantMode {
					t.Errorf("mode %v, want %v", fi.Mode().Perm(), tc.wantMode)
				}
			}
			if tc.wantTemp != "" && !regexp.MustCompile(tc.wantTemp).MatchString(tempSeen) {
				t.Errorf("temporary name %q does not match %s", tempSeen, tc.wantTemp)
			}
			if d := filepath.Dir(path); dirExists(d) {
				for _, n := range entries(t, d) {
					if n != filepath.Base(path) {
						t.Errorf("left behind: %s", n)
					}
				}
			}
		})
	}
}

func dirExists(d string) bool {
	fi, err := os.Stat(d)
	return err == nil && fi.IsDir()
}

// TestWrite: the convenience form makes missing parents 0700.
func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "f")
	if err := Write(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Errorf("parent mode %v", fi.Mode().Perm())
	}
	if got, _ := os.ReadFile(path); string(got) != "x" {
		t.Errorf("content %q", got)
	}
}

// TestWriteRoot: replacement inside an os.Root; a name that is a path is
// refused; a symlink named is replaced, never followed out of the root.
func TestWriteRoot(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("keep"), 0o600)
	tests := []struct {
		name    string
		file    string
		setup   func(dir string)
		wantErr bool
	}{
		{name: "new", file: "f"},
		{name: "existing", file: "f", setup: func(dir string) { os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644) }},
		{name: "symlink out", file: "link", setup: func(dir string) { os.Symlink(outside, filepath.Join(dir, "link")) }},
		{name: "path", file: "sub/f", setup: func(dir string) { os.Mkdir(filepath.Join(dir, "sub"), 0o755) }, wantErr: true},
		{name: "dot dot", file: "..", wantErr: true},
		{name: "empty", file: "", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.setup != nil {
				tc.setup(dir)
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			err = WriteRoot(root, tc.file, []byte("new"), Options{Mode: 0o644})
			if tc.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(filepath.Join(dir, tc.file))
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
				t.Fatalf("target %v %v", fi, err)
			}
			if got, _ := os.ReadFile(outside); string(got) != "keep" {
				t.Errorf("the file outside the root now holds %q", got)
			}
			for _, n := range entries(t, dir) {
				if strings.HasSuffix(n, ".tmp") {
					t.Errorf("left behind: %s", n)
				}
			}
		})
	}
}

// TestSyncDir: a directory syncs; a missing one is an error.
func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
}
