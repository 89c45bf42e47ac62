package tvcmd

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/thalix/tv/mcptools"
)

// The end-to-end tests of `tv mcp local` drive the built tv binary over
// stdio with the official Go SDK's client, independent of the server's
// MCP library. (TestMain belongs to testscript, so the binary is built
// once on first use rather than in TestMain.)

func mcpLocalBinary(t *testing.T) string {
	t.Helper()
	return tvBin(t)
}

// localEnv is a private HOME/state for one server, with git pinned.
type localEnv struct {
	t    *testing.T
	base string
	env  []string
}

func newLocalEnv(t *testing.T) *localEnv {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o700)
	return &localEnv{t: t, base: base, env: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid",
	}}
}

func (e *localEnv) setenv(kv string) { e.env = append(e.env, kv) }

func (e *localEnv) git(dir string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = e.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo makes a git repository with one commit on main.
func (e *localEnv) repo(name string, files map[string]string) string {
	e.t.Helper()
	dir := filepath.Join(e.base, name)
	os.MkdirAll(dir, 0o755)
	e.git(dir, "init", "-q", "-b", "main")
	for p, c := range files {
		writeTestFile(e.t, filepath.Join(dir, p), c)
	}
	e.git(dir, "add", "-A")
	e.git(dir, "commit", "-q", "-m", "seed")
	return dir
}

func writeTestFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// start launches `tv mcp local` in dir and connects the SDK client.
func (e *localEnv) start(dir string, version string, args ...string) *mcp.ClientSession {
	e.t.Helper()
	cmd := exec.Command(mcpLocalBinary(e.t), append([]string{"mcp", "local"}, args...)...)
	cmd.Dir = dir
	cmd.Env = e.env
	cmd.Stderr = io.Discard
	client := mcp.NewClient(&mcp.Implementation{Name: "tv-e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

type callResult struct {
	tool    string
	raw     []byte // structured content as received
	text    string
	isError bool
	env     struct {
		CapturedAt int64                      `json:"captured_at"`
		Workspace  mcptools.WorkspaceRef      `json:"workspace"`
		Data       map[string]any             `json:"data"`
		Raw        map[string]json.RawMessage `json:"-"`
	}
	data json.RawMessage
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *callResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r := &callResult{tool: name, isError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		r.raw = b
		var raw struct {
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(b, &raw)
		json.Unmarshal(b, &r.env)
		r.data = raw.Data
	}
	return r
}

// ok requires a successful result with the envelope.
func (r *callResult) ok(t *testing.T) *callResult {
	t.Helper()
	if r.isError {
		t.Fatalf("isError: %s", r.text)
	}
	if r.env.CapturedAt < time.Now().Add(-time.Hour).Unix() || r.env.Workspace.ID == "" || r.data == nil {
		t.Fatalf("envelope missing: %+v", r.env)
	}
	if err := validateOutput(r.tool, r.raw); err != nil {
		t.Fatalf("%s: structured content does not match the output schema: %v", r.tool, err)
	}
	return r
}

// failed requires an isError result mentioning every word.
func (r *callResult) failed(t *testing.T, words ...string) {
	t.Helper()
	if !r.isError {
		t.Fatalf("expected isError, got: %s", r.text)
	}
	for _, w := range words {
		if !strings.Contains(r.text, w) {
			t.Fatalf("error %q does not mention %q", r.text, w)
		}
	}
}

func (r *callResult) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.data, v); err != nil {
		t.Fatalf("decode %s: %v", r.data, err)
	}
}

func TestMCPLocalProtocolVersions(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	for _, v := range mcp.SupportedProtocolVersions() {
		t.Run(v, func(t *testing.T) {
			cs := e.start(dir, v)
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %s, asked for %s", got, v)
			}
			// Conformance: initialize (above), ping (removed in 2026-07-28,
			// where the client does not send it), tools/list.
			if v < "2026-07-28" {
				if err := cs.Ping(context.Background(), nil); err != nil {
					t.Fatalf("ping: %v", err)
				}
			}
			if tl, err := cs.ListTools(context.Background(), nil); err != nil || len(tl.Tools) != len(mcptools.Tools()) {
				t.Fatalf("tools/list: %v", err)
			}
			var d struct{ Content string }
			call(t, cs, "read_file", map[string]any{"path": "a.txt"}).ok(t).decode(t, &d)
			if d.Content != "a\n" {
				t.Fatalf("content %q", d.Content)
			}
		})
	}
}

func TestMCPLocalToolList(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	cs := e.start(e.repo("repo", map[string]string{"a": "a"}), "")
	res, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		a := tl.Annotations
		if a == nil || a.Title == "" || a.DestructiveHint == nil || a.OpenWorldHint == nil || tl.OutputSchema == nil {
			t.Errorf("%s: annotations or output schema missing", tl.Name)
		}
		in, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(in), `"additionalProperties":false`) {
			t.Errorf("%s: input schema not strict: %s", tl.Name, in)
		}
	}
	var want []string
	for _, s := range mcptools.Tools() {
		want = append(want, s.Name)
	}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
}

