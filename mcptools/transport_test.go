package mcptools

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/mcptools/mcpkit"
)

// rawSession serves a fresh local server over pipes and exchanges raw
// lines with it.
type rawSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func newRawSession(t *testing.T) *rawSession {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	l, err := New(Config{LaunchDir: dir, Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawSession{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	s.out.Buffer(nil, 8<<20)
	go func() { s.done <- l.Serve(context.Background(), inR, outW, io.Discard); outW.Close() }()
	t.Cleanup(func() { inW.Close(); go io.Copy(io.Discard, outR); <-s.done })
	return s
}

// send writes lines.
func (s *rawSession) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			s.t.Fatal(err)
		}
	}
}

// next returns the next line written, failing after 20 s.
func (s *rawSession) next() string {
	s.t.Helper()
	got := make(chan string, 1)
	go func() {
		if s.out.Scan() {
			got <- s.out.Text()
		} else {
			got <- ""
		}
	}()
	select {
	case l := <-got:
		return l
	case <-time.After(20 * time.Second):
		s.t.Fatal("no answer")
		return ""
	}
}

// initialize negotiates version.
func (s *rawSession) initialize(version string) {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if l := s.next(); !strings.Contains(l, `"protocolVersion":"`+version+`"`) {
		s.t.Fatalf("initialize: %s", l)
	}
}

// answer is a decoded JSON-RPC answer.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeAnswer(t *testing.T, line string) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		t.Fatalf("answer %q: %v", line, err)
	}
	return a
}

// TestTransportMalformed: raw lines a client may send wrongly, each
// answered with the JSON-RPC error it deserves and the request's id
// (issue 14, defects 3 and 4); the session keeps serving after each.
func TestTransportMalformed(t *testing.T) {
	cases := []struct {
		name, line string
		id         string // the id the answer must carry, as written
		code       int    // 0: a result
	}{
		{"not json", `{"jsonrpc":`, "null", -32700},
		{"params a string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"abc"}`, "1", -32602},
		{"name a number", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":5}}`, "2", -32602},
		{"method a number", `{"jsonrpc":"2.0","id":3,"method":7}`, "3", -32600},
		{"cursor a number", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":5}}`, "4", -32602},
		{"_meta a number", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":5}}`, "5", -32602},
		{"arguments an array", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_file","arguments":[]}}`, "6", -32602},
		{"id beyond float64", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, "9007199254740993", 0},
		{"id beyond int64", `{"jsonrpc":"2.0","id":-123456789012345678901,"method":"ping"}`, "-123456789012345678901", 0},
		{"id with a fraction", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "null", -32600},
		{"id an exponent", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, "null", -32600},
		{"id an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", -32600},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null", -32600},
		{"upper-case members", `{"JSONRPC":"2.0","ID":7,"METHOD":"ping"}`, "null", -32600},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":8,"method":"ping"}`, "8", -32600},
		{"string id", `{"jsonrpc":"2.0","id":"x\u00e9","method":"ping"}`, `"x\u00e9"`, 0},
		{"a bare array member", `[]`, "null", -32600},
		{"a number", `5`, "null", -32600},
	}
	s := newRawSession(t)
	s.initialize("2025-06-18")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.t = t
			s.send(c.line)
			a := decodeAnswer(t, s.next())
			if string(a.ID) != c.id {
				t.Errorf("id %s, want %s", a.ID, c.id)
			}
			switch {
			case c.code == 0 && a.Error != nil:
				t.Errorf("error %+v, want a result", a.Error)
			case c.code != 0 && (a.Error == nil || a.Error.Code != c.code):
				t.Errorf("answer %+v, want error %d", a, c.code)
			}
		})
	}
	s.t = t
	s.send(`{"jsonrpc":"2.0","id":"still","method":"ping"}`)
	if a := decodeAnswer(t, s.next()); string(a.ID) != `"still"` || a.Error != nil {
		t.Fatalf("after the malformed lines: %+v", a)
	}
}

// TestTransportOversizeID: a line over MaxInputLineBytes is refused with
// the request's id wherever the id member is (the TypeScript SDK writes
// it last), and serving continues (issue 14, defect 1).
func TestTransportOversizeID(t *testing.T) {
	pad := strings.Repeat("x", MaxInputLineBytes)
	cases := []struct{ name, line, id string }{
		{"id first", `{"id":11,"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file","arguments":{"path":"b","content":"` + pad + `"}}}`, "11"},
		{"id last", `{"method":"tools/call","params":{"name":"write_file","arguments":{"path":"b","content":"` + pad + `"}},"jsonrpc":"2.0","id":12}`, "12"},
		{"string id last", `{"method":"tools/call","params":{"arguments":{"id":99,"content":"` + pad + `\"}"}},"jsonrpc":"2.0","id":"r-13"}`, `"r-13"`},
		{"nested id only", `{"method":"x","params":{"id":5,"p":"` + pad + `"}}`, "null"},
		{"truncated", `{"method":"x","params":"` + pad, "null"},
	}
	s := newRawSession(t)
	s.initialize("2025-06-18")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.t = t
			s.send(c.line)
			a := decodeAnswer(t, s.next())
			if string(a.ID) != c.id || a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "MaxInputLineBytes") {
				t.Fatalf("answer %+v, want -32600 with id %s", a, c.id)
			}
		})
	}
}

