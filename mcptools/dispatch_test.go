package mcptools

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestDispatchPanic: a panicking handler and one that returns no result
// are answered with the bytes mcp-go's server (WithRecovery) sent, in
// both protocol eras.
func TestDispatchPanic(t *testing.T) {
	v, err := NewValidator(Tools())
	if err != nil {
		t.Fatal(err)
	}
	tools := Bind(v, Tools()[:2], func(sp Spec) RunFunc {
		if sp.Name == "workspace_list" {
			return func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { panic("boom") }
		}
		return func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) { return nil, nil }
	})
	d := NewDispatcher(DispatcherConfig{Name: "x", Version: "1"}, tools)
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"workspace_list","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"workspace_info","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"workspace_list","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	var out strings.Builder
	if err := ServeStdio(context.Background(), d, strings.NewReader(in), &out, io.Discard, 1<<20); err != nil {
		t.Fatal(err)
	}
	// Recorded from mcp-go v1.2.1 (server.WithRecovery) through ServeStdio.
	want := map[string]bool{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"panic recovered in workspace_list tool handler: boom"}}`: true,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"tool 'workspace_info' handler returned no result"}}`:     true,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"panic recovered in workspace_list tool handler: boom"}}`: true,
	}
	for l := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		if !want[l] {
			t.Errorf("unexpected line %s", l)
		}
		delete(want, l)
	}
	for l := range want {
		t.Errorf("missing line %s", l)
	}
}

// TestDispatchNotify: Notify reaches initialized sessions only (after
// initialize, or a 2026-07-28 request), not closed ones, and drops what
// a full queue cannot take.
func TestDispatchNotify(t *testing.T) {
	d := NewDispatcher(DispatcherConfig{Name: "x", Version: "1", ListChanged: true}, nil)
	ctx := context.Background()
	legacy, modern, idle, closed := d.NewSession(), d.NewSession(), d.NewSession(), d.NewSession()
	d.HandleMessage(ctx, legacy, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	d.HandleMessage(ctx, modern, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	d.HandleMessage(ctx, idle, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	d.HandleMessage(ctx, closed, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	d.CloseSession(closed)
	for range notificationQueue + 5 {
		d.Notify(mcp.MethodNotificationToolsListChanged)
	}
	for name, c := range map[string]struct {
		s    *Session
		want int
	}{"legacy": {legacy, notificationQueue}, "modern": {modern, notificationQueue}, "idle": {idle, 0}, "closed": {closed, 0}} {
		if got := len(c.s.notifications); got != c.want {
			t.Errorf("%s: %d notifications queued, want %d", name, got, c.want)
		}
	}
	n := <-legacy.Notifications()
	if b, _ := json.Marshal(n); string(b) != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
		t.Errorf("notification %s", b)
	}
}

// TestDispatchCancel: notifications/cancelled cancels the running
// request of its session with that id, and nothing else.
func TestDispatchCancel(t *testing.T) {
	started := make(chan struct{}, 2)
	block := func(ctx context.Context, _ mcp.CallToolRequest) *mcp.CallToolResult {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			return mcp.NewToolResultText("cancelled")
		case <-time.After(10 * time.Second):
			return mcp.NewToolResultText("timed out")
		}
	}
	d := NewDispatcher(DispatcherConfig{Name: "x", Version: "1"}, []Tool{{Tool: mcp.Tool{Name: "block"}, Handler: block}})
	ctx := context.Background()
	a, b := d.NewSession(), d.NewSession()
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block"}}`
	answers := make(chan string, 2)
	for _, s := range []*Session{a, b} {
		go func() {
			resp, _ := json.Marshal(d.HandleMessage(ctx, s, []byte(call)))
			answers <- string(resp)
		}()
	}
	<-started
	<-started
	d.HandleMessage(ctx, a, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}`))
	d.HandleMessage(ctx, a, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`))
	if got := <-answers; !strings.Contains(got, `"cancelled"`) {
		t.Fatalf("answer %s", got)
	}
	select {
	case got := <-answers:
		t.Fatalf("the other session's request ended too: %s", got)
	case <-time.After(100 * time.Millisecond):
	}
	d.HandleMessage(ctx, b, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`))
	if got := <-answers; !strings.Contains(got, `"cancelled"`) {
		t.Fatalf("answer %s", got)
	}
}
