package mcptools

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/thalix/tv/mcptools/mcpkit"
)

// Edit operations of edit_tool.
const (
	OpReplace      = "replace"
	OpInsertBefore = "insert_before"
	OpInsertAfter  = "insert_after"
	OpDelete       = "delete"
)

// Edit is one edit_tool edit: find exact, non-empty text and replace it,
// insert text before or after it, or delete it. Which selects among the
// matches: "only" (default; exactly one match required), "first", "last"
// or a zero-based match index.
type Edit struct {
	Op    string          `json:"op"`
	Find  string          `json:"find"`
	Text  string          `json:"text,omitempty"`
	Which json.RawMessage `json:"which,omitempty"`
}

// maxListedLines bounds the line numbers an ambiguity error lists.
const maxListedLines = 20

// ApplyEdits applies edits in order, each to the result of the ones
// before. It is all or nothing: on any error the content is returned
// unchanged with an error naming the edit (1-based) and, for a missing or
// ambiguous match, the line numbers of the matches.
func ApplyEdits(content string, edits []Edit) (string, error) {
	if len(edits) == 0 {
		return content, fmt.Errorf("%w: edits is empty; give at least one edit", mcpkit.ErrBadArguments)
	}
	if len(edits) > MaxEdits {
		return content, fmt.Errorf("%w: %d edits given, at most %d (MaxEdits)", mcpkit.ErrBadArguments, len(edits), MaxEdits)
	}
	cur := content
	for i, e := range edits {
		next, err := applyEdit(cur, e)
		if err != nil {
			return content, fmt.Errorf("edit %d (%s): %w; no edit was applied", i+1, e.Op, err)
		}
		cur = next
	}
	return cur, nil
}

func applyEdit(s string, e Edit) (string, error) {
	switch e.Op {
	case OpReplace, OpInsertBefore, OpInsertAfter:
		if e.Text == "" {
			return s, fmt.Errorf("%w: %s needs non-empty text", mcpkit.ErrBadArguments, e.Op)
		}
	case OpDelete:
		if e.Text != "" {
			return s, fmt.Errorf("%w: delete takes no text", mcpkit.ErrBadArguments)
		}
	default:
		return s, fmt.Errorf("%w: op %q is not replace, insert_before, insert_after or delete", mcpkit.ErrBadArguments, e.Op)
	}
	if e.Find == "" {
		return s, fmt.Errorf("%w: find must be non-empty exact text", mcpkit.ErrBadArguments)
	}
	which, idx, err := parseWhich(e.Which)
	if err != nil {
		return s, err
	}
	pos := matches(s, e.Find)
	var at int
	switch {
	case len(pos) == 0:
		return s, fmt.Errorf("find text not found (it must match exactly, whitespace included)")
	case which == "only" && len(pos) > 1:
		return s, fmt.Errorf("find text matches %d times, at lines %s; which \"only\" needs exactly one match: add surrounding text to find, or set which to \"first\", \"last\" or a zero-based index", len(pos), matchLines(s, pos))
	case which == "only" || which == "first":
		at = pos[0]
	case which == "last":
		at = pos[len(pos)-1]
	case idx >= len(pos):
		return s, fmt.Errorf("which is %d but find text matches %d time(s), at lines %s (indexes are zero-based)", idx, len(pos), matchLines(s, pos))
	default:
		at = pos[idx]
	}
	end := at + len(e.Find)
	switch e.Op {
	case OpReplace:
		return s[:at] + e.Text + s[end:], nil
	case OpInsertBefore:
		return s[:at] + e.Text + s[at:], nil
	case OpInsertAfter:
		return s[:end] + e.Text + s[end:], nil
	default:
		return s[:at] + s[end:], nil
	}
}

// parseWhich reads which: absent or "only", "first", "last", or an
// integer index >= 0.
func parseWhich(raw json.RawMessage) (string, int, error) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return "only", 0, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "only", "first", "last":
			return s, 0, nil
		}
		return "", 0, fmt.Errorf("%w: which %q is not \"only\", \"first\", \"last\" or a zero-based index", mcpkit.ErrBadArguments, s)
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 0 {
		return "", 0, fmt.Errorf("%w: which %s is not \"only\", \"first\", \"last\" or a zero-based index", mcpkit.ErrBadArguments, t)
	}
	return "index", n, nil
}

// matches returns the byte offsets of the non-overlapping occurrences of
// find in s.
func matches(s, find string) []int {
	var out []int
	for off := 0; ; {
		i := strings.Index(s[off:], find)
		if i < 0 {
			return out
		}
		out = append(out, off+i)
		off += i + len(find)
	}
}

// matchLines lists the 1-based line numbers of offsets, bounded.
func matchLines(s string, pos []int) string {
	var parts []string
	line, last := 1, 0
	for i, p := range pos {
		if i == maxListedLines {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(pos)-i))
			break
		}
		line += strings.Count(s[last:p], "\n")
		last = p
		parts = append(parts, strconv.Itoa(line))
	}
	return strings.Join(parts, ", ")
}
