package mcpkit

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkEncoding encodes a result as the SDK's jsonrpc2 layer does: an
// encoding/json Encoder without HTML escaping, newline trimmed.
func sdkEncoding(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestOnceEncodedMatchesSDK: the one-pass encoding of a result writes the
// bytes the SDK's own encoding writes, for tv's results and for every
// shape it hands back to the SDK.
func TestOnceEncodedMatchesSDK(t *testing.T) {
	tvResult := func(v any) *mcp.CallToolResult {
		r, err := Structured(v)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	withMeta := tvResult(map[string]any{"a": 1})
	withMeta.Meta = mcp.Meta{"k": "v"}
	annotated := tvResult(map[string]any{"a": 1})
	annotated.Content[0].(*mcp.TextContent).Annotations = &mcp.Annotations{Priority: 1}
	twoBlocks := tvResult(map[string]any{"a": 1})
	twoBlocks.Content = append(twoBlocks.Content, &mcp.TextContent{Text: "more"})
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
	}{
		{"envelope", tvResult(Envelope{CapturedAt: 1, Workspace: map[string]any{"kind": "launch"}, Data: map[string]any{"content": "line\n\ttab \"q\" \\ <a&b> \u2028 é \x01"}})},
		{"empty object", tvResult(struct{}{})},
		{"empty text", EncodedResult([]byte(`{}`))},
		{"failure", Failure("read_file failed: <%s> & \"x\"", "a\nb")},
		{"raw structured", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: json.RawMessage(`{ "a" : 1 }`)}},
		{"meta", withMeta},
		{"annotations", annotated},
		{"two blocks", twoBlocks},
		{"no content", &mcp.CallToolResult{StructuredContent: encodedJSON(`{"a":1}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := sdkEncoding(t, tc.res)
			got := sdkEncoding(t, onceEncoded{tc.res, nil})
			if !bytes.Equal(got, want) {
				t.Errorf("one-pass encoding\n got %s\nwant %s", got, want)
			}
			// Through a store: the SDK marshals a placeholder, the
			// Transport takes the same bytes for it, once.
			store := &resultStore{}
			placeholder := sdkEncoding(t, onceEncoded{tc.res, store})
			if got := store.take(placeholder); !bytes.Equal(got, want) {
				t.Errorf("taken for %s\n got %s\nwant %s", placeholder, got, want)
			}
			if again := store.take(placeholder); !bytes.Equal(again, placeholder) || len(store.m) != 0 {
				t.Errorf("second take of %s: %s, store %v", placeholder, again, store.m)
			}
		})
	}
}

// FuzzQuotedJSON: quoting json.Marshal's output with appendQuotedJSON
// gives the bytes json.Marshal gives for it as a string.
func FuzzQuotedJSON(f *testing.F) {
	for _, s := range []string{"", `a"b\c`, "line\n\ttab <a&b> \u2028 é \x01 \xff", `{"k":["v"]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		js, err := json.Marshal(map[string]any{"s": s, "n": []any{s, 1.5, nil}})
		if err != nil {
			t.Skip()
		}
		want, err := json.Marshal(string(js))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendQuotedJSON(nil, js); !bytes.Equal(got, want) {
			t.Fatalf("appendQuotedJSON(%s)\n got %s\nwant %s", js, got, want)
		}
	})
}
