package tvcmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/internal/testclock"
	"github.com/thalix/tv/mcptools/vaultmcp"
)

// The end-to-end tests of `tv mcp serve` drive the built tv binary (tvBin)
// over stdio with the official Go SDK's client, independent of the
// server's MCP library. Users share one vault (TV_VAULT) and one state
// directory; each has its own credential file (XDG_CONFIG_HOME).

// vsEnv is one vault shared by several users.
type vsEnv struct {
	t     *testing.T
	bin   string
	base  string
	vault string
	state string
}

func newVSEnv(t *testing.T) *vsEnv {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &vsEnv{t: t, bin: tvBin(t), base: base, vault: filepath.Join(base, "vault.git"), state: filepath.Join(base, "state")}
}

// env is the environment of user's tv processes.
func (e *vsEnv) env(user string) []string {
	home := filepath.Join(e.base, "home-"+user)
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_STATE_HOME=" + e.state,
		"TV_VAULT=" + e.vault,
		"GIT_CONFIG_NOSYSTEM=1",
	}
}

// tv runs tv as user with stdin and returns stdout, stderr and exit code.
func (e *vsEnv) tv(user, stdin string, args ...string) (string, string, int) {
	e.t.Helper()
	var out, errb bytes.Buffer
	c := exec.Command(e.bin, args...)
	c.Env = e.env(user)
	c.Dir = e.base
	c.Stdin = strings.NewReader(stdin)
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (e *vsEnv) must(user string, args ...string) string {
	e.t.Helper()
	out, errs, code := e.tv(user, "", args...)
	if code != 0 {
		e.t.Fatalf("%s: tv %s: exit %d\n%s%s", user, strings.Join(args, " "), code, out, errs)
	}
	return out
}

// setup logs alice (with a token), bob and carol in and makes workspace
// demo as alice, who then manages the vault. It returns the workspace id.
func (e *vsEnv) setup() string {
	e.t.Helper()
	if out, errs, code := e.tv("alice", vsToken+"\n", "login", "--user", "alice", "--token-stdin"); code != 0 {
		e.t.Fatalf("login: %s%s", out, errs)
	}
	e.must("bob", "login", "--user", "bob")
	e.must("carol", "login", "--user", "carol")
	out := e.must("alice", "workspace", "init", "--name", "demo", "--json")
	var c struct {
		ID string `json:"workspace_id"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.ID == "" {
		e.t.Fatalf("init: %v\n%s", err, out)
	}
	return c.ID
}

const vsToken = "tok-VAULT-SERVE-SECRET-5150"

// vsClient is an SDK client session with the list_changed notifications
// it received.
type vsClient struct {
	cs      *mcp.ClientSession
	changed chan struct{}
	stderr  *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serve starts `tv mcp serve args…` as user and connects the SDK client
// (protocol version "" = the SDK's default).
func (e *vsEnv) serve(user, version string, args ...string) *vsClient {
	e.t.Helper()
	cmd := exec.Command(e.bin, append([]string{"mcp", "serve"}, args...)...)
	cmd.Env = e.env(user)
	cmd.Dir = e.base
	return connectVS(e.t, cmd, version)
}

// connectVS starts cmd, a tv MCP server, and connects the SDK client.
func connectVS(t *testing.T, cmd *exec.Cmd, version string) *vsClient {
	t.Helper()
	c := &vsClient{changed: make(chan struct{}, 16), stderr: &lockedBuffer{}}
	cmd.Stderr = c.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "tv-serve-e2e", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %v: %v\n%s", cmd.Args, err, c.stderr)
	}
	c.cs = cs
	t.Cleanup(func() { cs.Close() })
	return c
}

// serveAt runs `tv mcp serve` as user in this process (Run, as main
// does) with the clock given, so a test moves the scope cache past
// ScopeTTL instead of sleeping through it, and connects an SDK client over
// pipes. The tests above cover the real process.
func (e *vsEnv) serveAt(clock *testclock.Clock, user, version string, args ...string) *vsClient {
	e.t.Helper()
	env := map[string]string{}
	for _, kv := range e.env(user) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	c := &vsClient{changed: make(chan struct{}, 16), stderr: &lockedBuffer{}}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := Run(context.Background(), append([]string{"tv", "mcp", "serve"}, args...), &IO{
			Stdin: inR, Stdout: outW, Stderr: c.stderr, Now: clock.Now,
			Getenv: func(k string) string { return env[k] },
		}, testFull)
		outW.Close()
		done <- code
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "tv-serve-e2e", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		e.t.Fatalf("connect %s %v: %v\n%s", user, args, err, c.stderr)
	}
	c.cs = cs
	e.t.Cleanup(func() {
		cs.Close()
		inW.Close()
		if code := <-done; code != 0 {
			e.t.Errorf("tv mcp serve exited %d\n%s", code, c.stderr)
		}
	})
	return c
}

func (c *vsClient) names(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.cs.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.OutputSchema == nil || tl.Annotations == nil || tl.Annotations.DestructiveHint == nil {
			t.Errorf("%s: output schema or annotations missing", tl.Name)
		}
	}
	slices.Sort(names)
	return names
}

// vsResult is a tool result: its text and, on success, its envelope.
type vsResult struct {
	isError bool
	text    string
	env     struct {
		CapturedAt int64 `json:"captured_at"`
		Repository *struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"repository"`
		Data json.RawMessage `json:"data"`
	}
}

func (c *vsClient) call(t *testing.T, name string, args map[string]any) *vsResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	r := &vsResult{isError: res.IsError}
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r.env); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
		if r.env.CapturedAt == 0 || len(b) > vaultmcp.MaxStructuredBytes {
			t.Fatalf("%s: envelope %s", name, b)
		}
	}
	return r
}

