package starter_test

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/mcptools/vaultmcp"
	"github.com/thalix/tv/starter"
)

// known are the names of the vault server's scoped tools, from its tool
// list: the tools a stage policy may declare.
var known = func() []string {
	var names []string
	for _, s := range vaultmcp.ScopedTools() {
		names = append(names, s.Name)
	}
	return names
}()

// without returns the known tools but one.
func without(name string) []string {
	return slices.DeleteFunc(slices.Clone(known), func(n string) bool { return n == name })
}

func TestValidateClean(t *testing.T) {
	for _, tools := range [][]string{nil, known} {
		var (
			findings []icm.Finding
			err      error
		)
		if tools == nil {
			findings, err = icm.Validate(starter.FS())
		} else {
			findings, err = icm.ValidateTools(starter.FS(), tools)
		}
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		for _, f := range findings {
			t.Errorf("finding: %s", f)
		}
	}
}

func TestStagePolicies(t *testing.T) {
	want := map[string][]string{
		"stages/01-research/CONTEXT.md": known,
		"stages/02-draft/CONTEXT.md":    without("vault_file_find"),
	}
	stages, err := fs.Glob(starter.FS(), "stages/*/CONTEXT.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != len(want) {
		t.Fatalf("stages %v, want %d", stages, len(want))
	}
	for _, p := range stages {
		data, err := fs.ReadFile(starter.FS(), p)
		if err != nil {
			t.Fatal(err)
		}
		pol, err := icm.ParsePolicy(data, known)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if pol == nil {
			t.Fatalf("%s has no policy", p)
		}
		if !slices.Equal(pol.Tools, want[p]) {
			t.Errorf("%s tools = %v, want %v", p, pol.Tools, want[p])
		}
	}
}

func TestLayout(t *testing.T) {
	var files []string
	err := fs.WalkDir(starter.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			if !d.Type().IsRegular() {
				t.Errorf("%s is not a regular file", p)
			}
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"AGENTS.md", "CLAUDE.md", "CONTEXT.md", "_config/voice.md",
		"stages/01-research/CONTEXT.md", "stages/01-research/references/research-rules.md", "stages/01-research/output/.gitkeep",
		"stages/02-draft/CONTEXT.md", "stages/02-draft/references/draft-rules.md", "stages/02-draft/output/.gitkeep",
	} {
		if !slices.Contains(files, p) {
			t.Errorf("starter lacks %s (has %v)", p, files)
		}
	}
	root, err := fs.ReadFile(starter.FS(), "CONTEXT.md")
	if err != nil || !strings.Contains(string(root), "\n## Task Routing\n") {
		t.Errorf("root CONTEXT.md lacks a Task Routing table (%v)", err)
	}
	for _, p := range files {
		data, err := fs.ReadFile(starter.FS(), p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "{{") || strings.Contains(string(data), "}}") {
			t.Errorf("%s holds a placeholder", p)
		}
		if path.Base(p) == "CONTEXT.md" {
			if n := strings.Count(string(data), "\n"); n > icm.MaxContextLines*3/4 {
				t.Errorf("%s has %d lines; keep contracts well under %d", p, n, icm.MaxContextLines)
			}
		}
	}
}

func TestNameAndDescription(t *testing.T) {
	if starter.Name != "icm-starter" {
		t.Errorf("Name = %q", starter.Name)
	}
	if starter.Description == "" || strings.Contains(starter.Description, "\n") {
		t.Errorf("Description = %q, want one line", starter.Description)
	}
}