func TestMCPLocalFileTools(t *testing.T) {
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{
		"src/main.go":    "package main\n\nfunc main() {\n\tprintln(\"old\")\n}\n",
		"notes.txt":      "one\ntwo\none\nthree",
		".gitignore":     "ignored.txt\n",
		"sub/.gitignore": "*.log\n",
		"AGENTS.md":      "Be careful.\n",
	})
	writeTestFile(t, filepath.Join(dir, "ignored.txt"), "secret one\n")
	writeTestFile(t, filepath.Join(dir, "sub", "x.log"), "one log\n")
	writeTestFile(t, filepath.Join(dir, "sub", "keep.txt"), "one kept\n")
	writeTestFile(t, filepath.Join(dir, "excluded.txt"), "one excluded\n")
	writeTestFile(t, filepath.Join(dir, ".git", "info", "exclude"), "excluded.txt\n")
	writeTestFile(t, filepath.Join(dir, "node_modules", "m.js"), "one\n")
	os.WriteFile(filepath.Join(dir, "bin.dat"), []byte("one\x00\x01\x02"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "escape"))
	os.Symlink("/etc", filepath.Join(dir, "escape-dir"))
	mkfifo(t, filepath.Join(dir, "fifo"))
	cs := e.start(dir, "")

	t.Run("read_file", func(t *testing.T) {
		var d struct {
			Content                       string
			StartLine, EndLine, TotalLine int
			TotalLines                    int `json:"total_lines"`
			SHA256                        string
		}
		r := call(t, cs, "read_file", map[string]any{"path": "notes.txt", "start_line": 2, "end_line": 3, "line_numbers": true}).ok(t)
		r.decode(t, &d)
		if d.Content != "2\ttwo\n3\tone\n" || d.TotalLines != 4 || d.SHA256 != mcptoolsSHA("one\ntwo\none\nthree") {
			t.Fatalf("%+v", d)
		}
		if r.env.Workspace.ID != "launch" || r.env.Workspace.Root != dir {
			t.Fatalf("workspace %+v", r.env.Workspace)
		}
		call(t, cs, "read_file", map[string]any{"path": "notes.txt", "start_line": 9}).failed(t, "past the end", "4 lines")
		call(t, cs, "read_file", map[string]any{"path": "../outside"}).failed(t, `".." components are refused`)
		call(t, cs, "read_file", map[string]any{"path": "/etc/passwd"}).failed(t, "absolute")
		call(t, cs, "read_file", map[string]any{"path": "escape"}).failed(t, "symlink")
		call(t, cs, "read_file", map[string]any{"path": `C:\x`}).failed(t, "backslash")
		call(t, cs, "read_file", map[string]any{"path": "missing.txt"}).failed(t, "no such file")
		call(t, cs, "read_file", map[string]any{"path": "fifo"}).failed(t, "fifo")
		call(t, cs, "read_file", map[string]any{"path": "bin.dat"}).failed(t, "not UTF-8")
		call(t, cs, "write_file", map[string]any{"path": "escape-dir/x", "content": "x"}).failed(t, "symlink")
	})

	t.Run("unknown field", func(t *testing.T) {
		call(t, cs, "read_file", map[string]any{"path": "notes.txt", "bogus": 1}).failed(t, "bogus")
		call(t, cs, "workspace_list", map[string]any{"surplus": true}).failed(t, "surplus")
		call(t, cs, "list_directory", map[string]any{"depth": 9}).failed(t, "maximum")
	})

	t.Run("list_directory", func(t *testing.T) {
		var d struct {
			Entries []struct{ Path, Type string }
		}
		call(t, cs, "list_directory", map[string]any{"depth": 3}).ok(t).decode(t, &d)
		var paths []string
		for _, en := range d.Entries {
			paths = append(paths, en.Path)
		}
		for _, p := range []string{"src/main.go", "sub/keep.txt", "notes.txt", "escape"} {
			if !slices.Contains(paths, p) {
				t.Errorf("missing %s in %v", p, paths)
			}
		}
		for _, p := range []string{"ignored.txt", "sub/x.log", "excluded.txt", "node_modules", ".git"} {
			if slices.Contains(paths, p) {
				t.Errorf("ignored %s listed", p)
			}
		}
		call(t, cs, "list_directory", map[string]any{"depth": 3, "include_ignored": true}).ok(t).decode(t, &d)
		paths = paths[:0]
		for _, en := range d.Entries {
			paths = append(paths, en.Path)
		}
		for _, p := range []string{"ignored.txt", "sub/x.log", "excluded.txt", "node_modules/m.js"} {
			if !slices.Contains(paths, p) {
				t.Errorf("include_ignored: missing %s", p)
			}
		}
		call(t, cs, "list_directory", map[string]any{"path": "escape"}).failed(t, "symlink")
	})

	t.Run("grep", func(t *testing.T) {
		var d struct {
			Matches []struct {
				Path string
				Line int
			}
			FilesScanned  int   `json:"files_scanned"`
			BytesScanned  int64 `json:"bytes_scanned"`
			BinarySkipped int   `json:"binary_skipped"`
			Stopped       string
		}
		call(t, cs, "grep", map[string]any{"pattern": "^one"}).ok(t).decode(t, &d)
		var got []string
		for _, m := range d.Matches {
			got = append(got, m.Path+":"+strconv.Itoa(m.Line))
		}
		if !slices.Equal(got, []string{"notes.txt:1", "notes.txt:3", "sub/keep.txt:1"}) {
			t.Fatalf("matches %v", got)
		}
		if d.FilesScanned == 0 || d.BytesScanned == 0 || d.BinarySkipped != 1 || d.Stopped != "" {
			t.Fatalf("%+v", d)
		}
		call(t, cs, "grep", map[string]any{"pattern": "one", "limit": 1}).ok(t).decode(t, &d)
		if len(d.Matches) != 1 || d.Stopped == "" {
			t.Fatalf("limit: %+v", d)
		}
		call(t, cs, "grep", map[string]any{"pattern": "one", "path": "sub/keep.txt"}).ok(t).decode(t, &d)
		if len(d.Matches) != 1 || d.Matches[0].Path != "sub/keep.txt" {
			t.Fatalf("grep on a file: %+v", d.Matches)
		}
		call(t, cs, "grep", map[string]any{"pattern": "one", "path": "escape-dir"}).failed(t, "symlink")
		call(t, cs, "grep", map[string]any{"pattern": "root:"}).ok(t).decode(t, &d)
		if len(d.Matches) != 0 {
			t.Fatalf("grep followed a symlink out of the workspace: %+v", d.Matches)
		}
		call(t, cs, "grep", map[string]any{"pattern": "(", "fixed_strings": false}).failed(t)
		call(t, cs, "grep", map[string]any{"pattern": strings.Repeat("x", 5000)}).failed(t)
	})

	t.Run("write_file and edit_tool", func(t *testing.T) {
		var w struct {
			SHA256  string
			Created bool
		}
		call(t, cs, "write_file", map[string]any{"path": "new/dir/f.txt", "content": "alpha\nbeta\nalpha\n"}).ok(t).decode(t, &w)
		if !w.Created || w.SHA256 != mcptoolsSHA("alpha\nbeta\nalpha\n") {
			t.Fatalf("%+v", w)
		}
		call(t, cs, "write_file", map[string]any{"path": "new/dir/f.txt", "content": "x", "expected_sha256": strings.Repeat("a", 64)}).failed(t, "not the expected")
		call(t, cs, "write_file", map[string]any{"path": ".git/config", "content": "x"}).failed(t, ".git")
		call(t, cs, "edit_tool", map[string]any{"path": "new/dir/f.txt", "edits": []map[string]any{{"op": "replace", "find": "alpha", "text": "A"}}}).failed(t, "at lines 1, 3")
		call(t, cs, "edit_tool", map[string]any{"path": "new/dir/f.txt", "edits": []map[string]any{
			{"op": "replace", "find": "beta", "text": "B"}, {"op": "delete", "find": "nope"}}}).failed(t, "edit 2", "no edit was applied")
		call(t, cs, "edit_tool", map[string]any{"path": "new/dir/f.txt", "expected_sha256": strings.Repeat("b", 64), "edits": []map[string]any{{"op": "replace", "find": "beta", "text": "B"}}}).failed(t, "not the expected")
		if b, _ := os.ReadFile(filepath.Join(dir, "new/dir/f.txt")); string(b) != "alpha\nbeta\nalpha\n" {
			t.Fatalf("refused edits changed the file: %q", b)
		}
		var ed struct {
			Diff   string
			SHA256 string
		}
		call(t, cs, "edit_tool", map[string]any{"path": "new/dir/f.txt", "expected_sha256": w.SHA256, "edits": []map[string]any{
			{"op": "replace", "find": "alpha", "text": "A", "which": "last"},
			{"op": "insert_after", "find": "beta\n", "text": "gamma\n"},
			{"op": "replace", "find": "alpha", "text": "first", "which": 0}}}).ok(t).decode(t, &ed)
		if b, _ := os.ReadFile(filepath.Join(dir, "new/dir/f.txt")); string(b) != "first\nbeta\ngamma\nA\n" {
			t.Fatalf("edited: %q", b)
		}
		if !strings.Contains(ed.Diff, "-alpha\n+first\n") || !strings.Contains(ed.Diff, "+gamma\n") {
			t.Fatalf("diff:\n%s", ed.Diff)
		}
	})

	t.Run("execute_bash", func(t *testing.T) {
		var d struct {
			ExitCode   int `json:"exit_code"`
			Output     string
			TimedOut   bool  `json:"timed_out"`
			DurationMS int64 `json:"duration_ms"`
		}
		call(t, cs, "execute_bash", map[string]any{"command": "pwd; echo err >&2", "cwd": "src"}).ok(t).decode(t, &d)
		if d.Output != filepath.Join(dir, "src")+"\nerr\n" || d.ExitCode != 0 {
			t.Fatalf("%+v", d)
		}
		call(t, cs, "execute_bash", map[string]any{"command": "echo failing; exit 4"}).failed(t, `"exit_code":4`, "failing")
		call(t, cs, "execute_bash", map[string]any{"command": "exit 4", "allow_nonzero_exit": true}).ok(t).decode(t, &d)
		if d.ExitCode != 4 {
			t.Fatalf("%+v", d)
		}
		call(t, cs, "execute_bash", map[string]any{"command": "true", "timeout_seconds": 46}).failed(t, "maximum")
		call(t, cs, "execute_bash", map[string]any{"command": "true", "cwd": "../"}).failed(t, "..")
		pidFile := filepath.Join(e.base, "grandchild.pid")
		r := call(t, cs, "execute_bash", map[string]any{"command": "sleep 100 & echo $! > " + pidFile + "; wait", "timeout_seconds": 1})
		r.failed(t, `"timed_out":true`)
		r.decode(t, &d)
		if !d.TimedOut {
			t.Fatalf("%+v", d)
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if pid == 0 || processAlive(pid, 2*time.Second) {
			t.Fatalf("grandchild %d still running after the timeout", pid)
		}
	})

	t.Run("workspace_info", func(t *testing.T) {
		var d struct {
			Workspace struct {
				ID, Root, Guidance string
				Git                *struct{ Branch, Head string }
				Dirty              *bool
			}
			Guidance *struct {
				File, Text string
				Truncated  bool
			} `json:"guidance_text"`
		}
		call(t, cs, "workspace_info", map[string]any{}).ok(t).decode(t, &d)
		if d.Workspace.ID != "launch" || d.Workspace.Root != dir || d.Workspace.Git == nil || d.Workspace.Git.Branch != "main" ||
			d.Workspace.Dirty == nil || !*d.Workspace.Dirty || d.Guidance == nil || d.Guidance.Text != "Be careful.\n" {
			t.Fatalf("%+v %+v", d.Workspace, d.Guidance)
		}
		call(t, cs, "workspace_info", map[string]any{"workspace": "worktree:/nope"}).failed(t, "unknown workspace")
	})
}

