package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestLimitLines(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"` + strings.Repeat("a", 100) + `"}}`
	in := "first\n" + big + "\n" + strings.Repeat("b", 70) + "\r\nlast-no-newline"
	var out, reply bytes.Buffer
	if err := LimitLines(strings.NewReader(in), &out, &reply, 60); err != nil {
		t.Fatal(err)
	}
	if out.String() != "first\nlast-no-newline\n" {
		t.Fatalf("passed %q", out.String())
	}
	lines := strings.Split(strings.TrimSpace(reply.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("replies %q", reply.String())
	}
	var r struct {
		ID    any
		Error struct {
			Code    int
			Message string
		}
	}
	json.Unmarshal([]byte(lines[0]), &r)
	if r.ID != float64(7) || r.Error.Code != CodeInvalidRequest || !strings.Contains(r.Error.Message, "60-byte") {
		t.Fatalf("reply %s", lines[0])
	}
	json.Unmarshal([]byte(lines[1]), &r)
	if r.ID != nil {
		t.Fatalf("reply %s", lines[1])
	}
	// Exactly at the limit passes.
	out.Reset()
	reply.Reset()
	LimitLines(strings.NewReader(strings.Repeat("c", 60)+"\n"), &out, &reply, 60)
	if out.Len() != 61 || reply.Len() != 0 {
		t.Fatalf("limit line: %d %q", out.Len(), reply.String())
	}
}

// lastWriter keeps the last line written.
type lastWriter struct{ last []byte }

func (w *lastWriter) Write(p []byte) (int, error) {
	w.last = append(w.last[:0], p...)
	return len(p), nil
}

func testConn(t *testing.T, l *Local, direct map[string]DirectTool) (*stdioConn, *lastWriter) {
	t.Helper()
	w := &lastWriter{}
	c := newStdioConn(context.Background(), l.Dispatcher(), w, io.Discard)
	t.Cleanup(c.close)
	c.direct = direct
	c.serveLine([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	c.serveLine([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return c, w
}

// TestDirectReadFile: a read_file call served directly answers exactly
// like the same call through the Dispatcher, for successes, refusals and
// failures; lines that are not in the plain form are left to it.
func TestDirectReadFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n<three> & \"four\"\nfive"), 0o644)
	os.WriteFile(filepath.Join(dir, "bin.dat"), []byte("a\x00b"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("b\n"), 0o644)
	os.Symlink("a.txt", filepath.Join(dir, "link"))
	now := time.Unix(1700000000, 0)
	l, err := New(Config{LaunchDir: dir, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	direct := l.directTools()
	rf := direct["read_file"]
	direct["read_file"] = func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult { calls++; return rf(ctx, raw) }
	viaDirect, dw := testConn(t, l, direct)
	viaMCP, mw := testConn(t, l, nil)
	call := func(id, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"read_file","arguments":` + args + `}}`
	}
	cases := []struct {
		line   string
		direct bool
	}{
		{call("1", `{"path":"a.txt"}`), true},
		{call(`"s-1"`, `{"path":"a.txt","start_line":2,"end_line":3,"line_numbers":true}`), true},
		{call("2", `{"path":"sub/b.txt","workspace":"launch"}`), true},
		{call("3", `{"path":"./a.txt","end_line":99}`), true},
		{call("4", `{}`), true},
		{call("5", `null`), true},
		{call("6", `[]`), true},
		{call("7", `{"path":"a.txt","bogus":1}`), true},
		{call("8", `{"path":"a.txt","start_line":0}`), true},
		{call("9", `{"path":"a.txt","start_line":"1"}`), true},
		{call("10", `{"path":"a.txt","start_line":9}`), true},
		{call("11", `{"path":"../x"}`), true},
		{call("12", `{"path":"/etc/passwd"}`), true},
		{call("13", `{"path":"link"}`), true},
		{call("14", `{"path":"bin.dat"}`), true},
		{call("15", `{"path":"missing"}`), true},
		{call("16", `{"path":"sub"}`), true},
		{call("17", `{"path":"a.txt","workspace":"worktree:/nowhere"}`), true},
		{call("18", `{"path":"a.txt","start_line":1.0}`), true},
		{call("-19", `{"path":"a.txt"}`), true},
		{call("2.5", `{"path":"a.txt"}`), true},
		{`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"read_file"}}`, true},
		{` { "id" : 21 , "params" : { "arguments" : { "path" : "a.txt" } , "name" : "read_file" } , "method" : "tools/call" , "jsonrpc" : "2.0" } `, true},
		{`{"params":{"arguments":{"path":"a.txt","workspace":"x}\"{[,"},"name":"read_file"},"id":"}{\"","method":"tools/call","jsonrpc":"2.0"}`, true},
		{call("22", `{"path":"a.txt","line_numbers":true,"end_line":2}`), true},
		// Not the plain form: served by the Dispatcher on both connections.
		{`{"jsonrpc":"2.0","id":40,"id":41,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`, false},
		{`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"nope","name":"read_file","arguments":{"path":"a.txt"}}}`, false},
		{`{"jsonrpc":"2.0","\u0069d":43,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`, false},
		{`{"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"read\u005ffile","arguments":{"path":"a.txt"}}}`, false},
		{`{"jsonrpc":"2.0","id":45,"method":"tools/call","params":["read_file"]}`, false},
		{`{"jsonrpc":"2.0","id":46,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}`, false},
		{`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"},"_meta":{"progressToken":1}}}`, false},
		{`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}},"extra":1}`, false},
		{`{"jsonrpc":"2.0","id":32,"method":"tools/call","Params":{"name":"read_file","arguments":{"path":"a.txt"}}}`, false},
		{`{"jsonrpc":"2.0","id":33,"method":"tools/call","params":{"NAME":"read_file","arguments":{"path":"a.txt"}}}`, false},
		{`{"jsonrpc":"1.0","id":34,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`, false},
		{`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`, false},
		{`{"jsonrpc":"2.0","id":true,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`, false},
		{`{"jsonrpc":"2.0","id":35,"method":"tools/call","params":{"name":"list_directory","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":36,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":37,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"},"task":{}}}`, false},
	}
	for _, tc := range cases {
		before := calls
		dw.last, mw.last = nil, nil
		viaDirect.serveLine([]byte(tc.line))
		viaMCP.serveLine([]byte(tc.line))
		viaDirect.wg.Wait()
		viaMCP.wg.Wait()
		if got := calls > before; got != tc.direct {
			t.Errorf("%s: served directly %v, want %v", tc.line, got, tc.direct)
		}
		if len(dw.last) == 0 && len(mw.last) == 0 {
			continue // served as a notification: no answer from either
		}
		if len(dw.last) == 0 || dw.last[len(dw.last)-1] != '\n' || bytes.Count(dw.last, []byte("\n")) != 1 {
			t.Fatalf("%s: direct response %q is not one line", tc.line, dw.last)
		}
		var got, want any
		if err := json.Unmarshal(dw.last, &got); err != nil {
			t.Fatalf("%s: %v: %s", tc.line, err, dw.last)
		}
		if err := json.Unmarshal(mw.last, &want); err != nil {
			t.Fatalf("%s: %v: %s", tc.line, err, mw.last)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ndirect     %s\ndispatcher %s", tc.line, dw.last, mw.last)
		}
	}
}

