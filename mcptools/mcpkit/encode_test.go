package mcpkit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/thalix/tv/internal/jsonquote"
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
			taken, ok := store.take(placeholder)
			if !ok || !bytes.Equal(taken.result(), want) {
				t.Errorf("taken for %s\n got %s\nwant %s", placeholder, taken.result(), want)
			}
			if _, again := store.take(placeholder); again || len(store.m) != 0 {
				t.Errorf("second take of %s succeeded, store %v", placeholder, store.m)
			}
			// A one-pass result is framed in place: the same line as
			// encodeResponse's, for every id that fits the headroom.
			for _, id := range []string{`1`, `"abc"`, `9007199254740993`, `"` + strings.Repeat("i", 28) + `"`, `"` + strings.Repeat("i", 40) + `"`} {
				wantLine, err := encodeResponse(json.RawMessage(id), &jsonrpc.Response{Result: taken.result()})
				if err != nil {
					t.Fatal(err)
				}
				line, framed := frameResponse(json.RawMessage(id), taken.buf)
				switch {
				case !taken.framed:
					continue
				case !framed && len(id) <= 30:
					t.Errorf("id %s (%d bytes) did not fit the headroom", id, len(id))
				case framed && !bytes.Equal(line, wantLine):
					t.Errorf("framed with id %s\n got %s\nwant %s", id, line, wantLine)
				case framed && cap(line)-len(line) < 1:
					t.Errorf("framed line with id %s has no room for its newline", id)
				}
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

// appendedData writes its own JSON (a JSONAppender); plainData is the same
// value without the method, which Success encodes with json.Marshal.
type (
	appendedData plainData
	plainData    struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
)

func (d appendedData) AppendJSON(b []byte) []byte {
	b = jsonquote.Append(append(b, `{"name":`...), d.Name)
	return append(strconv.AppendInt(append(b, `,"n":`...), int64(d.N), 10), '}')
}

// TestSuccessAppender: data that writes its own JSON gives the result
// json.Marshal's encoding of it gives, envelope and text block alike.
func TestSuccessAppender(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	ws := map[string]any{"kind": "launch", "path": "/w <&>"}
	for _, d := range []plainData{{}, {Name: "a \"b\" <c>\n", N: -7}} {
		want, err := Success(now, ws, d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Success(now, ws, appendedData(d))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := sdkEncoding(t, onceEncoded{CallToolResult: got}), sdkEncoding(t, onceEncoded{CallToolResult: want}); !bytes.Equal(g, w) {
			t.Errorf("Success(%+v)\n got %s\nwant %s", d, g, w)
		}
	}
}