func mcptoolsSHA(s string) string {
	return fmt.Sprintf("%x", sha256Sum([]byte(s)))
}

func TestMCPLocalLineLimit(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	cs := e.start(dir, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "big.txt", "content": strings.Repeat("x", mcptools.MaxInputLineBytes)}})
	if err == nil || !strings.Contains(err.Error(), "1048576-byte") {
		t.Fatalf("oversize line: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil {
		t.Fatal("oversize write happened")
	}
	call(t, cs, "read_file", map[string]any{"path": "a.txt"}).ok(t)
	// Just under the limit is served.
	call(t, cs, "write_file", map[string]any{"path": "ok.txt", "content": strings.Repeat("y", mcptools.MaxInputLineBytes-2000)}).ok(t)
}

// TestMCPLocalRawStdio checks stdout carries JSON-RPC only, an unparseable
// oversize line is answered with id null, and the server exits cleanly
// when stdin closes.
func TestMCPLocalRawStdio(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	cmd := exec.Command(mcpLocalBinary(t), "mcp", "local")
	cmd.Dir, cmd.Env = dir, e.env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	sc.Scan()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(strings.Repeat("z", mcptools.MaxInputLineBytes+10))
	if !sc.Scan() || !strings.Contains(sc.Text(), `"id":null`) || !strings.Contains(sc.Text(), "-32600") {
		t.Fatalf("oversize reply: %.300s", sc.Text())
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"workspace_list","arguments":{}}}`)
	if !sc.Scan() || !strings.Contains(sc.Text(), `"id":2`) {
		t.Fatalf("after oversize: %.300s", sc.Text())
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				done <- fmt.Errorf("non-JSON on stdout: %q", sc.Text())
				return
			}
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("server did not exit when stdin closed")
	}
}

func TestMCPLocalBranchGate(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	cs := e.start(dir, "", "--require-branch", "staging/*")
	call(t, cs, "read_file", map[string]any{"path": "a.txt"}).ok(t)
	call(t, cs, "grep", map[string]any{"pattern": "a"}).ok(t)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "b.txt", "content": "b"}},
		{"edit_tool", map[string]any{"path": "a.txt", "edits": []map[string]any{{"op": "replace", "find": "a", "text": "b"}}}},
		{"execute_bash", map[string]any{"command": "touch c.txt"}},
	} {
		call(t, cs, c.tool, c.args).failed(t, "on branch main", `"staging/*"`)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("gate let a change through: %v", ents)
	}
	e.git(dir, "checkout", "-q", "-b", "staging/work")
	call(t, cs, "write_file", map[string]any{"path": "b.txt", "content": "b"}).ok(t)
	e.git(dir, "checkout", "-q", "--detach")
	call(t, cs, "execute_bash", map[string]any{"command": "true"}).failed(t, "detached")
}

func TestMCPLocalWorktrees(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "main\n"})
	cs := e.start(dir, "")
	ids := func() []string {
		var d struct {
			Workspaces []struct {
				ID  string
				Git *struct{ Branch string }
			}
		}
		call(t, cs, "workspace_list", nil).ok(t).decode(t, &d)
		var out []string
		for _, w := range d.Workspaces {
			id := w.ID
			if w.Git != nil {
				id += "@" + w.Git.Branch
			}
			out = append(out, id)
		}
		return out
	}
	if got := ids(); !slices.Equal(got, []string{"launch@main"}) {
		t.Fatalf("before: %v", got)
	}
	wt := filepath.Join(e.base, "wt-feature")
	e.git(dir, "worktree", "add", "-q", "-b", "feature", wt)
	writeTestFile(t, filepath.Join(wt, "a.txt"), "feature\n")
	if got := ids(); !slices.Equal(got, []string{"launch@main", "worktree:" + wt + "@feature"}) {
		t.Fatalf("after add: %v", got)
	}
	var d struct{ Content string }
	r := call(t, cs, "read_file", map[string]any{"path": "a.txt", "workspace": "worktree:" + wt}).ok(t)
	r.decode(t, &d)
	if d.Content != "feature\n" || r.env.Workspace.Kind != "worktree" {
		t.Fatalf("%q %+v", d.Content, r.env.Workspace)
	}
	e.git(dir, "worktree", "remove", "--force", wt)
	if got := ids(); !slices.Equal(got, []string{"launch@main"}) {
		t.Fatalf("after remove: %v", got)
	}
	call(t, cs, "read_file", map[string]any{"path": "a.txt", "workspace": "worktree:" + wt}).failed(t, "unknown workspace")
}

func TestMCPLocalWorkspacePaths(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	plain := filepath.Join(e.base, "plain")
	one := filepath.Join(e.base, "one")
	two := filepath.Join(e.base, "two")
	for _, d := range []string{plain, one, two} {
		writeTestFile(t, filepath.Join(d, "marker.txt"), filepath.Base(d)+"\n")
	}
	writeTestFile(t, filepath.Join(two, "AGENTS.md"), "two rules\n")
	os.Symlink(one, filepath.Join(e.base, "one-link"))
	missing := filepath.Join(e.base, "missing")
	e.setenv("TV_WORKSPACE_PATHS=" + strings.Join([]string{one, "  ", two, filepath.Join(e.base, "one-link"), missing, one}, string(os.PathListSeparator)))
	// A registry that TV_WORKSPACE_PATHS must replace.
	writeRegistry(t, e, filepath.Join(e.base, "registered"))
	cs := e.start(plain, "")
	var d struct {
		Workspaces []struct {
			ID, Kind    string
			Git         any
			HasGuidance bool `json:"has_guidance"`
		}
		Missing        []struct{ Path, Error string }
		CheckoutSource string `json:"checkout_source"`
	}
	call(t, cs, "workspace_list", map[string]any{}).ok(t).decode(t, &d)
	var ids []string
	for _, w := range d.Workspaces {
		ids = append(ids, w.ID)
	}
	if !slices.Equal(ids, []string{"launch", "checkout:" + one, "checkout:" + two}) || d.Workspaces[0].Git != nil || !d.Workspaces[2].HasGuidance {
		t.Fatalf("workspaces %+v", d.Workspaces)
	}
	if len(d.Missing) != 1 || d.Missing[0].Path != missing || d.CheckoutSource != "TV_WORKSPACE_PATHS" {
		t.Fatalf("missing %+v source %s", d.Missing, d.CheckoutSource)
	}
	var rf struct{ Content string }
	call(t, cs, "read_file", map[string]any{"path": "marker.txt", "workspace": "checkout:" + two}).ok(t).decode(t, &rf)
	if rf.Content != "two\n" {
		t.Fatalf("%q", rf.Content)
	}
	call(t, cs, "read_file", map[string]any{"path": "marker.txt"}).ok(t).decode(t, &rf)
	if rf.Content != "plain\n" {
		t.Fatalf("launch read %q", rf.Content)
	}
}

func writeRegistry(t *testing.T, e *localEnv, checkout string) {
	t.Helper()
	writeTestFile(t, filepath.Join(checkout, ".thalix-workspace.json"), `{"workspace_id":"ws_test"}`)
	writeTestFile(t, filepath.Join(checkout, "marker.txt"), "registered\n")
	reg := map[string]any{"mounts": []map[string]any{{"path": checkout, "workspace_id": "ws_test", "workspace_name": "demo", "checked_out_at": "2026-01-02T03:04:05Z"}}}
	b, _ := json.Marshal(reg)
	writeTestFile(t, filepath.Join(e.base, "home", "state", "tv", "mounts.json"), string(b))
}

func TestMCPLocalMountRegistry(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	plain := filepath.Join(e.base, "plain")
	os.MkdirAll(plain, 0o755)
	checkout := filepath.Join(e.base, "registered")
	writeRegistry(t, e, checkout)
	cs := e.start(plain, "")
	var d struct {
		Workspaces []struct {
			ID            string
			WorkspaceName string `json:"workspace_name"`
		}
		CheckoutSource string `json:"checkout_source"`
	}
	call(t, cs, "workspace_list", nil).ok(t).decode(t, &d)
	if len(d.Workspaces) != 2 || d.Workspaces[1].ID != "checkout:"+checkout || d.Workspaces[1].WorkspaceName != "demo" || d.CheckoutSource != "registry" {
		t.Fatalf("%+v", d)
	}
	var rf struct{ Content string }
	call(t, cs, "read_file", map[string]any{"path": "marker.txt", "workspace": "checkout:" + checkout}).ok(t).decode(t, &rf)
	if rf.Content != "registered\n" {
		t.Fatalf("%q", rf.Content)
	}
	// The registry is read at every call: unmounting shows at once.
	os.Remove(filepath.Join(checkout, ".thalix-workspace.json"))
	call(t, cs, "workspace_list", nil).ok(t).decode(t, &d)
	if len(d.Workspaces) != 1 {
		t.Fatalf("stale checkout still listed: %+v", d.Workspaces)
	}
}

// TestMCPLocalForget: `tv workspace forget DIR` removes the checkout's
// mount record, so a running `tv mcp local` stops serving it at its next
// call while the files stay; forgetting it again is exit 6; a record
// marked "mounted": false by hand is kept but not served.
func TestMCPLocalForget(t *testing.T) {
	t.Parallel()
	e := newLocalEnv(t)
	plain := filepath.Join(e.base, "plain")
	os.MkdirAll(plain, 0o755)
	checkout := filepath.Join(e.base, "registered")
	writeRegistry(t, e, checkout)
	cs := e.start(plain, "")
	var d struct{ Workspaces []struct{ ID string } }
	call(t, cs, "workspace_list", nil).ok(t).decode(t, &d)
	if len(d.Workspaces) != 2 {
		t.Fatalf("before forget: %+v", d.Workspaces)
	}
	forget := func() (string, int) {
		cmd := exec.Command(mcpLocalBinary(t), "workspace", "forget", checkout)
		cmd.Env = e.env
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	if out, code := forget(); code != 0 || !strings.Contains(out, "Forgot "+checkout) {
		t.Fatalf("forget: exit %d: %s", code, out)
	}
	call(t, cs, "workspace_list", nil).ok(t).decode(t, &d)
	if len(d.Workspaces) != 1 || d.Workspaces[0].ID != "launch" {
		t.Fatalf("forgotten checkout still served: %+v", d.Workspaces)
	}
	call(t, cs, "read_file", map[string]any{"path": "marker.txt", "workspace": "checkout:" + checkout}).failed(t)
	if b, err := os.ReadFile(filepath.Join(checkout, "marker.txt")); err != nil || string(b) != "registered\n" {
		t.Fatalf("forget touched the files: %q %v", b, err)
	}
	if out, code := forget(); code != ExitNotFound {
		t.Fatalf("second forget: exit %d, want %d: %s", code, ExitNotFound, out)
	}

	reg := map[string]any{"mounts": []map[string]any{{"path": checkout, "workspace_id": "ws_test", "workspace_name": "demo", "checked_out_at": "2026-01-02T03:04:05Z", "mounted": false}}}
	b, _ := json.Marshal(reg)
	writeTestFile(t, filepath.Join(e.base, "home", "state", "tv", "mounts.json"), string(b))
	call(t, cs, "workspace_list", nil).ok(t).decode(t, &d)
	if len(d.Workspaces) != 1 {
		t.Fatalf(`a record marked "mounted": false is served: %+v`, d.Workspaces)
	}
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// validateOutput checks structured content against the tool's output
// schema from the tool list.
func validateOutput(tool string, structured []byte) error {
	for _, s := range mcptools.Tools() {
		if s.Name != tool {
			continue
		}
		sch, _ := json.Marshal(s.OutputSchema())
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(sch)))
		if err != nil {
			return err
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem:///out.json", doc); err != nil {
			return err
		}
		compiled, err := c.Compile("mem:///out.json")
		if err != nil {
			return err
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(structured)))
		if err != nil {
			return err
		}
		return compiled.Validate(v)
	}
	return fmt.Errorf("unknown tool %s", tool)
}

// TestMCPLocalCancel: a client cancelling an execute_bash call
// (notifications/cancelled) kills the command's process group.
func TestMCPLocalCancel(t *testing.T) {
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	cs := e.start(dir, "")
	pidFile := filepath.Join(e.base, "cancel.pid")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_bash", Arguments: map[string]any{"command": "sleep 60 & echo $! > " + pidFile + "; wait", "timeout_seconds": 45}})
	if err == nil {
		t.Fatal("cancelled call returned a result")
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid == 0 || processAlive(pid, 3*time.Second) {
		t.Fatalf("cancelled command %d still running", pid)
	}
	call(t, cs, "read_file", map[string]any{"path": "a.txt"}).ok(t)
}
