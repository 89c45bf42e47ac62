package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/wsfs"
)

func editSchema() mcpkit.Schema {
	return mcpkit.Object(mcpkit.Schema{
		"op":   mcpkit.With(mcpkit.Str("replace, insert_before, insert_after or delete"), "enum", []string{OpReplace, OpInsertBefore, OpInsertAfter, OpDelete}),
		"find": mcpkit.With(mcpkit.Str("exact, non-empty text to find (whitespace included)"), "minLength", 1),
		"text": mcpkit.Str("replacement or inserted text; non-empty for replace and insert, absent for delete"),
		"which": mcpkit.Schema{
			"description": `which match: "only" (default; exactly one match required), "first", "last" or a zero-based match index`,
			"oneOf": []mcpkit.Schema{
				{"type": "string", "enum": []string{"only", "first", "last"}},
				{"type": "integer", "minimum": 0},
			},
			"default": "only",
		},
	}, "op", "find")
}

func editToolSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "edit_tool",
		Title: "Edit file",
		Description: fmt.Sprintf("Edits a text file of a workspace by exact find text: replace, insert_before, insert_after or delete, 1 to %d edits (MaxEdits) applied in order, all or nothing. ", MaxEdits) +
			"which selects the match: only (default; zero or several matches is an error listing the matching line numbers), first, last or a zero-based index. " +
			fmt.Sprintf("The write is atomic; with expected_sha256 it is refused, changing nothing, when the file is no longer that version. Returns a unified diff (at most %d bytes, MaxDiffBytes). Obeys the branch gate (--require-branch).", MaxDiffBytes),
		Input: mcpkit.Object(mcpkit.Schema{
			"path":            mcpkit.Str("file path relative to the workspace root"),
			"edits":           mcpkit.With(mcpkit.Array(editSchema(), "edits, applied in order"), "minItems", 1, "maxItems", MaxEdits),
			"workspace":       workspaceArg(),
			"expected_sha256": expectedSHAArg(),
		}, "path", "edits"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"path":            mcpkit.Str("cleaned workspace-relative path"),
			"edits_applied":   mcpkit.Int("edits applied"),
			"previous_sha256": mcpkit.Str("SHA-256 before the edits"),
			"sha256":          mcpkit.Str("SHA-256 after the edits"),
			"bytes":           mcpkit.Int("new size"),
			"diff":            mcpkit.Str("unified diff of the change"),
			"diff_truncated":  mcpkit.Bool("the diff was cut at MaxDiffBytes"),
		}, "path", "edits_applied", "previous_sha256", "sha256", "bytes", "diff", "diff_truncated"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: false},
		Gated:       true,
	}
}

type editToolArgs struct {
	Path           string `json:"path"`
	Edits          []Edit `json:"edits"`
	Workspace      string `json:"workspace"`
	ExpectedSHA256 string `json:"expected_sha256"`
}

type editToolData struct {
	Path           string `json:"path"`
	EditsApplied   int    `json:"edits_applied"`
	PreviousSHA256 string `json:"previous_sha256"`
	SHA256         string `json:"sha256"`
	Bytes          int    `json:"bytes"`
	Diff           string `json:"diff"`
	DiffTruncated  bool   `json:"diff_truncated"`
}

func (l *Local) editTool(_ context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a editToolArgs
	if err := mcpkit.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	w, f, err := l.openGated(a.Workspace)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, _, err := f.ReadFile(a.Path, MaxReadBytes)
	if err != nil {
		return nil, err
	}
	clean, _ := wsfs.CleanPath(a.Path)
	d := editToolData{Path: clean, PreviousSHA256: wsfs.SHA256Hex(b)}
	if a.ExpectedSHA256 != "" && !strings.EqualFold(a.ExpectedSHA256, d.PreviousSHA256) {
		return nil, fmt.Errorf("%w: %s now has sha256 %s, not the expected %s; read it again and redo the edits (nothing was changed)", wsfs.ErrStale, wsfs.Show(clean), d.PreviousSHA256, a.ExpectedSHA256)
	}
	// The same text test as read_file: a NUL byte or invalid UTF-8 is a
	// binary file, which edit_tool must not rewrite either.
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return nil, fmt.Errorf("%s is not UTF-8 text (binary file?); edit_tool edits text files, as read_file reads them (nothing was changed)", wsfs.Show(clean))
	}
	next, err := ApplyEdits(string(b), a.Edits)
	if err != nil {
		return nil, err
	}
	res, err := f.WriteFile(clean, []byte(next), wsfs.WriteOptions{ExpectedSHA256: d.PreviousSHA256, MaxBytes: MaxWriteBytes})
	if err != nil {
		return nil, err
	}
	d.EditsApplied, d.SHA256, d.Bytes = len(a.Edits), res.SHA256, len(next)
	d.Diff, d.DiffTruncated = UnifiedDiff(clean, string(b), next, MaxDiffBytes)
	return l.success(w, d)
}