func (r *vsResult) ok(t *testing.T, v any) *vsResult {
	t.Helper()
	if r.isError {
		t.Fatalf("call failed: %s", r.text)
	}
	if v != nil {
		if err := json.Unmarshal(r.env.Data, v); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func (r *vsResult) refused(t *testing.T, words ...string) {
	t.Helper()
	if !r.isError {
		t.Fatalf("call succeeded, want a refusal: %s", r.text)
	}
	for _, w := range words {
		if !strings.Contains(r.text, w) {
			t.Fatalf("refusal %q does not mention %q", r.text, w)
		}
	}
}

// waitChanged waits for one tools/list_changed notification.
func (c *vsClient) waitChanged(t *testing.T) {
	t.Helper()
	select {
	case <-c.changed:
	case <-time.After(10 * time.Second):
		t.Fatalf("no notifications/tools/list_changed; server stderr:\n%s", c.stderr)
	}
}

func (e *vsEnv) evidence() []vaultmcp.EvidenceRecord {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.state, "tv", vaultmcp.EvidenceFileName))
	if err != nil {
		e.t.Fatal(err)
	}
	var out []vaultmcp.EvidenceRecord
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r vaultmcp.EvidenceRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			e.t.Fatalf("evidence line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

func (e *vsEnv) lastEvidence() vaultmcp.EvidenceRecord {
	e.t.Helper()
	rs := e.evidence()
	return rs[len(rs)-1]
}

// refs returns every ref of the vault as stock git sees it.
func (e *vsEnv) refs() string {
	return git(e.t, e.vault, "for-each-ref", "--format=%(refname) %(objectname)")
}

// setPolicy rewrites a stage's CONTEXT.md frontmatter through the CLI:
// checkout, edit, commit.
func (e *vsEnv) setPolicy(user, stage string, tools ...string) {
	e.t.Helper()
	co := filepath.Join(e.base, fmt.Sprintf("policy-%d", time.Now().UnixNano()))
	e.must(user, "workspace", "checkout", "demo", "--output", co)
	p := filepath.Join(co, filepath.FromSlash(stage), "CONTEXT.md")
	b, err := os.ReadFile(p)
	if err != nil {
		e.t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b)[4:], "---\n")
	if !ok {
		e.t.Fatalf("%s has no frontmatter", p)
	}
	os.WriteFile(p, append((&icm.Policy{Tools: tools}).Frontmatter(), rest...), 0o644)
	e.must(user, "workspace", "commit", co, "--reason", "policy of "+stage)
}

// forcePolicy writes a stage's CONTEXT.md with stock git plumbing,
// bypassing tv's ICM validation (as any git client could).
func (e *vsEnv) forcePolicy(wsID, stage, content string) {
	e.t.Helper()
	e.plantEntry(wsID, "100644", stage+"/CONTEXT.md", content)
}

// plantEntry commits, with stock git plumbing and as mallory, an entry of
// the given mode at path to the head of workspace ws: for 100644 and
// 120000 (symlink) a blob of content, for 160000 (gitlink) content is the
// commit id.
func (e *vsEnv) plantEntry(ws, mode, path, content string) {
	e.t.Helper()
	ref := "refs/tv/workspaces/" + ws
	idx := filepath.Join(e.base, "plant.index")
	defer os.Remove(idx)
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", append([]string{"--git-dir=" + e.vault}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+idx, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=mallory", "GIT_AUTHOR_EMAIL=m@example.invalid", "GIT_COMMITTER_NAME=mallory", "GIT_COMMITTER_EMAIL=m@example.invalid")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			e.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	old := run("", "rev-parse", ref)
	run("", "read-tree", ref)
	id := content
	if mode != "160000" {
		id = run(content, "hash-object", "-w", "--stdin")
	}
	run("", "update-index", "--add", "--cacheinfo", mode+","+id+","+path)
	commit := run(run("", "log", "-1", "--format=%B", old), "commit-tree", run("", "write-tree"), "-p", old)
	run("", "update-ref", ref, commit, old)
}

