package vaultmcp

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/mcptools/internal/golden"

	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/mcptools/mcpkit"
)

func allSpecs() []mcpkit.Spec { return append(UnscopedTools(), ScopedTools()...) }

// TestToolSnapshots compares each tool's definition (as tools/list sends
// it) with testdata/toolsnaps/<tool>.snap; UPDATE_TOOLSNAPS=1 rewrites them.
func TestToolSnapshots(t *testing.T) {
	defs := map[string]any{}
	for _, s := range allSpecs() {
		defs[s.Name] = MCPTool(s)
	}
	golden.Snapshots(t, filepath.Join("testdata", "toolsnaps"), defs, "run UPDATE_TOOLSNAPS=1 go test ./mcptools/vaultmcp")
}

// TestToolsReadme fails when README.tools.md is not what the tool list
// generates (go generate ./mcptools/vaultmcp rewrites it).
func TestToolsReadme(t *testing.T) {
	golden.File(t, "README.tools.md", ToolsMarkdown(), "run go generate ./mcptools/vaultmcp")
}

// TestSpecs checks the two lists: exact names, strict input schemas,
// every annotation set, the vault envelope as output schema, and the
// scoped list is exactly the tools a stage policy may name.
func TestSpecs(t *testing.T) {
	var names []string
	for _, s := range UnscopedTools() {
		names = append(names, s.Name)
	}
	if want := []string{"vault_whoami", "vault_template_list", "vault_workspace_list", "vault_workspace_checkout"}; !slices.Equal(names, want) {
		t.Fatalf("unscoped tools %v, want %v", names, want)
	}
	names = nil
	for _, s := range ScopedTools() {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, icm.KnownTools()) {
		t.Fatalf("scoped tools %v, want icm.KnownTools() %v", names, icm.KnownTools())
	}
	for _, n := range names {
		r, ok := ToolRank(n)
		want := "read"
		if n == "vault_workspace_commit" {
			want = "write"
		}
		if !ok || r.String() != want {
			t.Errorf("%s needs %v, want %s", n, r, want)
		}
	}
	if _, ok := ToolRank("vault_whoami"); ok {
		t.Error("vault_whoami has a stage rank")
	}
	for _, s := range allSpecs() {
		if s.Input["additionalProperties"] != false || s.Input["type"] != "object" {
			t.Errorf("%s: input schema not strict", s.Name)
		}
		def := MCPTool(s)
		a := def.Annotations
		if !hintsSet(a) || a.Title == "" || s.Description == "" {
			t.Errorf("%s: annotation, title or description missing", s.Name)
		}
		if a.ReadOnlyHint && *a.DestructiveHint {
			t.Errorf("%s: read-only and destructive", s.Name)
		}
		var out struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(def.OutputSchema.(json.RawMessage), &out); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out.Required, []string{"captured_at", "repository", "data"}) || out.Properties["workspace"] != nil {
			t.Errorf("%s: output schema requires %v", s.Name, out.Required)
		}
	}
}

// hintsSet reports whether the pointer hints are set (the SDK writes
// readOnlyHint and idempotentHint always).
func hintsSet(a *mcp.ToolAnnotations) bool { return a.DestructiveHint != nil && a.OpenWorldHint != nil }
