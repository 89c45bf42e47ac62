package mcptools

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/mcptools/internal/golden"
	"github.com/thalix/tv/mcptools/mcpkit"
)

// TestToolSnapshots compares each tool's definition (as tools/list sends
// it) with testdata/toolsnaps/<tool>.snap; UPDATE_TOOLSNAPS=1 rewrites them.
func TestToolSnapshots(t *testing.T) {
	defs := map[string]any{}
	for _, s := range Tools() {
		defs[s.Name] = s.MCPTool()
	}
	golden.Snapshots(t, filepath.Join("testdata", "toolsnaps"), defs, "run UPDATE_TOOLSNAPS=1 go test ./mcptools")
}

// TestToolsReadme fails when README.tools.md is not what the tool list
// generates (go generate ./mcptools rewrites it).
func TestToolsReadme(t *testing.T) {
	golden.File(t, "README.tools.md", mcpkit.ToolsMarkdown(Tools()), "run go generate ./mcptools")
}

// TestSpecsStrict checks every tool is strict and fully annotated.
func TestSpecsStrict(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Tools() {
		if seen[s.Name] {
			t.Errorf("duplicate tool %s", s.Name)
		}
		seen[s.Name] = true
		if s.Input["additionalProperties"] != false || s.Input["type"] != "object" {
			t.Errorf("%s: input schema not strict", s.Name)
		}
		def := s.MCPTool()
		a := def.Annotations
		if !allHints(t, a) || a.Title == "" {
			t.Errorf("%s: annotation missing", s.Name)
		}
		if a.ReadOnlyHint && (s.Gated || *a.DestructiveHint) {
			t.Errorf("%s: read-only tool gated or destructive", s.Name)
		}
		var out map[string]any
		if err := json.Unmarshal(def.OutputSchema.(json.RawMessage), &out); err != nil {
			t.Fatal(err)
		}
		req, _ := out["required"].([]any)
		if len(req) != 3 {
			t.Errorf("%s: output schema requires %v", s.Name, req)
		}
		if s.Description == "" || s.Title == "" {
			t.Errorf("%s: no description or title", s.Name)
		}
	}
	want := []string{"workspace_list", "workspace_info", "read_file", "list_directory", "grep", "write_file", "edit_tool", "execute_bash", "worktree_create", "worktree_remove"}
	for i, s := range Tools() {
		if s.Name != want[i] {
			t.Errorf("tool %d is %s, want %s", i, s.Name, want[i])
		}
	}
}

// allHints reports whether all four hints are on the wire (the SDK writes
// readOnlyHint and idempotentHint always, the others when set).
func allHints(t *testing.T, a *mcp.ToolAnnotations) bool {
	t.Helper()
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if _, ok := m[k].(bool); !ok {
			return false
		}
	}
	return true
}