func TestMCPServeUsage(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	e.setup()
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--workspace", "demo"}, ExitUsage, "all-or-nothing"},
		{[]string{"--stage", "stages/01-research"}, ExitUsage, "all-or-nothing"},
		{[]string{"--workspace", "demo", "--stage", "stages/01-research/output"}, ExitUsage, "not a direct stage folder"},
		{[]string{"--workspace", "demo", "--stage", "research"}, ExitUsage, "not a direct stage folder"},
		{[]string{"extra"}, ExitUsage, "takes no arguments"},
	} {
		out, errs, code := e.tv("alice", "", append([]string{"mcp", "serve"}, c.args...)...)
		if code != c.code || out != "" || !strings.Contains(errs, c.msg) {
			t.Errorf("serve %v: exit %d (want %d), stdout %q, stderr %q", c.args, code, c.code, out, errs)
		}
	}
	// An unknown or invisible workspace, or no login, starts a server with
	// no tools: see TestMCPServeUnboundFailsClosed.
}

// TestMCPServeRawStdio: stdout carries JSON-RPC only, a line over the
// 1 MiB limit is answered with an error and serving goes on, and the
// server exits 0 when stdin closes.
func TestMCPServeRawStdio(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	e.setup()
	cmd := exec.Command(e.bin, "mcp", "serve")
	cmd.Env = e.env("alice")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		big := `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", vaultmcp.MaxInputLineBytes) + `"}}` + "\n"
		io.WriteString(in, big)
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
		io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"vault_whoami","arguments":{}}}`+"\n")
	}()
	// stdin closes once the last request is answered (or after 30 s).
	defer time.AfterFunc(30*time.Second, func() { in.Close() }).Stop()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	var lines []map[string]any
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		lines = append(lines, m)
		if m["id"] == float64(2) {
			in.Close()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit on stdin EOF: %v\n%s", err, stderr.String())
	}
	if len(lines) != 3 {
		t.Fatalf("%d responses: %v", len(lines), lines)
	}
	if errObj, _ := lines[0]["error"].(map[string]any); errObj == nil || lines[0]["id"] != float64(7) || errObj["code"] != float64(-32600) {
		t.Fatalf("oversized line answered with %v", lines[0])
	}
	res, _ := lines[1]["result"].(map[string]any)
	info, _ := res["serverInfo"].(map[string]any)
	if info["name"] != vaultmcp.ServerName || res["instructions"] == "" {
		t.Fatalf("initialize %v", lines[1])
	}
	if b, _ := json.Marshal(lines[2]); !strings.Contains(string(b), `\"user\":\"alice\"`) || strings.Contains(string(b), vsToken) {
		t.Fatalf("whoami %s", b)
	}
}

