package mcptools

import (
	"fmt"
	"reflect"
	"testing"
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
