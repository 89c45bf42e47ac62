package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// stdString is encoding/json's encoding of s without HTML escaping.
func stdString(t testing.TB, s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

var stringCases = []string{
	"", "a", "plain ascii text of some length, longer than eight bytes",
	"line 1\nline 2\r\n\ttab", `quote " and backslash \ and slash /`,
	"<html> & </html>", "\x00\x01\x1f\x7f", "\b\f", "ünïcödé 日本語 🎉",
	"\u2028 and \u2029", "bad utf-8: \xff\xfe and \xc3", "\xe2\x80", "12345678\n12345678\"",
	strings.Repeat("abcdefg\n", 100), strings.Repeat("x", 7) + "\x80" + strings.Repeat("y", 9),
}

func TestAppendString(t *testing.T) {
	for _, s := range stringCases {
		if got, want := string(appendString(nil, s)), stdString(t, s); got != want {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range stringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendString(nil, s)), stdString(t, s); got != want {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// decodeJSON decodes b generically (numbers as json.Number).
func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if dec.More() {
		t.Fatalf("trailing data: %s", b)
	}
	return v
}

// TestAppendMessage: the transport's encoder gives the same JSON value as
// json.Marshal for every shape it handles itself and for the others.
func TestAppendMessage(t *testing.T) {
	text := mcp.NewTextContent("line 1\n<b>&\"quoted\"\n")
	annotated := mcp.NewTextContent("annotated")
	annotated.Annotations = &mcp.Annotations{Priority: ptr(0.5)}
	meta := mcp.NewTextContent("with meta")
	meta.Meta = &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}
	env := Envelope{CapturedAt: 1700000000, Workspace: WorkspaceRef{ID: "launch", Root: "/tmp/w<s>", Kind: KindLaunch},
		Data: readFileData{Path: "a.txt", Content: "x\ny\n", StartLine: 1, EndLine: 2, TotalLines: 2, Size: 4, SHA256: "ab", LineNumbers: true}}
	// A long string met twice is copied the second time (jsonEnc.memo);
	// another string of the same length is encoded afresh.
	long := strings.Repeat("ab\"c\n<\u2028", 300)
	other := strings.Repeat("x", len(long))
	longEnv := func(content string) Envelope {
		return Envelope{Workspace: WorkspaceRef{ID: "launch"}, Data: readFileData{Path: "f", Content: content}}
	}
	results := []*mcp.CallToolResult{
		{Content: []mcp.Content{mcp.NewTextContent(long), mcp.NewTextContent(long)}, StructuredContent: longEnv(long)},
		{Content: []mcp.Content{mcp.NewTextContent(long)}, StructuredContent: longEnv(other)},
		{Content: []mcp.Content{mcp.NewTextContent(other), mcp.NewTextContent(long)}, StructuredContent: longEnv(strings.Clone(long))},
		{Content: []mcp.Content{text}, StructuredContent: env},
		{Content: []mcp.Content{text, mcp.NewTextContent("second")}, StructuredContent: &env},
		{Content: []mcp.Content{&text}},
		{Content: nil},
		{Content: []mcp.Content{annotated, meta, mcp.NewImageContent("aGk=", "image/png")}},
		{Content: []mcp.Content{text}, IsError: true},
		{Content: []mcp.Content{text}, StructuredContent: map[string]any{"a": 1, "b": []int{1, 2}}},
		{Content: []mcp.Content{text}, RawStructuredContent: json.RawMessage(`{ "raw" : true }`), StructuredContent: env},
		{Result: mcp.Result{ResultType: mcp.ResultTypeComplete, Meta: &mcp.Meta{AdditionalFields: map[string]any{"x": 1}}}, Content: []mcp.Content{text}},
		{MultiRoundTripResult: mcp.MultiRoundTripResult{RequestState: "state<1>"}, Content: []mcp.Content{text}},
		{Content: []mcp.Content{text}, StructuredContent: Envelope{Workspace: nil, Data: map[string]any{"n": nil}}},
	}
	var msgs []any
	for _, id := range []any{int64(7), float64(3), float64(1.5), "abc", "a\"b", nil, int(9)} {
		for _, r := range results {
			msgs = append(msgs, mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), r))
			msgs = append(msgs, mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), *r))
		}
		msgs = append(msgs, mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), mcp.EmptyResult{}))
	}
	msgs = append(msgs,
		mcp.JSONRPCError{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Error: mcp.NewJSONRPCErrorDetails(-32603, "boom", nil)},
		mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/tools/list_changed"}},
		mcp.JSONRPCResponse{JSONRPC: "1.0", ID: mcp.NewRequestId(int64(1)), Result: results[0]},
	)
	for i, m := range msgs {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendMessage([]byte("prefix"), m)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		got, ok := bytes.CutPrefix(got, []byte("prefix"))
		if !ok {
			t.Fatalf("%d: prefix lost", i)
		}
		if !reflect.DeepEqual(decodeJSON(t, got), decodeJSON(t, want)) {
			t.Errorf("message %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestEnvelopeAppendJSON: the hand-written encoders match encoding/json
// byte for byte (HTML escaping aside).
func TestEnvelopeAppendJSON(t *testing.T) {
	for _, v := range []jsonAppender{
		Envelope{CapturedAt: -5, Workspace: WorkspaceRef{ID: "checkout:/a b/\"c\"", Root: "/a b/\"c\"", Kind: KindCheckout}, Data: readFileData{Content: "ü\n\x01"}},
		readFileData{Path: "dir/f.go", Content: "package x\n", StartLine: 3, EndLine: 4, TotalLines: 10, Size: 1 << 40, SHA256: strings.Repeat("f", 64)},
		WorkspaceRef{},
	} {
		e := &jsonEnc{}
		if err := v.appendJSON(e); err != nil {
			t.Fatal(err)
		}
		got := e.b
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimSuffix(buf.String(), "\n"); string(got) != want {
			t.Errorf("%T:\n got %s\nwant %s", v, got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func BenchmarkAppendString(b *testing.B) {
	var sb strings.Builder
	for i := range 100 {
		fmt.Fprintf(&sb, "line %04d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	s := sb.String()
	buf := make([]byte, 0, 16<<10)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = appendString(buf[:0], s)
	}
}