func TestMCPServeUnscoped(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	ws := e.setup()
	c := e.serve("alice", "")
	if got, want := c.names(t), []string{"vault_template_list", "vault_whoami", "vault_workspace_checkout", "vault_workspace_list"}; !slices.Equal(got, want) {
		t.Fatalf("unscoped tools %v, want %v", got, want)
	}
	var who struct{ User, Email, VaultID string }
	r := c.call(t, "vault_whoami", nil).ok(t, &who)
	if who.User != "alice" || strings.Contains(r.text, vsToken) || r.env.Repository != nil {
		t.Fatalf("whoami %s", r.text)
	}
	var wl struct {
		Workspaces []struct{ ID, Name, Rank string }
		Total      int
	}
	c.call(t, "vault_workspace_list", nil).ok(t, &wl)
	if wl.Total != 1 || wl.Workspaces[0].ID != ws || wl.Workspaces[0].Rank != "manage" {
		t.Fatalf("workspaces %+v", wl)
	}
	var tl struct{ Total int }
	c.call(t, "vault_template_list", nil).ok(t, &tl)
	if tl.Total != 1 {
		t.Fatalf("templates %+v", tl)
	}
	// Checkout is the CLI's: the mount registry records it.
	co := filepath.Join(e.base, "alice-co")
	var cd struct {
		Dir   string
		Files int
	}
	r = c.call(t, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": co}).ok(t, &cd)
	if cd.Dir != co || cd.Files < 10 || r.env.Repository.ID != ws {
		t.Fatalf("checkout %s", r.text)
	}
	reg, err := os.ReadFile(filepath.Join(e.state, "tv", "mounts.json"))
	if err != nil || !strings.Contains(string(reg), co) {
		t.Fatalf("mount registry %s %v", reg, err)
	}
	if out := e.must("alice", "workspace", "walk-test", co); !strings.Contains(out, "valid") {
		t.Fatalf("walk-test of the MCP checkout: %s", out)
	}
	c.call(t, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": co}).refused(t, "not empty")
	c.call(t, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": "relative"}).refused(t, "absolute")
	// Scoped tools do not exist here at all.
	if _, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "vault_file_info", Arguments: map[string]any{"path": "CLAUDE.md"}}); err == nil || !strings.Contains(err.Error(), `unknown tool "vault_file_info"`) {
		t.Fatalf("vault_file_info unscoped: %v", err)
	}
}

// TestMCPServeScopedRanks: the scoped list is declared ∩ rank for read,
// write and manage users; stage 02 declares no vault_file_find.
func TestMCPServeScopedRanks(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	ws := e.setup()
	e.must("alice", "access", "grant", "bob", "write", "demo:stages/01-research")
	e.must("alice", "access", "grant", "carol", "read", "demo")
	all := icm.KnownTools()
	sorted := func(l []string) []string { l = slices.Clone(l); slices.Sort(l); return l }
	for _, c := range []struct {
		user, stage string
		want        []string
	}{
		{"alice", "stages/01-research", all},
		{"bob", "01-research", all},
		{"carol", "stages/01-research", all[:4]},
		{"alice", "stages/02-draft", []string{"vault_file_info", "vault_file_read", "vault_workspace_walk_test", "vault_workspace_commit"}},
		{"carol", "02-draft", []string{"vault_file_info", "vault_file_read", "vault_workspace_walk_test"}},
	} {
		t.Run(c.user+"/"+c.stage, func(t *testing.T) {
			cl := e.serve(c.user, "", "--workspace", ws, "--stage", c.stage)
			if got := cl.names(t); !slices.Equal(got, sorted(c.want)) {
				t.Fatalf("visible %v, want %v", got, sorted(c.want))
			}
			if r := e.lastEvidence(); !slices.Equal(r.Visible, c.want) || r.Workspace != ws {
				t.Fatalf("evidence %+v", r)
			}
			var fi struct{ Path, Version string }
			r := cl.call(t, "vault_file_info", map[string]any{"path": "stages/" + strings.TrimPrefix(c.stage, "stages/") + "/CONTEXT.md"}).ok(t, &fi)
			if r.env.Repository == nil || r.env.Repository.ID != ws || r.env.Repository.Name != "demo" || len(fi.Version) != 40 {
				t.Fatalf("file info %s", r.text)
			}
			if !slices.Contains(c.want, "vault_workspace_commit") {
				cl.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": e.base, "reason": "x"}).refused(t, "not available in this scope")
			}
		})
	}
}

// TestMCPServeContractChange: a CONTEXT.md change committed through the
// CLI that drops a tool reaches the client as tools/list_changed, and the
// dropped tool's next call is refused — with the SDK's default protocol
// and with a 2025 one.
func TestMCPServeContractChange(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			e := newVSEnv(t)
			ws := e.setup()
			clock := testclock.New()
			c := e.serveAt(clock, "alice", version, "--workspace", "demo", "--stage", "stages/01-research")
			if got := c.names(t); len(got) != 5 {
				t.Fatalf("visible %v", got)
			}
			var fd struct{ Matched int }
			c.call(t, "vault_file_find", map[string]any{"pattern": "stages/*/CONTEXT.md"}).ok(t, &fd)
			if fd.Matched != 2 {
				t.Fatalf("find %+v", fd)
			}
			e.setPolicy("alice", "stages/01-research", "vault_file_info", "vault_file_read", "vault_workspace_walk_test", "vault_workspace_commit")
			clock.Advance(vaultmcp.ScopeTTL)
			c.call(t, "vault_file_find", map[string]any{"pattern": "**"}).refused(t, "vault_file_find refused", "not available in this scope")
			c.waitChanged(t)
			if got := c.names(t); slices.Contains(got, "vault_file_find") || len(got) != 4 {
				t.Fatalf("visible after the change %v", got)
			}
			r := e.lastEvidence()
			if r.Event != vaultmcp.EventChanged || r.Workspace != ws || len(r.Visible) != 4 || r.Hidden != 1 || r.Reason != vaultmcp.ReasonOK {
				t.Fatalf("evidence %+v", r)
			}
			c.call(t, "vault_file_info", map[string]any{"path": "stages/01-research/CONTEXT.md"}).ok(t, nil)
		})
	}
}

