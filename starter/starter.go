package starter

import (
	"embed"
	"io/fs"
)

// Name is the built-in template's name.
const Name = "icm-starter"

// Description is a one-line description of the built-in template.
const Description = "Two-stage ICM workspace for an AI agent: 01-research gathers sourced findings, 02-draft turns them into a draft"

//go:embed all:files
var files embed.FS

// FS returns the starter workspace, rooted at the workspace root (the
// directory holding CLAUDE.md, AGENTS.md, CONTEXT.md and stages/). It is
// read-only and holds only regular files and directories.
func FS() fs.FS {
	sub, err := fs.Sub(files, "files")
	if err != nil {
		panic("starter: embedded files missing: " + err.Error()) // cannot happen: files is embedded above
	}
	return sub
}
