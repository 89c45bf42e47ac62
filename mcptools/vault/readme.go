package vaultmcp

//go:generate env UPDATE_TOOLSNAPS=1 go test -run ^(TestToolSnapshots|TestToolsReadme)$ .

import (
	"strings"

	"github.com/thalix/tv/mcptools"
)

// ToolsMarkdown renders the README's tool tables of `tv mcp serve`: the
// unscoped tools, then the scoped ones (each with the rank it needs), in
// list order.
func ToolsMarkdown() string {
	var b strings.Builder
	b.WriteString("<!-- Generated from vaultmcp.UnscopedTools() and vaultmcp.ScopedTools() by `go generate ./mcptools/vault`; do not edit. -->\n\n")
	b.WriteString("### Unscoped: `tv mcp serve`\n\n")
	b.WriteString(table(UnscopedTools()))
	b.WriteString("\n### Scoped: `tv mcp serve --workspace <id|name> --stage stages/NN-slug`\n\n")
	b.WriteString("Visible: the tools the stage's CONTEXT.md policy declares that your rank on the stage allows. ")
	b.WriteString("Rank needed: ")
	for i, s := range ScopedTools() {
		r, _ := ToolRank(s.Name)
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`" + s.Name + "` " + r.String())
	}
	b.WriteString(" (manage allows what write allows).\n\n")
	b.WriteString(table(ScopedTools()))
	return b.String()
}

// table is mcptools' table without its generated-from comment.
func table(specs []mcptools.Spec) string {
	t := mcptools.ToolsMarkdown(specs)
	if i := strings.Index(t, "\n\n"); i >= 0 && strings.HasPrefix(t, "<!--") {
		t = t[i+2:]
	}
	return t
}