// TestMCPServeRevokeWrite: lowering bob's write to read makes
// vault_workspace_commit disappear the same way; his refused call leaves
// the vault unchanged.
func TestMCPServeRevokeWrite(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	ws := e.setup()
	e.must("alice", "access", "grant", "bob", "write", "demo:stages/01-research")
	clock := testclock.New()
	c := e.serveAt(clock, "bob", "", "--workspace", ws, "--stage", "stages/01-research")
	if got := c.names(t); !slices.Contains(got, "vault_workspace_commit") {
		t.Fatalf("bob with write: %v", got)
	}
	co := filepath.Join(e.base, "bob-co")
	e.must("bob", "workspace", "checkout", "demo", "--output", co)
	os.WriteFile(filepath.Join(co, "stages", "01-research", "output", "research.md"), []byte("findings\n"), 0o644)
	var wt struct {
		Valid, Changed bool
	}
	c.call(t, "vault_workspace_walk_test", map[string]any{"checkout_dir": co}).ok(t, &wt)
	if !wt.Valid || !wt.Changed {
		t.Fatalf("walk-test %+v", wt)
	}

	e.must("alice", "access", "grant", "bob", "read", "demo:stages/01-research")
	before := e.refs()
	clock.Advance(vaultmcp.ScopeTTL)
	c.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "bob: findings"}).refused(t, "not available in this scope", "rank")
	c.waitChanged(t)
	if got := c.names(t); slices.Contains(got, "vault_workspace_commit") || len(got) != 4 {
		t.Fatalf("bob with read: %v", got)
	}
	if e.refs() != before {
		t.Fatal("a refused call changed the vault")
	}
	if r := e.lastEvidence(); r.Event != vaultmcp.EventChanged || r.Rank != "read" || r.Reason != vaultmcp.ReasonRank {
		t.Fatalf("evidence %+v", r)
	}

	// Write again: the tool comes back and commits through the engine.
	e.must("alice", "access", "grant", "bob", "write", "demo:stages/01-research")
	clock.Advance(vaultmcp.ScopeTTL)
	var cr struct {
		Version string
		Added   int
	}
	c.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "bob: findings"}).ok(t, &cr)
	c.waitChanged(t)
	if cr.Added != 1 || !strings.Contains(e.must("alice", "workspace", "log", "demo"), "bob: findings") {
		t.Fatalf("commit %+v", cr)
	}
}

