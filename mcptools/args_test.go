package mcptools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/wsfs"
)

// TestReadFileText: the one text block is the structured result
// serialized (protocol 2025-06-18's recommendation), and data.content is
// the selected lines.
func TestReadFileText(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	l, err := New(Config{LaunchDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, content string }{
		{`{"path":"f.txt"}`, "one\ntwo\nthree\n"},
		{`{"path":"./f.txt","start_line":2,"end_line":2,"line_numbers":true}`, "2\ttwo\n"},
	} {
		res := callLocal(t, l, "read_file", tc.args)
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %+v", tc.args, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if sc, _ := json.Marshal(res.StructuredContent); text != string(sc) {
			t.Errorf("%s: text %q is not the structured content %s", tc.args, text, sc)
		}
		if got := dataOf(t, res)["content"]; got != tc.content {
			t.Errorf("%s: data.content %q, want %q", tc.args, got, tc.content)
		}
		if got := dataOf(t, res)["sha256"]; got != wsfs.SHA256Hex([]byte("one\ntwo\nthree\n")) {
			t.Errorf("%s: sha256 %v", tc.args, got)
		}
	}
}

// callLocal calls a tool of l through its SDK handler.
func callLocal(t *testing.T, l *Local, name, args string) *mcp.CallToolResult {
	t.Helper()
	for _, tl := range localTools() {
		if tl.Name == name {
			res, err := Handler(l.validator, name, l.runFunc(tl))(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(args)}})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// dataOf returns a successful result's envelope data member.
func dataOf(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

// textOf returns a result's text.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
