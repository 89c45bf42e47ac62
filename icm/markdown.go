package icm

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// lineSpan is one line of a file: its text without the line terminator
// ("\n" or "\r\n"), and the byte offsets of its start and of the start of
// the next line.
type lineSpan struct {
	text       string
	start, end int
}

// splitLines splits data into lines. A final line without a terminator
// counts; the empty string after a final terminator does not. The lines
// share one copy of data.
func splitLines(data []byte) []lineSpan {
	if len(data) == 0 {
		return nil
	}
	s := string(data)
	out := make([]lineSpan, 0, countLines(data))
	for start := 0; start < len(s); {
		i := strings.IndexByte(s[start:], '\n')
		end := len(s)
		text := s[start:]
		if i >= 0 {
			end = start + i + 1
			text = s[start : start+i]
		}
		text = strings.TrimSuffix(text, "\r")
		out = append(out, lineSpan{text: text, start: start, end: end})
		start = end
	}
	return out
}

// mdLine is one line of a Markdown document as the validator sees it.
type mdLine struct {
	text    string
	skip    bool   // inside a fenced code block, a fence line, or frontmatter
	level   int    // ATX heading level 1-6, or 0
	heading string // heading text, when level > 0
}

// parseLines classifies the lines of a Markdown document split by
// splitLines: frontmatter (a leading "---" block, when terminated) and
// fenced code blocks are skipped; ATX headings are recognised.
func parseLines(spans []lineSpan) []mdLine {
	out := make([]mdLine, len(spans))
	for i, s := range spans {
		out[i].text = s.text
	}
	start := 0
	if len(spans) > 0 && spans[0].text == "---" {
		for i := 1; i < len(spans); i++ {
			if spans[i].text == "---" {
				for j := 0; j <= i; j++ {
					out[j].skip = true
				}
				start = i + 1
				break
			}
		}
	}
	var fenceChar byte
	fenceLen := 0
	for i := start; i < len(out); i++ {
		t := out[i].text
		if fenceLen > 0 {
			out[i].skip = true
			if c, n, rest := fence(t); c == fenceChar && n >= fenceLen && strings.TrimSpace(rest) == "" {
				fenceLen = 0
			}
			continue
		}
		if c, n, _ := fence(t); n > 0 {
			fenceChar, fenceLen = c, n
			out[i].skip = true
			continue
		}
		out[i].level, out[i].heading = atxHeading(t)
	}
	return out
}

// fence reports a code fence opening or closing line: up to three spaces,
// then three or more '`' or '~'. It returns the fence character, the run
// length (0 when the line is no fence) and the rest of the line.
func fence(t string) (byte, int, string) {
	t = trimIndent(t)
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return 0, 0, ""
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, ""
	}
	if c == '`' && strings.Contains(t[n:], "`") {
		return 0, 0, "" // a backtick fence's info string holds no backtick
	}
	return c, n, t[n:]
}

// trimIndent removes up to three leading spaces; a line indented further
// is an indented code block and is returned unchanged.
func trimIndent(t string) string {
	for i := 0; i < 3 && strings.HasPrefix(t, " "); i++ {
		t = t[1:]
	}
	if strings.HasPrefix(t, " ") {
		return "    "
	}
	return t
}

// atxHeading parses an ATX heading ("## Inputs ##"): it returns the level
// and the trimmed text, or 0 when the line is no heading.
func atxHeading(t string) (int, string) {
	t = trimIndent(t)
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, ""
	}
	rest := t[n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, ""
	}
	rest = strings.TrimSpace(rest)
	// A closing sequence of '#' counts only after a blank (or alone).
	if trimmed := strings.TrimRight(rest, "#"); trimmed != rest {
		if trimmed == "" {
			rest = ""
		} else if last := trimmed[len(trimmed)-1]; last == ' ' || last == '\t' {
			rest = strings.TrimSpace(trimmed)
		}
	}
	return n, rest
}

// section returns the index range [from, to) of the lines after the first
// level-2 heading named name (case-insensitive) up to the next heading of
// level 1 or 2, and the heading's index; ok is false when there is none.
func section(doc []mdLine, name string) (head, from, to int, ok bool) {
	for i, l := range doc {
		if l.level == 2 && strings.EqualFold(l.heading, name) {
			j := i + 1
			for j < len(doc) && !(doc[j].level >= 1 && doc[j].level <= 2) {
				j++
			}
			return i, i + 1, j, true
		}
	}
	return 0, 0, 0, false
}

// isDelimRow reports whether s (trimmed) is a pipe table's delimiter row:
// cells of an optional ':', one or more '-', an optional ':', with blanks
// around, separated by '|', with optional '|' at either end (the regexp
// ^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$, matched by hand: its compilation was
// ~0.3 ms of every check of a tree whose CONTEXT.md holds a table on the
// benchmark VM; FuzzIsDelimRow checks the two agree).
func isDelimRow(s string) bool {
	i := 0
	if i < len(s) && s[i] == '|' {
		i++
	}
	for {
		i = skipBlanks(s, i)
		if i < len(s) && s[i] == ':' {
			i++
		}
		dashes := i
		for i < len(s) && s[i] == '-' {
			i++
		}
		if i == dashes {
			return false
		}
		if i < len(s) && s[i] == ':' {
			i++
		}
		i = skipBlanks(s, i)
		switch {
		case i == len(s):
			return true
		case s[i] != '|':
			return false
		}
		if i++; i == len(s) {
			return true
		}
	}
}

