// Package icm validates an ICM workspace tree and parses stage MCP policies.
//
// ICM (Interpretable Context Methodology) lays an agent workflow out as
// folders: a root that says where you are (CONTEXT.md plus CLAUDE.md or
// AGENTS.md) and numbered stages under stages/, each with a CONTEXT.md
// contract and an output/ folder. The profile is /work/shared/ICM.md.
//
// # Validation
//
// Validate walks an fs.FS rooted at the workspace root and returns one
// Finding per broken rule, each naming its rule id, severity, path and line,
// sorted by path, line and rule. It never follows symlinks: file types come
// from fs.DirEntry.Type(), and it opens only entries the walk reported as
// regular files. ValidateEntries does the same from a listing the caller
// already holds (a scan of the disk, say): every entry's slash path and
// type bits, in fs.WalkDir order. It checks the listing in one pass,
// looks entries up by binary search in walk order, opens only the .md
// files and allocates nothing per entry; ValidateTools is a walk into
// such a listing, then ValidateEntries. The rule ids, one per rule of the
// profile:
//
//	error   root-files      1: root has CONTEXT.md, and CLAUDE.md or AGENTS.md
//	                           (regular files, each within MaxMarkdownBytes)
//	error   stages          2: stages/ exists with at least one stage; every
//	                           folder directly in stages/ matches NN-slug or
//	                           NN_slug (lowercase slug); stage numbers unique
//	error   stage-files     3: every stage has CONTEXT.md (a regular file within
//	                           MaxMarkdownBytes) and an output/ folder
//	error   stage-headings  4: a stage CONTEXT.md has the level-2 headings
//	                           Inputs, Process, Outputs, each once, in that order
//	error   inputs-resolve  5: concrete Inputs paths resolve inside the workspace
//	error   policy          6: frontmatter, where present, is a valid policy
//	error   file-type       7: no symlink, device, FIFO, socket or other
//	                           irregular entry; no Inputs path or Outputs
//	                           location that points outside the tree
//	warning context-length     a CONTEXT.md over MaxContextLines lines
//	warning references         a stage without references/
//	warning gitkeep            an empty folder (without .gitkeep)
//	warning placeholder        a {{...}} placeholder left in a .md file
//	warning handoff            a stage whose Inputs do not mention the previous
//	                           stage's NN-slug/output
//
// # Decisions
//
// Stage names match ^\d{2}[-_][a-z0-9][a-z0-9_-]*$: the slug is lowercase
// (01-Research is an error with a hint). Plain files directly in stages/
// (a README.md, a .gitkeep) are allowed and are not stages; every folder
// there is a stage and must match. Stages are ordered by name, which for
// valid names is by number; "previous stage" for the handoff warning means
// the previous one in that order, so a gap (01, 03) still expects 03 to read
// 01's output.
//
// Headings are ATX headings ("## Inputs"), matched case-insensitively after
// trimming and removing a closing run of '#'; lines inside fenced code blocks
// and a leading frontmatter block are not headings. Setext headings do not
// count. A section runs from its heading to the next heading of level 1 or 2.
//
// Inputs paths: every Markdown table in the Inputs section whose header has
// a File/Location column (a header containing "location", or exactly
// "file", "files", "path" or "file/path", case-insensitively) contributes
// that column's cells. A cell holding code spans yields each span as a
// path; otherwise the whole cell, backticks removed and trimmed, is the
// path. A value is concrete, and checked, unless it is empty or only dashes,
// or contains "{{", "[", "*" or "://" (a URL is not a workspace path). Any
// other text is taken as a path, so write prose sources in brackets:
// "[the operator's question]". A concrete path:
//   - starting with "/" points outside the tree (file-type error);
//   - starting with "./" or "../" resolves relative to the stage folder only;
//   - otherwise resolves relative to the stage folder or, failing that, the
//     workspace root (so both references/rules.md and _config/voice.md work);
//   - is cleaned lexically; a candidate that climbs above the root is
//     refused, and if every candidate does, the path is a file-type error;
//   - must name an existing regular file or folder; with a trailing "/" it
//     must be a folder. Resolution uses the walked entries only, so it never
//     follows a symlink.
//
// The Location column of Outputs tables is checked the same way for escapes
// (rule 7) but need not exist: outputs are written later.
//
// Policy frontmatter is checked only in stage CONTEXT.md files (skills and
// notes elsewhere may carry their own frontmatter). A stage without
// frontmatter has no policy and draws no finding here; the vault MCP server
// treats a missing policy as fail-closed.
//
// Placeholders are found on every line of every .md file (including code
// blocks): the profile says none may survive setup. Of a non-contract .md
// file over MaxMarkdownBytes only the first MaxMarkdownBytes are scanned.
//
// # Policies
//
// ParsePolicy accepts exactly one shape (see its doc) and reports every other
// input with a *PolicyError whose Reason is one of the Reason constants; the
// error wraps ErrPolicy.
package icm