// TestTransportBatches: a batch is served as one array answer while the
// session's protocol version is 2025-03-26 (which requires batches), and
// refused from 2025-06-18 on (issue 14, defect 2).
func TestTransportBatches(t *testing.T) {
	s := newRawSession(t)
	s.initialize("2025-03-26")
	s.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/whatever"},{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}},{"jsonrpc":"2.0","id":3,"method":7}]`)
	var answers []answer
	if err := json.Unmarshal([]byte(s.next()), &answers); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, a := range answers {
		ids[string(a.ID)] = a.Error == nil
	}
	if len(answers) != 3 || !ids["1"] || !ids[`"two"`] || ids["3"] {
		t.Fatalf("batch answers %+v", answers)
	}
	s.send(`[{"jsonrpc":"2.0","method":"notifications/whatever"}]`, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if a := decodeAnswer(t, s.next()); string(a.ID) != `"after"` {
		t.Fatalf("a batch of notifications was answered: %+v", a)
	}

	s2 := newRawSession(t)
	s2.initialize("2025-06-18")
	s2.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if a := decodeAnswer(t, s2.next()); a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "2025-06-18") {
		t.Fatalf("batch in 2025-06-18: %+v", a)
	}
}

// TestTransportCancelled: a request cancelled by notifications/cancelled
// gets no answer (issue 14, defect 5); the next one does.
func TestTransportCancelled(t *testing.T) {
	s := newRawSession(t)
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"execute_bash","arguments":{"command":"sleep 20"}}}`)
	time.Sleep(200 * time.Millisecond) // let it start (either way it must not answer)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}}`)
	time.Sleep(300 * time.Millisecond)
	s.send(`{"jsonrpc":"2.0","id":"next","method":"ping"}`)
	if a := decodeAnswer(t, s.next()); string(a.ID) != `"next"` {
		t.Fatalf("the cancelled request was answered: %+v", a)
	}
}

// TestTransportListChanged2026: a protocol 2026-07-28 session gets no
// notifications/tools/list_changed unless a subscriptions/listen stream
// is open, then one carrying that stream's id in _meta; a cancelled
// listen gets no answer (issue 14, defect 6). The local server's list
// does not change, so the SDK server's notification is forced.
func TestTransportListChanged2026(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	dir := t.TempDir()
	l, err := New(Config{LaunchDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpkit.NewServer(mcpkit.ServerOptions{Name: "t", ListChanged: true})
	for _, tl := range localTools() {
		srv.AddTool(tl.MCPTool(), Handler(l.validator, tl.Name, l.runFunc(tl)))
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- mcpkit.Serve(context.Background(), srv, inR, outW, io.Discard); outW.Close() }()
	// Output no step reads (a second list_changed when the SDK's 10 ms
	// debounce splits change's two edits) must not block the server's exit.
	defer func() { inW.Close(); go io.Copy(io.Discard, outR); <-done }()
	s := &rawSession{t: t, in: inW, out: bufio.NewScanner(outR)}
	s.out.Buffer(nil, 8<<20)
	change := func() { srv.RemoveTools("grep"); srv.AddTool(grepSpec().MCPTool(), Handler(l.validator, "grep", nil)) }

	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`)
	if a := decodeAnswer(t, s.next()); string(a.ID) != "1" || a.Error != nil {
		t.Fatalf("tools/list: %+v", a)
	}
	change()
	time.Sleep(200 * time.Millisecond)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{` + meta + `}}`) // removed in 2026-07-28: an error answer
	if l := s.next(); !strings.Contains(l, `"id":2`) {
		t.Fatalf("list_changed without a listen stream: %s", l)
	}
	s.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`)
	if l := s.next(); !strings.Contains(l, "notifications/subscriptions/acknowledged") {
		t.Fatalf("listen: %s", l)
	}
	change()
	if l := s.next(); !strings.Contains(l, `"method":"notifications/tools/list_changed"`) || !strings.Contains(l, `"io.modelcontextprotocol/subscriptionId":"sub"`) {
		t.Fatalf("list_changed on the stream: %s", l)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}}`)
	time.Sleep(200 * time.Millisecond)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}`)
	line := s.next()
	for strings.Contains(line, `"method":"notifications/tools/list_changed"`) { // a second one when the debounce split the change
		line = s.next()
	}
	if !strings.Contains(line, `"id":3`) {
		t.Fatalf("the cancelled listen was answered: %s", line)
	}
}