// skipBlanks returns the index of the first byte of s from i on that is
// not a blank as RE2's \s has them (tab, line feed, form feed, carriage
// return, space).
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	return i
}

// locations calls yield with the index in doc of each body row of the pipe
// tables among doc[from:to] whose header has a File/Location column (see
// locationColumn) and with each path value of that row's cell there (see
// cellPaths), in document order. A table is a header line holding a '|',
// a delimiter row, then rows up to a blank line, a line without '|' or a
// skipped line.
func locations(doc []mdLine, from, to int, yield func(row int, p string)) {
	var buf [8]string
	cells := buf[:0] // reused: one row at a time
	for i := from; i+1 < to; i++ {
		h, d := doc[i], doc[i+1]
		if h.skip || d.skip || h.level > 0 || !strings.Contains(h.text, "|") || !isDelimRow(strings.TrimSpace(d.text)) {
			continue
		}
		cells = splitCells(cells[:0], h.text)
		col := locationColumn(cells)
		j := i + 2
		for ; j < to; j++ {
			l := doc[j]
			if l.skip || l.level > 0 || strings.TrimSpace(l.text) == "" || !strings.Contains(l.text, "|") {
				break
			}
			if col < 0 {
				continue
			}
			if cells = splitCells(cells[:0], l.text); col < len(cells) {
				cellPaths(cells[col], func(p string) { yield(j, p) })
			}
		}
		i = j - 1
	}
}

// splitCells appends to cells the cells of a table row: split on
// unescaped '|', dropping the optional leading and trailing pipe, trimmed,
// "\|" unescaped.
func splitCells(cells []string, row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	start, escaped := 0, false
	cell := func(end int) {
		c := row[start:end]
		if escaped {
			c = strings.ReplaceAll(c, `\|`, "|")
		}
		cells = append(cells, strings.TrimSpace(c))
	}
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			escaped = true
			i++
		case row[i] == '|':
			cell(i)
			start, escaped = i+1, false
		}
	}
	cell(len(row))
	return cells
}

// locationColumn returns the index of a table's File/Location column, or
// -1: a header containing "location", or exactly "file", "files", "path"
// or "file/path" (case-insensitive, ignoring blanks, '`', '*' and '_').
func locationColumn(header []string) int {
	for i, h := range header {
		var buf [64]byte
		n, ok := buf[:0], true
		for j := 0; j < len(h) && ok; j++ {
			switch c := h[j]; {
			case c == ' ' || c == '\t' || c == '`' || c == '*' || c == '_':
			case c >= utf8.RuneSelf || len(n) == len(buf):
				ok = false // not ASCII, or long: the general way below
			default:
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				n = append(n, c)
			}
		}
		if ok {
			if bytes.Contains(n, []byte("location")) || string(n) == "file" || string(n) == "files" || string(n) == "path" || string(n) == "file/path" {
				return i
			}
			continue
		}
		s := strings.ToLower(strings.Map(func(r rune) rune {
			switch r {
			case ' ', '\t', '`', '*', '_':
				return -1
			}
			return r
		}, h))
		if strings.Contains(s, "location") || s == "file" || s == "files" || s == "path" || s == "file/path" {
			return i
		}
	}
	return -1
}

// cellPaths calls yield with each path value of a table cell: the
// contents of its code spans when it has any, else the whole cell with
// backticks removed, trimmed.
func cellPaths(cell string, yield func(string)) {
	spans := false
	for i := 0; i < len(cell); {
		if cell[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(cell) && cell[i+n] == '`' {
			n++
		}
		open := i + n
		closeAt := -1
		for k := open; k < len(cell); {
			if cell[k] != '`' {
				k++
				continue
			}
			m := 0
			for k+m < len(cell) && cell[k+m] == '`' {
				m++
			}
			if m == n {
				closeAt = k
				break
			}
			k += m
		}
		if closeAt < 0 {
			break
		}
		spans = true
		yield(strings.TrimSpace(cell[open:closeAt]))
		i = closeAt + n
	}
	if !spans {
		yield(strings.TrimSpace(strings.ReplaceAll(cell, "`", "")))
	}
}

// isConcrete reports whether a path value must be checked: not empty, not
// only dashes, and free of "{{", "[", "*" and "://".
func isConcrete(v string) bool {
	if strings.Trim(v, " -–—") == "" {
		return false
	}
	for _, s := range []string{"{{", "[", "*", "://"} {
		if strings.Contains(v, s) {
			return false
		}
	}
	return true
}
