package vaultmcp

//go:generate env UPDATE_TOOLSNAPS=1 go test -run ^(TestToolSnapshots|TestToolsReadme)$ .
//go:generate env UPDATE_README=1 go test -run ^TestReadmeGeneratedSections$ ../../internal/tvcmd

import (
	"fmt"
	"strings"

	"github.com/thalix/tv/icm"

	"github.com/thalix/tv/mcptools/mcpkit"
)

// ToolsMarkdown renders the README's tool tables of `tv mcp serve`: the
// unscoped tools, then the scoped ones (each with the rank it needs), in
// list order.
func ToolsMarkdown() string {
	var b strings.Builder
	b.WriteString("<!-- Generated from vaultmcp.UnscopedTools() and vaultmcp.ScopedTools() by `go generate ./mcptools/vaultmcp` (this section in README.md and mcptools/vaultmcp/README.tools.md); do not edit. -->\n\n")
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
	b.WriteString("\n### Scope, evidence and limits\n\n")
	fmt.Fprintf(&b, "- Scope is resolved from the workspace head, the stage CONTEXT.md blob id and the access version, cached for at most %v (ScopeTTL) and checked before every tools/list and tools/call. ", ScopeTTL)
	b.WriteString("A change of the visible set sends notifications/tools/list_changed; a call to a tool not visible now is an isError refusal.\n")
	fmt.Fprintf(&b, "- Fail-closed reasons: the icm policy reason codes (%s), and %s, %s, %s, %s, %s, %s. A scoped result's reason is %s, or %s when the rank hides declared tools.\n",
		strings.Join(icm.PolicyReasons(), ", "), ReasonMissing, ReasonRank, ReasonNotLoggedIn, ReasonNotFound, ReasonContractRefused, ReasonError, ReasonOK, ReasonRank)
	fmt.Fprintf(&b, "- Evidence: one JSON line per resolution with new inputs or outcome in $XDG_STATE_HOME/tv/%s (default ~/.local/state/tv/), at most %d bytes (MaxEvidenceBytes; the oldest records go first).\n", EvidenceFileName, MaxEvidenceBytes)
	fmt.Fprintf(&b, "- Results: structured {captured_at, repository, data} of at most %d bytes (MaxStructuredBytes); input lines at most %d bytes (MaxInputLineBytes); vault_file_read and vault_file_info read files of at most %d bytes (MaxFileBytes).\n", MaxStructuredBytes, MaxInputLineBytes, MaxFileBytes)
	return b.String()
}

// table is mcptools' table without its generated-from comment.
func table(specs []mcpkit.Spec) string {
	t := mcpkit.ToolsMarkdown(specs)
	if i := strings.Index(t, "\n\n"); i >= 0 && strings.HasPrefix(t, "<!--") {
		t = t[i+2:]
	}
	return t
}
