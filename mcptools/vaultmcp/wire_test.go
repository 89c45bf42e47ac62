package vaultmcp

import (
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/mcptools/internal/golden"
	"github.com/thalix/tv/mcptools/internal/wiretest"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// wireServe serves s with a fixed clock.
func wireServe(s *Server) wiretest.Serve {
	now := time.Unix(1700000000, 0)
	s.cfg.Now = func() time.Time { return now }
	return func(ctx context.Context, in io.Reader, out io.Writer) error { return s.Serve(ctx, in, out, io.Discard) }
}

func (f *fixture) wireNormalizer() func(string) string {
	hash := regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	vault := regexp.MustCompile(`\bvault_[0-9a-f]{16}\b`)
	at := regexp.MustCompile(`(updated_at\\?":)[0-9]+`)
	return func(s string) string {
		s = strings.ReplaceAll(s, f.dir, "$DIR")
		s = strings.ReplaceAll(s, f.ws.ID, "$WS")
		s = vault.ReplaceAllString(s, "$$VAULT")
		s = at.ReplaceAllString(s, "${1}0")
		return hash.ReplaceAllString(s, "$$HASH")
	}
}

// TestWireVaultUnscoped: `tv mcp serve`'s discovery mode on the wire
// (testdata/wire/unscoped.txt).
func TestWireVaultUnscoped(t *testing.T) {
	f := newFixture(t)
	s := f.server(alice, "")
	steps := []wiretest.Step{
		{In: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{In: initLine},
		{In: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{In: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`},
		{In: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"vault_whoami","arguments":{}}}`},
		{In: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"vault_whoami"}}`},
		{In: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"vault_whoami","arguments":null}}`},
		{In: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"vault_whoami","arguments":{"x":1}}}`},
		{In: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"vault_workspace_list","arguments":{}}}`},
		{In: `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"vault_file_info","arguments":{"path":"x"}}}`},
		{In: `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"dmF1bHRfd2hvYW1p"}}`},
		{In: `{"jsonrpc":"2.0","id":10,"method":"server/discover","params":{` + modernMeta + `}}`},
		{In: `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{` + modernMeta + `}}`},
		{In: `{"jsonrpc":"2.0","id":12,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`, Notes: 1},
		{In: `{"jsonrpc":"2.0","id":13,"method":"nope"}`},
	}
	got := wiretest.Transcript(t, wireServe(s), steps, f.wireNormalizer())
	golden.File(t, filepath.Join("testdata", "wire", "unscoped.txt"), got, "run UPDATE_TOOLSNAPS=1 go test ./mcptools/vaultmcp and review the diff")
}

// TestWireVaultScoped: a scoped server on the wire, with
// notifications/tools/list_changed when the visible set changes — not
// before initialize, to an initialized session, and on a 2026-07-28
// subscriptions/listen stream (testdata/wire/scoped.txt).
func TestWireVaultScoped(t *testing.T) {
	f := newFixture(t)
	f.grant("bob", engine.RankWrite, "demo:"+stage1)
	s := f.server(bob, stage1)
	read := func() { f.grant("bob", engine.RankRead, "demo:"+stage1) }
	write := func() { f.grant("bob", engine.RankWrite, "demo:"+stage1) }
	info := `"name":"vault_file_info","arguments":{"path":"` + stage1 + `/CONTEXT.md"}`
	steps := []wiretest.Step{
		// Not initialized: tools/list is refused (the SDK) and a change,
		// seen by the idle re-check, sends nothing.
		{In: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{Before: func() { read(); waitIdleRecheck(t, s, engine.RankRead) }, In: `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
		{In: initLine},
		{In: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{Before: write, In: `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, Notes: 1},
		{In: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{` + info + `}}`},
		{Before: read, In: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + info + `}}`, Notes: 1},
		{In: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"vault_workspace_commit","arguments":{"checkout_dir":"/nowhere","reason":"x"}}}`},
		{In: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"vault_whoami","arguments":{}}}`},
		{In: `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":"dmF1bHRfZmlsZV9pbmZv"}}`},
		// 2026-07-28: a subscriptions/listen stream.
		{In: `{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{` + modernMeta + `}}`},
		{In: `{"jsonrpc":"2.0","id":10,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true},` + modernMeta + `}}`, NoReply: true, Notes: 1},
		{Before: write, In: `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{` + modernMeta + `}}`, Notes: 1},
		{In: `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{` + info + `,` + modernMeta + `}}`},
		// A cancelled listen gets no answer, and with no listen open a
		// 2026-07-28 session gets no list_changed.
		{In: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}`},
		{Before: read, In: `{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{` + modernMeta + `}}`},
	}
	got := wiretest.Transcript(t, wireServe(s), steps, f.wireNormalizer())
	golden.File(t, filepath.Join("testdata", "wire", "scoped.txt"), got, "run UPDATE_TOOLSNAPS=1 go test ./mcptools/vaultmcp and review the diff")
}

// waitIdleRecheck waits until the server's idle re-check (watchScope) has
// resolved the scope again and found rank, then until the SDK has dropped
// the list_changed it debounces (10 ms) for the sessions initialized by
// then, none: it must not reach the session initialized next.
func waitIdleRecheck(t *testing.T, s *Server, rank engine.Rank) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s.mu.Lock()
		st := s.state
		s.mu.Unlock()
		if st != nil && st.Rank == rank {
			time.Sleep(sdkNotificationSettle)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle re-check did not see rank %s within 30 s (scope %+v)", rank, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sdkNotificationSettle is well past the go-sdk's list_changed debounce
// (notificationDelay, 10 ms), on a loaded machine.
const sdkNotificationSettle = 250 * time.Millisecond
