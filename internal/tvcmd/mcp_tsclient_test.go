package tvcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/thalix/tv/mcptools"
)

// The TypeScript SDK client and the Inspector's CLI, installed by
// mcptools/internal/tsclient/install.sh (npm; .ci/run runs it). Tests
// that need them skip with a message when node or npm is absent.
var (
	nodeOnce sync.Once
	nodeDir  string
	nodeErr  string
)

// nodeClients returns the directory holding node_modules with the
// TypeScript SDK and the Inspector, with client.mjs copied in (ES modules
// resolve packages from the script's directory), or skips.
func nodeClients(t *testing.T) string {
	t.Helper()
	nodeOnce.Do(func() {
		if _, err := exec.LookPath("node"); err != nil {
			nodeErr = "node is not installed (apt-get install nodejs npm); the TypeScript SDK client tests need it"
			return
		}
		src, _ := filepath.Abs(filepath.Join("..", "..", "mcptools", "internal", "tsclient"))
		out, err := exec.Command("bash", filepath.Join(src, "install.sh")).Output()
		if err != nil {
			nodeErr = "installing the TypeScript SDK and Inspector with npm failed (" + err.Error() + "); run mcptools/internal/tsclient/install.sh"
			return
		}
		nodeDir = strings.TrimSpace(string(out))
		script, err := os.ReadFile(filepath.Join(src, "client.mjs"))
		if err == nil {
			err = os.WriteFile(filepath.Join(nodeDir, "client.mjs"), script, 0o644)
		}
		if err != nil {
			nodeErr = err.Error()
		}
	})
	if nodeErr != "" {
		t.Skip(nodeErr)
	}
	return nodeDir
}

// tsClient runs client.mjs's scenario against `tv mcp local` in dir and
// decodes its report into v.
func (e *localEnv) tsClient(dir, scenario string, extraEnv []string, v any) {
	e.t.Helper()
	nd := nodeClients(e.t)
	cmd := exec.Command("node", filepath.Join(nd, "client.mjs"), scenario, "--", mcpLocalBinary(e.t), "mcp", "local")
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, e.env...), extraEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("TypeScript client %s: %v\n%s", scenario, err, stderr.Bytes())
	}
	if err := json.Unmarshal(out, v); err != nil {
		e.t.Fatalf("TypeScript client %s printed %q: %v", scenario, out, err)
	}
}

// TestMCPLocalTypeScriptOversize: the TypeScript SDK writes a request's id
// last; a write_file over the 1 MiB input-line limit must still get its
// error answer (-32600 naming the limit), not hang until the client's
// timeout, and the session goes on (issue 14, defect 1).
func TestMCPLocalTypeScriptOversize(t *testing.T) {
	t.Parallel() // separate processes and directories; internal/tvcmd must stay inside go test's 10-minute budget
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	var r struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
		After   string `json:"after"`
		Result  string `json:"result"`
	}
	e.tsClient(dir, "oversize", nil, &r)
	if r.Code == nil || *r.Code != -32600 || !strings.Contains(r.Message, "MaxInputLineBytes") || r.After != "ping ok" {
		t.Fatalf("TypeScript client saw %+v; want error -32600 naming MaxInputLineBytes, then a working session", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil {
		t.Fatal("the refused write happened")
	}
}

// TestMCPLocalTypeScriptTools: the TypeScript SDK client lists the tools
// and calls them; it validates every structured result against the
// tool's output schema (an invalid one is an error), and each text block
// is the serialized structured result (issue 14, defect 7).
func TestMCPLocalTypeScriptTools(t *testing.T) {
	t.Parallel() // separate processes and directories; internal/tvcmd must stay inside go test's 10-minute budget
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "one\ntwo\n", "AGENTS.md": "be kind\n", "src/x.go": "package x\n"})
	calls := map[string]any{
		"workspace_list": map[string]any{},
		"workspace_info": map[string]any{},
		"read_file":      map[string]any{"path": "a.txt", "line_numbers": true},
		"list_directory": map[string]any{"depth": 2},
		"grep":           map[string]any{"pattern": "two"},
		"write_file":     map[string]any{"path": "b.txt", "content": "b\n"},
		"edit_tool":      map[string]any{"path": "src/x.go", "edits": []map[string]any{{"op": "replace", "find": "package x", "text": "package y"}}},
		"execute_bash":   map[string]any{"command": "echo hi"},
	}
	b, _ := json.Marshal(calls)
	var r struct {
		Tools []string `json:"tools"`
		Calls map[string]struct {
			IsError    bool   `json:"isError"`
			Structured bool   `json:"structured"`
			Text       string `json:"text"`
			Error      string `json:"error"`
		} `json:"calls"`
	}
	e.tsClient(dir, "tools", []string{"TOOLS_CALLS=" + string(b)}, &r)
	if len(r.Tools) != len(mcptools.Tools()) {
		t.Fatalf("tools %v", r.Tools)
	}
	for name := range calls {
		c := r.Calls[name]
		var env map[string]any
		if c.Error != "" || c.IsError || !c.Structured || json.Unmarshal([]byte(c.Text), &env) != nil || env["data"] == nil {
			t.Errorf("%s: %+v", name, c)
		}
	}
}

// TestMCPInspectorStrict: the Inspector's CLI, tools/list with --strict,
// reports no schema portability problem for `tv mcp local` nor for `tv mcp
// serve` (issue 14: the Inspector warned on every nullable output member).
func TestMCPInspectorStrict(t *testing.T) {
	t.Parallel() // separate processes and directories; internal/tvcmd must stay inside go test's 10-minute budget
	nd := nodeClients(t)
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	for _, args := range [][]string{{"mcp", "local"}, {"mcp", "serve"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command(filepath.Join(nd, "node_modules", ".bin", "mcp-inspector"), append([]string{"--cli", "--strict", "--method", "tools/list", mcpLocalBinary(t)}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(append([]string{}, e.env...), "TV_VAULT="+filepath.Join(e.base, "vault.git"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 || !bytes.Contains(out, []byte(`"tools"`)) {
				t.Fatalf("inspector --strict: %v\nstderr: %s\nstdout: %.500s", err, stderr.Bytes(), out)
			}
		})
	}
}