// TestDirectPanic: a panicking direct tool is answered as the Dispatcher
// answers a panicking handler (TestDispatchPanic).
func TestDirectPanic(t *testing.T) {
	l, err := New(Config{LaunchDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c, w := testConn(t, l, map[string]DirectTool{"read_file": func(context.Context, json.RawMessage) *mcp.CallToolResult { panic("boom") }})
	c.serveLine([]byte(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"read_file","arguments":{"path":"a"}}}`))
	var r struct {
		ID    string
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(w.last, &r); err != nil || r.ID != "x" || r.Error.Code != CodeInternalError || r.Error.Message != "panic recovered in read_file tool handler: boom" {
		t.Fatalf("%v %s", err, w.last)
	}
}

// FuzzObjectMembers: the members objectMembers reports are those
// encoding/json decodes.
func FuzzObjectMembers(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : 1 , "b" : [1, {"c": "}"}], "d": "x\"y", "e": null, "f": true, "g": -1.5e3 } `,
		`{"a":{"b":{"c":[]}}}`, `[]`, `"s"`, `{"a\u0041":1}`, `{"a":"\\"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		if !json.Valid(b) {
			return
		}
		var names []string
		var values []json.RawMessage
		if !objectMembers(b, func(k string, v []byte) bool {
			names = append(names, k)
			values = append(values, json.RawMessage(v))
			return true
		}) {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%q: objectMembers accepted a non-object: %v", s, err)
		}
		got := map[string]json.RawMessage{}
		for i, k := range names {
			if !utf8.ValidString(k) {
				return // reported as sent; encoding/json substitutes U+FFFD
			}
			if !json.Valid(values[i]) {
				t.Fatalf("%q: member %q value %q is not JSON", s, k, values[i])
			}
			got[k] = values[i]
		}
		if len(got) != len(want) {
			t.Fatalf("%q: members %v, encoding/json %v", s, got, want)
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) && len(names) == len(got) {
				t.Fatalf("%q: member %q = %q, encoding/json %q", s, k, got[k], v)
			}
		}
	})
}
