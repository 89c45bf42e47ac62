package tvcmd

import (
	"os"
	"strings"
	"testing"

	"github.com/thalix/tv/mcptools"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/mcptools/vaultmcp"
)

// readmeSections are the generated parts of README.md: each sits between
// <!-- begin NAME --> and <!-- end NAME --> markers and must equal what the
// code generates now. UPDATE_README=1 rewrites them.
var readmeSections = map[string]func() string{
	"local-tools": func() string { return mcpkit.ToolsMarkdown(mcptools.Tools()) },
	"vault-tools": vaultmcp.ToolsMarkdown,
}

func TestReadmeGeneratedSections(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for name, gen := range readmeSections {
		begin, end := "<!-- begin "+name+" -->\n", "<!-- end "+name+" -->"
		i, j := strings.Index(readme, begin), strings.Index(readme, end)
		if i < 0 || j < i {
			t.Errorf("README.md lacks the %q section markers", name)
			continue
		}
		want := gen()
		if got := readme[i+len(begin) : j]; got != want {
			if os.Getenv("UPDATE_README") != "" {
				readme = readme[:i+len(begin)] + want + readme[j:]
				continue
			}
			t.Errorf("README.md section %q is stale; run UPDATE_README=1 go test ./internal/tvcmd -run TestReadme", name)
		}
	}
	if os.Getenv("UPDATE_README") != "" {
		if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
