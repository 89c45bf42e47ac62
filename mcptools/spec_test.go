package mcptools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

var update = os.Getenv("UPDATE_TOOLSNAPS") == "1"

// TestToolSnapshots compares each tool's definition (as tools/list sends
// it) with testdata/toolsnaps/<tool>.snap; UPDATE_TOOLSNAPS=1 rewrites them.
func TestToolSnapshots(t *testing.T) {
	for _, s := range Tools() {
		t.Run(s.Name, func(t *testing.T) {
			got, err := json.MarshalIndent(s.MCPTool(), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "toolsnaps", s.Name+".snap")
			if update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with UPDATE_TOOLSNAPS=1 to create it)", err)
			}
			if string(got) != string(want) {
				t.Fatalf("tool definition of %s changed; review and run UPDATE_TOOLSNAPS=1 go test ./mcptools\ngot:\n%s", s.Name, got)
			}
		})
	}
	ents, _ := os.ReadDir(filepath.Join("testdata", "toolsnaps"))
	if len(ents) != len(Tools()) {
		t.Errorf("%d snapshot files for %d tools: remove stale snapshots", len(ents), len(Tools()))
	}
}

// TestToolsReadme fails when README.tools.md is not what the tool list
// generates (go generate ./mcptools rewrites it).
func TestToolsReadme(t *testing.T) {
	got := ToolsMarkdown(Tools())
	if update {
		if err := os.WriteFile("README.tools.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("README.tools.md")
	if err != nil || string(want) != got {
		t.Fatalf("README.tools.md is stale; run go generate ./mcptools (UPDATE_TOOLSNAPS=1)\nwant:\n%s", got)
	}
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
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil || a.Title == "" {
			t.Errorf("%s: annotation missing", s.Name)
		}
		if *a.ReadOnlyHint && (s.Gated || *a.DestructiveHint) {
			t.Errorf("%s: read-only tool gated or destructive", s.Name)
		}
		var out map[string]any
		if err := json.Unmarshal(def.RawOutputSchema, &out); err != nil {
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
	want := []string{"workspace_list", "workspace_info", "read_file", "list_directory", "grep", "write_file", "edit_tool", "execute_bash"}
	for i, s := range Tools() {
		if s.Name != want[i] {
			t.Errorf("tool %d is %s, want %s", i, s.Name, want[i])
		}
	}
}
