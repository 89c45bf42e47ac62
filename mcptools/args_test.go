package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/thalix/tv/wsfs"
)

var plainArgsSeeds = []string{
	`{"path":"a.txt"}`, ` { "path" : "dir/ü.txt" , "workspace" : "launch" } `,
	`{"path":"a","start_line":1,"end_line":999999999,"line_numbers":true}`,
	`{"path":"a","line_numbers":false,"start_line":12}`, `{"path":"a","start_line":0}`,
	`{"path":"a","start_line":01}`, `{"path":"a","start_line":1.0}`, `{"path":"a","start_line":1e2}`,
	`{"path":"a","start_line":-1}`, `{"path":"a","start_line":1234567890}`, `{"path":"a","end_line":null}`,
	`{"path":"a\u0041"}`, `{"path":"a\"b"}`, `{"path":"a","path":"b"}`, `{"Path":"a"}`, `{"path":"a","x":1}`,
	`{"workspace":"launch"}`, `{}`, `[]`, `null`, ``, `{"path":"a"} x`, `{"path":"a",}`, `{"path":"a" "workspace":"b"}`,
	`{"path":"\xff"}`, "{\"path\":\"a\tb\"}", `{"path":1}`, `{"path":"a","line_numbers":"true"}`, `{"path":"a","line_numbers":truex}`,
	`{"path":"a"}}`, `{,"path":"a"}`, `{"path":"a","start_line":2 ,"end_line":1}`,
}

// FuzzPlainReadFileArgs: what plainReadFileArgs accepts, the input schema
// accepts and DecodeArgs decodes to the same arguments.
func FuzzPlainReadFileArgs(f *testing.F) {
	for _, s := range plainArgsSeeds {
		f.Add(s)
	}
	v, err := NewValidator([]Spec{readFileSpec}) // no plain shortcut
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := plainReadFileArgs([]byte(raw))
		if !ok {
			return
		}
		if err := v.Validate("read_file", []byte(raw)); err != nil {
			t.Fatalf("plain accepted %q, the schema refuses it: %v", raw, err)
		}
		var want readFileArgs
		if err := DecodeArgs([]byte(raw), &want); err != nil {
			t.Fatalf("plain accepted %q, DecodeArgs refuses it: %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: plain %+v, DecodeArgs %+v", raw, got, want)
		}
	})
}

func TestPlainReadFileArgs(t *testing.T) {
	accepted := 0
	for _, s := range plainArgsSeeds {
		if _, ok := plainReadFileArgs([]byte(s)); ok {
			accepted++
		}
	}
	if accepted != 5 {
		t.Fatalf("plain form accepted %d of the seeds, want 5", accepted)
	}
}

func TestReadFileSummary(t *testing.T) {
	d := readFileData{Path: "dir/a b.txt", StartLine: 2, EndLine: 30, TotalLines: 31, Size: 1 << 33, SHA256: "abc"}
	if got, want := d.summary(), fmt.Sprintf("%s: lines %d-%d of %d, %d bytes, sha256 %s", d.Path, d.StartLine, d.EndLine, d.TotalLines, d.Size, d.SHA256); got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

// TestReadFileTextBlocks: the first text block is the selected content
// itself, the second the summary line with the whole file's sha256.
func TestReadFileTextBlocks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	l, err := New(Config{LaunchDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	read := l.directTools()["read_file"]
	for _, tc := range []struct{ args, content, summary string }{
		{`{"path":"f.txt"}`, "one\ntwo\nthree\n", "f.txt: lines 1-3 of 3, 14 bytes, sha256 " + wsfs.SHA256Hex([]byte("one\ntwo\nthree\n"))},
		{`{"path":"./f.txt","start_line":2,"end_line":2,"line_numbers":true}`, "2\ttwo\n", "f.txt: lines 2-2 of 3, 14 bytes, sha256 " + wsfs.SHA256Hex([]byte("one\ntwo\nthree\n"))},
	} {
		res := read(context.Background(), json.RawMessage(tc.args))
		if res.IsError || len(res.Content) != 2 {
			t.Fatalf("%s: %+v", tc.args, res)
		}
		if got := res.Content[0].(mcp.TextContent).Text; got != tc.content {
			t.Errorf("%s: content block %q, want %q", tc.args, got, tc.content)
		}
		if got := res.Content[1].(mcp.TextContent).Text; got != tc.summary {
			t.Errorf("%s: summary block %q, want %q", tc.args, got, tc.summary)
		}
		if got := res.StructuredContent.(Envelope).Data.(readFileData).Content; got != tc.content {
			t.Errorf("%s: data.content %q", tc.args, got)
		}
	}
}
