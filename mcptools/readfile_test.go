package mcptools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReadFileHeldAgrees: a file directly in the launch directory is read
// on the held directory's descriptor (wsfs.FS.Hold, Linux), a file in a
// subdirectory through os.File; both give the same data and the same
// refusals, name for name.
func TestReadFileHeldAgrees(t *testing.T) {
	launch, _ := filepath.EvalSymlinks(t.TempDir())
	big := strings.Repeat("x", MaxReadBytes+1)
	for _, dir := range []string{launch, filepath.Join(launch, "sub")} {
		os.MkdirAll(filepath.Join(dir, "dir"), 0o755)
		os.WriteFile(filepath.Join(dir, "file.txt"), []byte("one\ntwo\nthree"), 0o644)
		os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644)
		os.WriteFile(filepath.Join(dir, "big"), []byte(big), 0o644)
		os.WriteFile(filepath.Join(dir, "binary"), []byte("a\x00b"), 0o644)
		os.Symlink("file.txt", filepath.Join(dir, "link"))
		if runtime.GOOS != "windows" {
			if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
				t.Fatal(err)
			}
		}
	}
	l, err := New(Config{LaunchDir: launch})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, args string }{
		{"whole file", `{"path":"%s"}`},
		{"lines", `{"path":"%s","start_line":2,"line_numbers":true}`},
	} {
		for _, name := range []string{"file.txt", "empty", "big", "binary", "link", "fifo", "dir", "missing", "file.txt/x"} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				top := callLocal(t, l, "read_file", strings.Replace(tc.args, "%s", name, 1))
				sub := callLocal(t, l, "read_file", strings.Replace(tc.args, "%s", "sub/"+name, 1))
				if top.IsError != sub.IsError {
					t.Fatalf("isError %v in the launch directory, %v in sub: %q / %q", top.IsError, sub.IsError, textOf(top), textOf(sub))
				}
				if top.IsError {
					if got, want := textOf(top), strings.ReplaceAll(textOf(sub), "sub/", ""); got != want {
						t.Fatalf("refusals differ:\n launch: %s\n sub:    %s", got, want)
					}
					return
				}
				dt, ds := dataOf(t, top), dataOf(t, sub)
				ds["path"] = strings.TrimPrefix(ds["path"].(string), "sub/")
				for k, v := range ds {
					if dt[k] != v {
						t.Fatalf("%s: %v in the launch directory, %v in sub", k, dt[k], v)
					}
				}
			})
		}
	}
	if l.root.Load() == nil {
		t.Fatal("the launch root was not cached: the held read was not exercised")
	}
}
