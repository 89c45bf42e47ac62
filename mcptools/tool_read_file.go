package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/thalix/tv/wsfs"
)

var readFileSpec = Spec{
	Name:  "read_file",
	Title: "Read file",
	Description: fmt.Sprintf("Reads a UTF-8 text file of a workspace (at most %d bytes, MaxReadBytes), whole or the lines start_line..end_line (1-based, inclusive), optionally with line numbers. ", MaxReadBytes) +
		"Returns the content, the file's total line count and its sha256 (pass it as expected_sha256 to write_file or edit_tool to refuse a write if the file changed meanwhile). " +
		"path is relative to the workspace root; absolute paths, .. and symlinks are refused.",
	Input: Object(Schema{
		"path":         Str("file path relative to the workspace root"),
		"workspace":    workspaceArg,
		"start_line":   With(Int("first line to return, 1-based (default 1)"), "minimum", 1),
		"end_line":     With(Int("last line to return, inclusive (default: the last line)"), "minimum", 1),
		"line_numbers": With(Bool("prefix each line with its number and a tab (default false)"), "default", false),
	}, "path"),
	Data: OpenObject(Schema{
		"path":         Str("cleaned workspace-relative path"),
		"content":      Str("the selected lines, numbered when line_numbers is true"),
		"start_line":   Int("first line returned (0 when the file is empty)"),
		"end_line":     Int("last line returned (0 when the file is empty)"),
		"total_lines":  Int("lines in the whole file"),
		"size":         Int("file size in bytes"),
		"sha256":       Str("SHA-256 of the whole file, hex"),
		"line_numbers": Bool("content carries line numbers"),
	}, "path", "content", "start_line", "end_line", "total_lines", "size", "sha256", "line_numbers"),
	Workspace:   workspaceRefSchema,
	Annotations: Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
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

func (l *Local) readFile(_ context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	a, ok := plainReadFileArgs(raw)
	if !ok {
		if err := DecodeArgs(raw, &a); err != nil {
			return nil, err
		}
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
	// The text is the content itself (what a client shows the model, and
	// what the reference server returns), then a summary line with the
	// sha256 for expected_sha256.
	return l.successTexts(w, d, d.Content, d.summary())
}

// summary is the second text block: "<path>: lines <start>-<end> of
// <total>, <size> bytes, sha256 <hex>".
func (d *readFileData) summary() string {
	b := make([]byte, 0, len(d.Path)+len(d.SHA256)+64)
	b = append(b, d.Path...)
	b = append(b, ": lines "...)
	b = strconv.AppendInt(b, int64(d.StartLine), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(d.EndLine), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(d.TotalLines), 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, d.Size, 10)
	b = append(b, " bytes, sha256 "...)
	b = append(b, d.SHA256...)
	return string(b)
}

// appendJSON encodes d like encoding/json (see appendMessage).
func (d readFileData) appendJSON(e *jsonEnc) error {
	e.raw(`{"path":`)
	e.str(d.Path)
	e.raw(`,"content":`)
	e.str(d.Content)
	e.raw(`,"start_line":`)
	e.int(int64(d.StartLine))
	e.raw(`,"end_line":`)
	e.int(int64(d.EndLine))
	e.raw(`,"total_lines":`)
	e.int(int64(d.TotalLines))
	e.raw(`,"size":`)
	e.int(d.Size)
	e.raw(`,"sha256":`)
	e.str(d.SHA256)
	e.raw(`,"line_numbers":`)
	e.b = strconv.AppendBool(e.b, d.LineNumbers)
	e.raw("}")
	return nil
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

// plainReadFileArgs decodes read_file arguments in their plain form
// without the schema validator and encoding/json: a JSON object whose
// members are path (required) and any of workspace, start_line, end_line
// and line_numbers, each at most once, with exactly those names; strings
// without escapes or control bytes and valid UTF-8; line numbers integers
// from 1 to 999999999 written plainly; line_numbers true or false. Such
// arguments always pass the input schema and decode to the same values
// with DecodeArgs (FuzzPlainReadFileArgs). Any other form (ok false) goes
// through the validator and DecodeArgs, which refuse or accept it with
// their own messages.
func plainReadFileArgs(raw []byte) (a readFileArgs, ok bool) {
	p := plainParser{b: raw}
	if !p.byte('{') {
		return a, false
	}
	var seen [5]bool
	first := true
	for {
		if !first && p.byte('}') {
			break
		}
		if !first && !p.byte(',') {
			return a, false
		}
		first = false
		key, ok := p.str()
		if !ok || !p.byte(':') {
			return a, false
		}
		var k int
		switch key {
		case "path":
			k = 0
			a.Path, ok = p.str()
		case "workspace":
			k = 1
			a.Workspace, ok = p.str()
		case "start_line":
			k = 2
			var n int
			n, ok = p.posInt()
			a.StartLine = &n
		case "end_line":
			k = 3
			var n int
			n, ok = p.posInt()
			a.EndLine = &n
		case "line_numbers":
			k = 4
			a.LineNumbers, ok = p.boolean()
		default:
			return a, false
		}
		if !ok || seen[k] {
			return a, false
		}
		seen[k] = true
	}
	p.space()
	return a, seen[0] && p.i == len(p.b)
}

// plainParser reads the plain JSON forms plainReadFileArgs accepts.
type plainParser struct {
	b []byte
	i int
}

func (p *plainParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// byte skips white space and c.
func (p *plainParser) byte(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a string without escapes or control bytes, valid UTF-8.
func (p *plainParser) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	ascii := true
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			if !ascii && !utf8.Valid(s) {
				return "", false
			}
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// posInt reads an integer from 1 to 999999999 without sign, leading zero,
// fraction or exponent.
func (p *plainParser) posInt() (int, bool) {
	p.space()
	n, digits := 0, 0
	for ; p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9'; p.i++ {
		if digits == 0 && p.b[p.i] == '0' {
			return 0, false
		}
		n = n*10 + int(p.b[p.i]-'0')
		digits++
	}
	if digits == 0 || digits > 9 {
		return 0, false
	}
	// The number must end here (no fraction or exponent).
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return 0, false
	}
	return n, true
}

func (p *plainParser) boolean() (bool, bool) {
	p.space()
	switch {
	case bytes.HasPrefix(p.b[p.i:], []byte("true")):
		p.i += 4
		return true, true
	case bytes.HasPrefix(p.b[p.i:], []byte("false")):
		p.i += 5
		return false, true
	}
	return false, false
}
