package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/internal/jsonquote"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/wsfs"
)

func readFileSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "read_file",
		Title: "Read file",
		Description: fmt.Sprintf("Reads a UTF-8 text file of a workspace (at most %d bytes, MaxReadBytes), whole or the lines start_line..end_line (1-based, inclusive), optionally with line numbers. ", MaxReadBytes) +
			"Returns the content, the file's total line count and its sha256 (pass it as expected_sha256 to write_file or edit_tool to refuse a write if the file changed meanwhile). " +
			"path is relative to the workspace root; absolute paths, .. and symlinks are refused.",
		Input: mcpkit.Object(mcpkit.Schema{
			"path":         mcpkit.Str("file path relative to the workspace root"),
			"workspace":    workspaceArg(),
			"start_line":   mcpkit.With(mcpkit.Int("first line to return, 1-based (default 1)"), "minimum", 1),
			"end_line":     mcpkit.With(mcpkit.Int("last line to return, inclusive (default: the last line)"), "minimum", 1),
			"line_numbers": mcpkit.With(mcpkit.Bool("prefix each line with its number and a tab (default false)"), "default", false),
		}, "path"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"path":         mcpkit.Str("cleaned workspace-relative path"),
			"content":      mcpkit.Str("the selected lines, numbered when line_numbers is true"),
			"start_line":   mcpkit.Int("first line returned (0 when the file is empty)"),
			"end_line":     mcpkit.Int("last line returned (0 when the file is empty)"),
			"total_lines":  mcpkit.Int("lines in the whole file"),
			"size":         mcpkit.Int("file size in bytes"),
			"sha256":       mcpkit.Str("SHA-256 of the whole file, hex"),
			"line_numbers": mcpkit.Bool("content carries line numbers"),
		}, "path", "content", "start_line", "end_line", "total_lines", "size", "sha256", "line_numbers"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type readFileArgs struct {
	Path        string `json:"path"`
	Workspace   string `json:"workspace"`
	StartLine   *int   `json:"start_line"`
	EndLine     *int   `json:"end_line"`
	LineNumbers bool   `json:"line_numbers"`
}

type readFileData struct {
	Path        string `json:"path"`
	Content     string `json:"content"`
	StartLine   int    `json:"start_line"`
	EndLine     int    `json:"end_line"`
	TotalLines  int    `json:"total_lines"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	LineNumbers bool   `json:"line_numbers"`
}

// AppendJSON implements mcpkit.JSONAppender: json.Marshal's encoding of
// d, with the content quoted by jsonquote (TestReadFileDataJSON).
func (d readFileData) AppendJSON(b []byte) []byte {
	b = slices.Grow(b, len(d.Content)+len(d.Content)/8+len(d.Path)+len(d.SHA256)+160)
	b = jsonquote.Append(append(b, `{"path":`...), d.Path)
	b = jsonquote.Append(append(b, `,"content":`...), d.Content)
	b = strconv.AppendInt(append(b, `,"start_line":`...), int64(d.StartLine), 10)
	b = strconv.AppendInt(append(b, `,"end_line":`...), int64(d.EndLine), 10)
	b = strconv.AppendInt(append(b, `,"total_lines":`...), int64(d.TotalLines), 10)
	b = strconv.AppendInt(append(b, `,"size":`...), d.Size, 10)
	b = jsonquote.Append(append(b, `,"sha256":`...), d.SHA256)
	b = strconv.AppendBool(append(b, `,"line_numbers":`...), d.LineNumbers)
	return append(b, '}')
}

func (l *Local) readFile(_ context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a readFileArgs
	if err := mcpkit.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	w, f, release, err := l.openRead(a.Workspace)
	if err != nil {
		return nil, err
	}
	defer release()
	b, st, err := f.ReadFile(a.Path, MaxReadBytes)
	if err != nil {
		return nil, err
	}
	clean, _ := wsfs.CleanPath(a.Path)
	d := readFileData{Path: clean, Size: st.Size(), SHA256: wsfs.SHA256Hex(b), LineNumbers: a.LineNumbers}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return nil, fmt.Errorf("%s is not UTF-8 text (binary file?); %d bytes, sha256 %s", wsfs.Show(clean), d.Size, d.SHA256)
	}
	if err := selectLines(&d, b, a.StartLine, a.EndLine); err != nil {
		return nil, err
	}
	return l.success(w, d)
}

// CountLines returns the number of lines of b: newlines, plus one for a
// final line without one.
func CountLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// selectLines fills content, start_line, end_line and total_lines.
func selectLines(d *readFileData, b []byte, start, end *int) error {
	d.TotalLines = CountLines(b)
	if d.TotalLines == 0 {
		if start != nil && *start > 1 {
			return fmt.Errorf("start_line %d is past the end: the file is empty", *start)
		}
		return nil
	}
	s, e := 1, d.TotalLines
	if start != nil {
		s = *start
	}
	if end != nil {
		e = min(*end, d.TotalLines)
	}
	switch {
	case s < 1:
		return fmt.Errorf("start_line must be at least 1, got %d", s)
	case s > d.TotalLines:
		return fmt.Errorf("start_line %d is past the end: the file has %d lines", s, d.TotalLines)
	case end != nil && *end < s:
		return fmt.Errorf("end_line %d is before start_line %d", *end, s)
	}
	d.StartLine, d.EndLine = s, e
	sel := b
	if s > 1 || e < d.TotalLines {
		sel = b[lineOffset(b, s):lineOffset(b, e+1)]
	}
	if !d.LineNumbers {
		// b is the caller's fresh read buffer, never written again: the
		// content shares it rather than copying up to MaxReadBytes.
		d.Content = unsafe.String(unsafe.SliceData(sel), len(sel))
		return nil
	}
	width := len(strconv.Itoa(e))
	var sb strings.Builder
	sb.Grow(len(sel) + (e-s+1)*(width+1))
	n := s
	for len(sel) > 0 {
		line, rest, _ := bytes.Cut(sel, []byte{'\n'})
		fmt.Fprintf(&sb, "%*d\t%s", width, n, line)
		if len(rest) > 0 || len(line) < len(sel) {
			sb.WriteByte('\n')
		}
		sel, n = rest, n+1
	}
	d.Content = sb.String()
	return nil
}

// lineOffset returns the byte offset where 1-based line n starts (len(b)
// past the last line).
func lineOffset(b []byte, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(b[off:], '\n')
		if j < 0 {
			return len(b)
		}
		off += j + 1
	}
	return off
}