// TestMCPServePartialAccess: with read on one stage only, bob's checkout
// through vault_workspace_checkout holds just that stage; with write there
// too, a commit touching another stage is refused (isError through MCP,
// exit 5 through the CLI) and the vault is unchanged.
func TestMCPServePartialAccess(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	e.setup()
	e.must("alice", "access", "grant", "bob", "read", "demo:stages/01-research")
	u := e.serve("bob", "")
	co := filepath.Join(e.base, "bob-co")
	var cd struct {
		Scope []string
	}
	u.call(t, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": co}).ok(t, &cd)
	if !slices.Equal(cd.Scope, []string{"stages/01-research"}) {
		t.Fatalf("scope %v", cd.Scope)
	}
	filepath.Walk(co, func(p string, fi os.FileInfo, err error) error {
		rel, _ := filepath.Rel(co, p)
		if fi.Mode().IsRegular() && !strings.HasPrefix(rel, "stages/01-research/") && !strings.HasPrefix(rel, ".thalix") {
			t.Errorf("partial checkout holds %s", rel)
		}
		return nil
	})

	clock := testclock.New()
	s := e.serveAt(clock, "bob", "", "--workspace", "demo", "--stage", "01-research")
	if got := s.names(t); len(got) != 4 {
		t.Fatalf("bob with read: %v", got)
	}
	s.call(t, "vault_file_read", map[string]any{"path": "stages/02-draft/CONTEXT.md"}).refused(t, "permission_denied", "bob needs read")
	s.call(t, "vault_file_read", map[string]any{"path": "stages/01-research/CONTEXT.md"}).ok(t, nil)

	e.must("alice", "access", "grant", "bob", "write", "demo:stages/01-research")
	clock.Advance(vaultmcp.ScopeTTL)
	if got := s.names(t); len(got) != 5 {
		t.Fatalf("bob with write: %v", got)
	}
	os.MkdirAll(filepath.Join(co, "stages", "02-draft", "output"), 0o755)
	os.WriteFile(filepath.Join(co, "stages", "02-draft", "output", "note.md"), []byte("a note\n"), 0o644)
	before := e.refs()
	s.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "sneaky"}).refused(t, "permission_denied", "only change paths inside stages/01-research", "stages/02-draft/output/note.md")
	if _, errs, code := e.tv("bob", "", "workspace", "commit", co, "--reason", "sneaky"); code != ExitPermission {
		t.Fatalf("CLI commit: exit %d %s", code, errs)
	}
	if e.refs() != before {
		t.Fatal("a denied commit changed the vault")
	}
	// A checkout of another workspace is refused before the engine runs.
	e.must("alice", "workspace", "init", "--name", "other")
	e.must("alice", "access", "grant", "bob", "write", "other")
	oco := filepath.Join(e.base, "other-co")
	e.must("bob", "workspace", "checkout", "other", "--output", oco)
	s.call(t, "vault_workspace_walk_test", map[string]any{"checkout_dir": oco}).refused(t, "not of the scoped workspace")
}

