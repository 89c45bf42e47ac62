// Package starter holds the bundled two-stage ICM starter template that
// `tv workspace init` creates a workspace from.
//
// The template is a research → draft workflow for an AI agent: a root
// CLAUDE.md and AGENTS.md (identity, folder map, routing, what to load), a
// root CONTEXT.md with a "## Task Routing" table, _config/voice.md (audience,
// tone and style), and two stages. stages/01-research turns the operator's
// question into sourced findings in output/research.md; stages/02-draft
// reads ../01-research/output/ and writes output/draft.md. Each stage
// contract declares its MCP tool policy in frontmatter and keeps its rules
// in references/. The tree passes icm.Validate with no finding and holds no
// {{...}} placeholder, so a new workspace is usable as created.
//
// The files live under files/ in this package and are embedded with the
// all: prefix, so the output/.gitkeep files are included.
package starter
