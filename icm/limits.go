package icm

// Limits this package enforces. Messages print them; the README lists them.
const (
	// MaxPolicyBytes bounds a stage policy frontmatter block, counted from
	// the opening `---` line through the closing `---` line inclusive.
	MaxPolicyBytes = 4 << 10 // 4 KiB

	// MaxPolicyTools bounds the number of entries in a policy's tools list.
	MaxPolicyTools = 32

	// MaxMarkdownBytes bounds every Markdown file Validate reads. A contract
	// file (root CONTEXT.md, CLAUDE.md, AGENTS.md, a stage CONTEXT.md) over
	// it is an error and is not parsed; of any other .md file only the first
	// MaxMarkdownBytes are scanned for placeholders.
	MaxMarkdownBytes = 256 << 10 // 256 KiB

	// MaxContextLines is the line count above which a CONTEXT.md draws a
	// "context-length" warning: a contract routes, it does not hold content.
	MaxContextLines = 80
)