// TestMCPServeFailClosed: malformed policies written with stock git (the
// CLI refuses them) leave no tool and refuse every call, each with its
// reason in the evidence; the evidence never holds the token, contract
// text or a local path.
func TestMCPServeFailClosed(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	ws := e.setup()
	const marker = "CONTRACT-TEXT-MARKER-4417"
	body := "# 01 Research\n\n" + marker + "\n"
	for _, c := range []struct{ content, reason string }{
		{"---\nmcp:\n  tools:\n    - vault_file_nuke_" + marker + "\n---\n" + body, icm.ReasonUnknownTool},
		{"---\nmcp:\n  tools: &x\n    - vault_file_info\n  more: *x\n---\n" + body, icm.ReasonAlias},
		{"\n---\nmcp:\n  tools:\n    - vault_file_info\n---\n" + body, icm.ReasonNotFirst},
		{"---\nmcp:\n  tools:\n    - vault_file_info\n    - vault_file_info\n---\n" + body, icm.ReasonDuplicateTool},
		{body, vaultmcp.ReasonMissing},
	} {
		t.Run(c.reason, func(t *testing.T) {
			e.forcePolicy(ws, "stages/01-research", c.content)
			cl := e.serve("alice", "", "--workspace", "demo", "--stage", "stages/01-research")
			if got := cl.names(t); len(got) != 0 {
				t.Fatalf("visible %v", got)
			}
			for _, name := range icm.KnownTools() {
				cl.call(t, name, map[string]any{"path": "CLAUDE.md"}).refused(t, "not available in this scope", "fail-closed", c.reason)
			}
			if r := e.lastEvidence(); r.Result != vaultmcp.ResultFailClosed || r.Reason != c.reason || len(r.Visible) != 0 || r.Hidden != 5 {
				t.Fatalf("evidence %+v", r)
			}
		})
	}
	b, err := os.ReadFile(filepath.Join(e.state, "tv", vaultmcp.EvidenceFileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{vsToken, marker, "vault_file_nuke", "mcp:", e.base, "/home", ".git"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("evidence holds %q", secret)
		}
	}
	if cfg, _ := os.ReadFile(filepath.Join(e.base, "home-alice", "config", "tv", "credentials.json")); !strings.Contains(string(cfg), vsToken) {
		t.Fatal("the token was never saved: the search above proves nothing")
	}
}

// TestMCPServeIdleListChanged: a scope change is announced to an idle
// client (no request after the change), with the SDK client's default
// protocol (2026-07-28: on its subscriptions/listen stream) and with a 2025
// one (issue 14: the announcement used to wait for the next request).
func TestMCPServeIdleListChanged(t *testing.T) {
	t.Parallel() // separate processes and directories; internal/tvcmd must stay inside go test's 10-minute budget
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			e := newVSEnv(t)
			e.setup()
			c := e.serve("alice", version, "--workspace", "demo", "--stage", "stages/01-research")
			if got := c.names(t); len(got) != 5 {
				t.Fatalf("visible %v", got)
			}
			e.setPolicy("alice", "stages/01-research", "vault_file_info", "vault_file_read")
			c.waitChanged(t)
			if got := c.names(t); len(got) != 2 {
				t.Fatalf("visible after the change %v", got)
			}
		})
	}
}
