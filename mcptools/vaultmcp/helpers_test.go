package vaultmcp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/internal/vaulttest"
)

var (
	alice = &engine.Credentials{User: "alice", Email: "alice@example.com", Token: "tok-ALICE-SECRET-42"}
	bob   = &engine.Credentials{User: "bob", Email: "bob@example.com", Token: "tok-BOB-SECRET-43"}
	carol = &engine.Credentials{User: "carol", Email: "carol@example.com"}
)

// fixture is a vault on disk with workspace "demo" made from the starter
// by alice (who manages the vault), and an evidence file path.
type fixture struct {
	t        *testing.T
	dir      string
	v        *gitbackend.Vault
	admin    *engine.Engine
	ws       *engine.Created
	evidence string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := gitbackend.OpenOrCreate(filepath.Join(dir, "vault.git"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, dir: dir, v: v, evidence: filepath.Join(dir, "state", "tv", EvidenceFileName)}
	f.admin = f.engine(alice)
	f.ws, err = f.admin.InitWorkspace(context.Background(), "demo", "")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) engine(who *engine.Credentials) *engine.Engine {
	return engine.New(f.v, engine.Options{Actor: who, MountsPath: filepath.Join(f.dir, "state", "tv", "mounts.json")})
}

func (f *fixture) grant(user string, rank engine.Rank, target string) {
	f.t.Helper()
	if _, err := f.admin.GrantAccess(context.Background(), user, rank, target); err != nil {
		f.t.Fatal(err)
	}
}

// server starts a scoped server (stage "" = unscoped) for who, resolving
// the scope at every check (no TTL) unless keepTTL.
func (f *fixture) server(who *engine.Credentials, stage string) *Server {
	f.t.Helper()
	cfg := Config{Engine: f.engine(who), EvidencePath: f.evidence, Version: "test"}
	if stage != "" {
		cfg.Workspace, cfg.Stage = f.ws.ID, stage
	}
	s, err := New(context.Background(), cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	s.ttl = 0
	return s
}

// put commits content at slash path p of the workspace straight through
// the storage interface, bypassing every engine check (as stock git or
// another client could), and returns the new head.
func (f *fixture) put(p, content string) engine.Hash {
	f.t.Helper()
	return vaulttest.ForceFile(f.t, f.v, f.ws.ID, p, content)
}

// records reads the evidence file.
func (f *fixture) records() []EvidenceRecord {
	f.t.Helper()
	return readEvidence(f.t, f.evidence)
}

func readEvidence(t *testing.T, path string) []EvidenceRecord {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []EvidenceRecord
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var r EvidenceRecord
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("evidence line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

func (f *fixture) lastRecord() EvidenceRecord {
	f.t.Helper()
	rs := f.records()
	if len(rs) == 0 {
		f.t.Fatal("no evidence")
	}
	return rs[len(rs)-1]
}

// rpc sends one JSON-RPC request to the server in-process and returns
// the result member (failing on a JSON-RPC error).
func rpc(t *testing.T, s *Server, method string, params any) json.RawMessage {
	t.Helper()
	res, rerr := rpcRaw(t, s, method, params)
	if rerr != nil {
		t.Fatalf("%s: JSON-RPC error %s", method, rerr)
	}
	return res
}

// clients holds one SDK client session per server under test, connected
// over the SDK's in-memory transport (the real SDK server and client).
var clients sync.Map // *Server → *testClient

// testClient is an SDK client session and the list_changed
// notifications it received.
type testClient struct {
	cs      *mcp.ClientSession
	changed chan struct{}
}

// client returns s's test client session, connecting it on first use.
func client(t *testing.T, s *Server) *testClient {
	t.Helper()
	if c, ok := clients.Load(s); ok {
		return c.(*testClient)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &testClient{changed: make(chan struct{}, 100)}
	cl := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.changed <- struct{}{} },
	})
	cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	c.cs = cs
	t.Cleanup(func() { cs.Close(); ss.Close(); clients.Delete(s) })
	clients.Store(s, c)
	return c
}

func rpcRaw(t *testing.T, s *Server, method string, params any) (json.RawMessage, json.RawMessage) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := client(t, s).cs
	var res any
	var err error
	switch method {
	case "initialize": // the client's handshake, done on connecting
		res = cs.InitializeResult()
	case "tools/list":
		res, err = cs.ListTools(ctx, &mcp.ListToolsParams{})
	case "tools/call":
		p := params.(map[string]any)
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: p["name"].(string), Arguments: p["arguments"]})
	default:
		t.Fatalf("rpcRaw: method %s", method)
	}
	if err != nil {
		b, _ := json.Marshal(err.Error())
		return nil, b
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b, nil
}

func listNames(t *testing.T, s *Server) []string {
	t.Helper()
	var r struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(rpc(t, s, "tools/list", map[string]any{}), &r); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, tl := range r.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// result is a decoded tools/call result.
type result struct {
	IsError    bool            `json:"isError"`
	Structured json.RawMessage `json:"structuredContent"`
	Content    []struct {
		Text string `json:"text"`
	} `json:"content"`
}

func (r *result) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func callTool(t *testing.T, s *Server, name string, args any) *result {
	t.Helper()
	var r result
	if err := json.Unmarshal(rpc(t, s, "tools/call", map[string]any{"name": name, "arguments": args}), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// ok checks the call succeeded and decodes its envelope's data into v.
func (r *result) ok(t *testing.T, v any) *envelopeOut {
	t.Helper()
	if r.IsError {
		t.Fatalf("call failed: %s", r.text())
	}
	var env envelopeOut
	dec := json.NewDecoder(strings.NewReader(string(r.Structured)))
	if err := dec.Decode(&env); err != nil {
		t.Fatal(err)
	}
	var text, structured any
	json.Unmarshal([]byte(r.text()), &text)
	json.Unmarshal(r.Structured, &structured)
	if env.CapturedAt == 0 || !reflect.DeepEqual(text, structured) || len(r.text()) > MaxStructuredBytes {
		t.Fatalf("envelope: captured_at %d, %d bytes, text fallback equal: %v", env.CapturedAt, len(r.text()), reflect.DeepEqual(text, structured))
	}
	if v != nil {
		if err := json.Unmarshal(env.Data, v); err != nil {
			t.Fatal(err)
		}
	}
	return &env
}

type envelopeOut struct {
	CapturedAt int64           `json:"captured_at"`
	Repository *Repository     `json:"repository"`
	Data       json.RawMessage `json:"data"`
}

// failed checks the call was refused with an isError result mentioning words.
func (r *result) failed(t *testing.T, words ...string) {
	t.Helper()
	if !r.IsError {
		t.Fatalf("call succeeded, want a failure: %s", r.text())
	}
	for _, w := range words {
		if !strings.Contains(r.text(), w) {
			t.Fatalf("failure %q does not mention %q", r.text(), w)
		}
	}
}
