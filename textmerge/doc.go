// Package textmerge compares and merges text line by line: a shortest
// edit script between two texts (Myers' O(ND) algorithm), unified diff
// hunks with context, and the three-way merge of diff3 (two texts that
// both changed a common base), with git-style conflict markers where
// both changed the same lines differently.
//
// It is written here rather than imported: no maintained Go module
// offers a line-based three-way merge (the Go diff libraries in use,
// sergi/go-diff and pmezard/go-difflib, diff two texts only), and tv
// needs a few hundred lines whose behaviour its tests pin.
//
// Group is tv's one unified-diff hunk writer: it cuts any line diff (Op
// values, in order) into hunks with context and numbered lines. Hunks
// feeds it this package's own line diff (tv workspace diff); mcptools'
// edit_tool feeds it its bounded Myers diff.
//
// Lines keep their terminating "\n"; a text's last line may lack one.
package textmerge
