package mcptools

import (
	"encoding/json"
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

// TestReadFileDataJSON: read_file's data writes the bytes json.Marshal
// writes for it (every member, so a member added to the struct and not to
// AppendJSON fails here), for plain and escaped text.
func TestReadFileDataJSON(t *testing.T) {
	for _, d := range []readFileData{
		{},
		{Path: "a.txt", Content: "one\ntwo\n", StartLine: 1, EndLine: 2, TotalLines: 2, Size: 8, SHA256: strings.Repeat("ab", 32)},
		{Path: `dir/"q" <&> é.md`, Content: "tab\there \"quoted\" back\\slash <b>&amp;</b> \u2028 日本語 \x01\x1f", StartLine: 3, EndLine: 9, TotalLines: 1<<31 - 1, Size: -1 << 40, LineNumbers: true},
		{Path: "bad\xffutf8", Content: strings.Repeat("0123456789abcdef", 100) + "\n"},
	} {
		want, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
			t.Errorf("AppendJSON(%+v)\n got %s\nwant x%s", d, got, want)
		}
	}
}
