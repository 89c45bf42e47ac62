package hostconfig

// TOML editing on the text: a small lexer follows the file line by line —
// table headers, key/value lines, and values through strings of all four
// kinds, multi-line arrays and inline tables, and comments — so that a
// "[mcp_servers.x]" inside a string is never taken for a header. tv's entry
// is every table whose header path starts with mcp_servers.NAME; each table
// runs to the next header. Only those byte ranges change.

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

const mcpServersTable = "mcp_servers"

// tomlItem is one header line or key/value line.
type tomlItem struct {
	header           bool
	array            bool     // [[...]]
	path             []string // a header's path
	key              []string // a key/value line's dotted key
	start, end       int      // the line(s), end past the line break
	valStart, valEnd int      // a key/value line's value
}

// tomlBlock is a table: its header, its key/value lines (kept for tv's
// tables only), where its content ends (past the last item's line break)
// and where it ends (the next header or the end of the file).
type tomlBlock struct {
	header     tomlItem
	kvs        []tomlItem
	contentEnd int
	end        int
}

// tomlDoc is a lexed config.toml with tv's blocks located.
type tomlDoc struct {
	data   []byte
	blocks []tomlBlock // every table, in file order
	tv     []int       // indices of tv's blocks
	main   int         // index of [mcp_servers.NAME], or -1
}

func isTOMLBlank(c byte) bool { return c == ' ' || c == '\t' }

func skipTOMLBlank(s []byte, p int) int {
	for p < len(s) && isTOMLBlank(s[p]) {
		p++
	}
	return p
}

// lineBreak returns the length of the line break at s[p:], or 0.
func lineBreak(s []byte, p int) int {
	switch {
	case p < len(s) && s[p] == '\n':
		return 1
	case p+1 < len(s) && s[p] == '\r' && s[p+1] == '\n':
		return 2
	}
	return 0
}

func toEOL(s []byte, p int) int {
	for p < len(s) && s[p] != '\n' && !(s[p] == '\r' && lineBreak(s, p) == 2) {
		p++
	}
	return p
}

func isBareKeyChar(c byte) bool {
	return c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// lexTOML splits s into header and key/value items.
func lexTOML(s []byte) ([]tomlItem, error) {
	var items []tomlItem
	p := bomLen(s)
	for p < len(s) {
		start := p
		p = skipTOMLBlank(s, p)
		if n := lineBreak(s, p); n > 0 {
			p += n
			continue
		}
		if p >= len(s) {
			break
		}
		if s[p] == '#' {
			p = toEOL(s, p)
			p += lineBreak(s, p)
			continue
		}
		if s[p] == '[' {
			it := tomlItem{header: true, start: start}
			p++
			if p < len(s) && s[p] == '[' {
				it.array = true
				p++
			}
			path, q, err := lexKey(s, p)
			if err != nil {
				return nil, err
			}
			q = skipTOMLBlank(s, q)
			closing := "]"
			if it.array {
				closing = "]]"
			}
			if !bytes.HasPrefix(s[q:], []byte(closing)) {
				return nil, malformedAt(s, q, "table header not closed with %q", closing)
			}
			end, err := lexLineEnd(s, q+len(closing))
			if err != nil {
				return nil, err
			}
			it.path, it.end = path, end
			items = append(items, it)
			p = end
			continue
		}
		key, q, err := lexKey(s, p)
		if err != nil {
			return nil, err
		}
		q = skipTOMLBlank(s, q)
		if q >= len(s) || s[q] != '=' {
			return nil, malformedAt(s, q, "expected '=' after a key")
		}
		vs := skipTOMLBlank(s, q+1)
		ve, err := lexValue(s, vs)
		if err != nil {
			return nil, err
		}
		end, err := lexLineEnd(s, ve)
		if err != nil {
			return nil, err
		}
		items = append(items, tomlItem{key: key, start: start, end: end, valStart: vs, valEnd: ve})
		p = end
	}
	return items, nil
}

// lexLineEnd accepts blanks, an optional comment and a line break or EOF.
func lexLineEnd(s []byte, p int) (int, error) {
	p = skipTOMLBlank(s, p)
	if p < len(s) && s[p] == '#' {
		p = toEOL(s, p)
	}
	if p == len(s) {
		return p, nil
	}
	if n := lineBreak(s, p); n > 0 {
		return p + n, nil
	}
	return 0, malformedAt(s, p, "unexpected text %s after the value", quoteShort(string(s[p:toEOL(s, p)])))
}

// lexKey reads a dotted key of bare, "basic" and 'literal' parts.
func lexKey(s []byte, p int) ([]string, int, error) {
	var parts []string
	for {
		p = skipTOMLBlank(s, p)
		if p >= len(s) {
			return nil, 0, malformedAt(s, p, "expected a key")
		}
		switch s[p] {
		case '"':
			end, err := lexBasic(s, p)
			if err != nil {
				return nil, 0, err
			}
			v, err := decodeBasic(s[p+1:end-1], false)
			if err != nil {
				return nil, 0, malformedAt(s, p, "%s", err)
			}
			parts, p = append(parts, v), end
		case '\'':
			end, err := lexLiteral(s, p)
			if err != nil {
				return nil, 0, err
			}
			parts, p = append(parts, string(s[p+1:end-1])), end
		default:
			q := p
			for q < len(s) && isBareKeyChar(s[q]) {
				q++
			}
			if q == p {
				return nil, 0, malformedAt(s, p, "expected a key")
			}
			parts, p = append(parts, string(s[p:q])), q
		}
		q := skipTOMLBlank(s, p)
		if q < len(s) && s[q] == '.' {
			p = q + 1
			continue
		}
		return parts, p, nil
	}
}

// lexValue returns the end of the value starting at s[p].
func lexValue(s []byte, p int) (int, error) {
	if p >= len(s) || lineBreak(s, p) > 0 || s[p] == '#' {
		return 0, malformedAt(s, p, "missing value")
	}
	switch {
	case bytes.HasPrefix(s[p:], []byte(`"""`)):
		return lexMultiline(s, p, '"')
	case bytes.HasPrefix(s[p:], []byte(`'''`)):
		return lexMultiline(s, p, '\'')
	case s[p] == '"':
		return lexBasic(s, p)
	case s[p] == '\'':
		return lexLiteral(s, p)
	case s[p] == '[' || s[p] == '{':
		return lexNested(s, p)
	}
	q := p
	for q < len(s) && s[q] != '#' && s[q] != '\n' && s[q] != '\r' {
		q++
	}
	for q > p && isTOMLBlank(s[q-1]) {
		q--
	}
	return q, nil
}

func lexBasic(s []byte, p int) (int, error) {
	for q := p + 1; q < len(s); q++ {
		switch s[q] {
		case '\\':
			if q+1 < len(s) && (s[q+1] == '\n' || s[q+1] == '\r') {
				return 0, malformedAt(s, p, "unterminated string")
			}
			q++
		case '"':
			return q + 1, nil
		case '\n':
			return 0, malformedAt(s, p, "unterminated string")
		}
	}
	return 0, malformedAt(s, p, "unterminated string")
}

func lexLiteral(s []byte, p int) (int, error) {
	for q := p + 1; q < len(s); q++ {
		switch s[q] {
		case '\'':
			return q + 1, nil
		case '\n':
			return 0, malformedAt(s, p, "unterminated string")
		}
	}
	return 0, malformedAt(s, p, "unterminated string")
}

// lexMultiline scans a multi-line basic or literal string; up to two extra quotes before
// the closing delimiter belong to the content.
func lexMultiline(s []byte, p int, quote byte) (int, error) {
	delim := []byte{quote, quote, quote}
	for q := p + 3; q < len(s); q++ {
		if quote == '"' && s[q] == '\\' {
			q++
			continue
		}
		if bytes.HasPrefix(s[q:], delim) {
			end := q + 3
			for k := 0; k < 2 && end < len(s) && s[end] == quote; k++ {
				end++
			}
			return end, nil
		}
	}
	return 0, malformedAt(s, p, "unterminated multi-line string")
}

// lexNested scans an array or inline table, across lines.
func lexNested(s []byte, p int) (int, error) {
	depth := 0
	for q := p; q < len(s); {
		var err error
		switch c := s[q]; {
		case bytes.HasPrefix(s[q:], []byte(`"""`)):
			q, err = lexMultiline(s, q, '"')
		case bytes.HasPrefix(s[q:], []byte(`'''`)):
			q, err = lexMultiline(s, q, '\'')
		case c == '"':
			q, err = lexBasic(s, q)
		case c == '\'':
			q, err = lexLiteral(s, q)
		case c == '#':
			q = toEOL(s, q)
		case c == '[' || c == '{':
			depth++
			q++
		case c == ']' || c == '}':
			depth--
			q++
			if depth == 0 {
				return q, nil
			}
		default:
			q++
		}
		if err != nil {
			return 0, err
		}
	}
	return 0, malformedAt(s, p, "unterminated array or inline table")
}

// decodeBasic decodes the body of a basic string; ml allows the
// line-ending backslash of multi-line strings.
func decodeBasic(b []byte, ml bool) (string, error) {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b), nil
	}
	var out strings.Builder
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out.WriteByte(c)
			continue
		}
		i++
		if i >= len(b) {
			return "", fmt.Errorf("a string ends in a backslash")
		}
		switch b[i] {
		case 'b':
			out.WriteByte('\b')
		case 't':
			out.WriteByte('\t')
		case 'n':
			out.WriteByte('\n')
		case 'f':
			out.WriteByte('\f')
		case 'r':
			out.WriteByte('\r')
		case 'e':
			out.WriteByte(0x1b)
		case '"':
			out.WriteByte('"')
		case '\\':
			out.WriteByte('\\')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[b[i]]
			if i+n >= len(b) {
				return "", fmt.Errorf("a short \\%c escape", b[i])
			}
			v, err := strconv.ParseUint(string(b[i+1:i+1+n]), 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", fmt.Errorf("an invalid \\%c escape", b[i])
			}
			out.WriteRune(rune(v))
			i += n
		default:
			j := i
			for j < len(b) && isTOMLBlank(b[j]) {
				j++
			}
			if !ml || lineBreak(b, j) == 0 {
				return "", fmt.Errorf("an invalid escape \\%c", b[i])
			}
			for j < len(b) && (isTOMLBlank(b[j]) || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			i = j - 1
		}
	}
	return out.String(), nil
}

// tomlString decodes a string value of any kind; ok is false for any other
// value.
func tomlString(raw []byte) (string, bool) {
	trimNL := func(b []byte) []byte {
		if n := lineBreak(b, 0); n > 0 {
			return b[n:]
		}
		return b
	}
	switch {
	case len(raw) >= 6 && bytes.HasPrefix(raw, []byte(`"""`)):
		v, err := decodeBasic(trimNL(raw[3:len(raw)-3]), true)
		return v, err == nil
	case len(raw) >= 6 && bytes.HasPrefix(raw, []byte(`'''`)):
		return string(trimNL(raw[3 : len(raw)-3])), true
	case len(raw) >= 2 && raw[0] == '"':
		v, err := decodeBasic(raw[1:len(raw)-1], false)
		return v, err == nil
	case len(raw) >= 2 && raw[0] == '\'':
		return string(raw[1 : len(raw)-1]), true
	}
	return "", false
}

// tomlStringArray decodes an array of strings; ok is false for anything
// else.
func tomlStringArray(raw []byte) ([]string, bool) {
	if len(raw) < 2 || raw[0] != '[' {
		return nil, false
	}
	var out []string
	skip := func(p int) int {
		for p < len(raw) {
			switch {
			case isTOMLBlank(raw[p]) || raw[p] == '\n' || raw[p] == '\r':
				p++
			case raw[p] == '#':
				p = toEOL(raw, p)
			default:
				return p
			}
		}
		return p
	}
	p := skip(1)
	for p < len(raw) && raw[p] != ']' {
		end, err := lexValue(raw, p)
		if err != nil || (raw[p] != '"' && raw[p] != '\'') {
			return nil, false
		}
		v, ok := tomlString(raw[p:end])
		if !ok {
			return nil, false
		}
		out = append(out, v)
		p = skip(end)
		if p < len(raw) && raw[p] == ',' {
			p = skip(p + 1)
		} else if p < len(raw) && raw[p] != ']' {
			return nil, false
		}
	}
	return out, true
}

// parseTOMLDoc lexes s and locates tv's tables.
func parseTOMLDoc(s []byte, name string) (*tomlDoc, error) {
	items, err := lexTOML(s)
	if err != nil {
		return nil, err
	}
	doc := &tomlDoc{data: s, main: -1}
	cur := -1 // current block; -1 is the root table
	inTV := func(path []string) bool {
		return len(path) >= 2 && path[0] == mcpServersTable && path[1] == name
	}
	for _, it := range items {
		if it.header {
			if len(doc.blocks) > 0 {
				doc.blocks[len(doc.blocks)-1].end = it.start
			}
			doc.blocks = append(doc.blocks, tomlBlock{header: it, contentEnd: it.end, end: len(s)})
			cur = len(doc.blocks) - 1
			switch {
			case len(it.path) == 1 && it.path[0] == mcpServersTable && it.array:
				return nil, malformedAt(s, it.start, "[[%s]] is an array of tables; tv edits only [%s.%s] tables", mcpServersTable, mcpServersTable, name)
			case inTV(it.path) && len(it.path) == 2 && it.array:
				return nil, malformedAt(s, it.start, "[[%s.%s]] is an array of tables; tv edits only a [%s.%s] table", mcpServersTable, name, mcpServersTable, name)
			case inTV(it.path) && len(it.path) == 2:
				if doc.main >= 0 {
					return nil, malformedAt(s, it.start, "duplicate table [%s.%s]", mcpServersTable, name)
				}
				doc.main = cur
				doc.tv = append(doc.tv, cur)
			case inTV(it.path):
				doc.tv = append(doc.tv, cur)
			}
			continue
		}
		var table []string
		if cur >= 0 {
			b := &doc.blocks[cur]
			b.contentEnd = it.end
			if inTV(b.header.path) {
				b.kvs = append(b.kvs, it) // only tv's key/value lines are read
				continue
			}
			table = b.header.path
		}
		// The key's full path is table + key; only its first two parts matter.
		full := table
		if len(table) < 2 {
			full = append(slices.Clone(table), it.key[:min(len(it.key), 2-len(table))]...)
		}
		switch {
		case len(full) == 1 && full[0] == mcpServersTable && len(table)+len(it.key) == 1:
			return nil, malformedAt(s, it.start, "%s is assigned an inline value; tv edits only [%s.%s] tables", mcpServersTable, mcpServersTable, name)
		case inTV(full):
			return nil, malformedAt(s, it.start, "%s.%s is defined with dotted keys or an inline table; tv edits only a [%s.%s] table", mcpServersTable, name, mcpServersTable, name)
		}
	}
	return doc, nil
}

// tomlNewline is the line break new text uses: CRLF if the file has one.
func tomlNewline(s []byte) string {
	if bytes.Contains(s, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// quoteTOML renders s as a TOML basic string.
func quoteTOML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlEntry renders tv's table.
func tomlEntry(e Entry, nl string) []byte {
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = quoteTOML(a)
	}
	out := "[" + mcpServersTable + "." + e.Name + "]" + nl +
		"command = " + quoteTOML(e.Command) + nl +
		"args = [" + strings.Join(args, ", ") + "]" + nl
	if len(e.Env) > 0 {
		out += nl + "[" + mcpServersTable + "." + e.Name + "." + envTable + "]" + nl
		for _, k := range slices.Sorted(maps.Keys(e.Env)) {
			out += k + " = " + quoteTOML(e.Env[k]) + nl
		}
	}
	return []byte(out)
}

// envTable is the sub-table of tv's entry holding its environment.
const envTable = "env"

// info reads tv's entry from its tables.
func (doc *tomlDoc) info() serverInfo {
	si := serverInfo{argsOK: true}
	if doc.main < 0 {
		si.notObject = "only sub-tables, no [" + mcpServersTable + ".NAME] table"
	}
	for _, bi := range doc.tv {
		b := doc.blocks[bi]
		if len(b.header.path) == 3 && b.header.path[2] == envTable && !b.header.array {
			if !doc.readEnv(b, &si) {
				si.extra = append(si.extra, "table ["+strings.Join(b.header.path, ".")+"]")
			}
			continue
		}
		if bi != doc.main {
			si.extra = append(si.extra, "table ["+strings.Join(b.header.path, ".")+"]")
			continue
		}
		seen := map[string]bool{}
		for _, kv := range b.kvs {
			k := strings.Join(kv.key, ".")
			v := doc.data[kv.valStart:kv.valEnd]
			if seen[k] {
				si.extra = append(si.extra, "a second "+quoteShort(k))
				continue
			}
			seen[k] = true
			switch k {
			case "command":
				si.hasCommand = true
				si.command, si.badCommand = tomlString(v)
				si.badCommand = !si.badCommand
			case "args":
				si.args, si.argsOK = tomlStringArray(v)
			default:
				si.extra = append(si.extra, quoteShort(k))
			}
		}
	}
	return si
}

// readEnv reads an env sub-table of plain NAME = "value" lines into si;
// false when it holds anything else.
func (doc *tomlDoc) readEnv(b tomlBlock, si *serverInfo) bool {
	env := map[string]string{}
	for _, kv := range b.kvs {
		v, ok := tomlString(doc.data[kv.valStart:kv.valEnd])
		if len(kv.key) != 1 || !ok || !validEnvKey(kv.key[0]) {
			return false
		}
		if _, dup := env[kv.key[0]]; dup {
			return false
		}
		env[kv.key[0]] = v
	}
	if len(env) > 0 {
		si.env = env
	}
	return true
}

// edit is one byte-range replacement.
type edit struct {
	start, end int
	text       []byte
}

// apply applies non-overlapping edits.
func apply(s []byte, edits []edit) []byte {
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	out := slices.Clone(s)
	for _, e := range edits {
		out = splice(out, e.start, e.end, e.text)
	}
	return out
}

// removal is the range that removing block b deletes: its content plus the
// blank lines after it when another table follows (comments before that
// table stay with it); at the end of the file, its content, trailing
// whitespace, and the one blank line Install put before it.
func (doc *tomlDoc) removal(bi int) edit {
	s, b := doc.data, doc.blocks[bi]
	if b.end < len(s) {
		q := b.contentEnd
		for {
			p := skipTOMLBlank(s, q)
			n := lineBreak(s, p)
			if n == 0 || p+n > b.end {
				break
			}
			q = p + n
		}
		return edit{start: b.header.start, end: q}
	}
	if len(bytes.TrimSpace(s[b.contentEnd:])) > 0 {
		return edit{start: b.header.start, end: b.contentEnd}
	}
	a := b.header.start
	before := s[:a]
	switch {
	case bytes.HasSuffix(before, []byte("\r\n")) && bytes.HasSuffix(before[:a-2], []byte("\n")):
		a -= 2
	case bytes.HasSuffix(before, []byte("\n")) && bytes.HasSuffix(before[:a-1], []byte("\n")):
		a--
	}
	return edit{start: a, end: len(s)}
}

// tomlAppend adds text after s, separated by one blank line.
func tomlAppend(s, text []byte, nl string) []byte {
	if len(s) == 0 {
		return text
	}
	out := slices.Clone(s)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, nl...)
	}
	out = append(out, nl...)
	return append(out, text...)
}

// tomlInstall adds or replaces tv's entry in config.toml text s.
func tomlInstall(s []byte, e Entry, force bool) ([]byte, Change, error) {
	doc, err := parseTOMLDoc(s, e.Name)
	if err != nil {
		return nil, "", err
	}
	nl := tomlNewline(s)
	text := tomlEntry(e, nl)
	if len(doc.tv) == 0 {
		return tomlAppend(s, text, nl), Created, nil
	}
	si := doc.info()
	if si.same(e) {
		return s, Unchanged, nil
	}
	if !force {
		return nil, "", entryExists(e.Name, si)
	}
	var edits []edit
	for _, bi := range doc.tv {
		if bi != doc.main {
			edits = append(edits, doc.removal(bi))
			continue
		}
		b := doc.blocks[bi]
		t := text
		if b.contentEnd == len(s) && !bytes.HasSuffix(s, []byte("\n")) {
			t = bytes.TrimSuffix(t, []byte(nl))
		}
		edits = append(edits, edit{start: b.header.start, end: b.contentEnd, text: t})
	}
	out := apply(s, edits)
	if doc.main < 0 {
		out = tomlAppend(out, text, nl)
	}
	return out, Updated, nil
}

// tomlUninstall removes tv's tables; empty reports that only whitespace is
// left.
func tomlUninstall(s []byte, name string) ([]byte, Change, bool, error) {
	doc, err := parseTOMLDoc(s, name)
	if err != nil {
		return nil, "", false, err
	}
	if len(doc.tv) == 0 {
		return s, Absent, false, nil
	}
	var edits []edit
	for _, bi := range doc.tv {
		r := doc.removal(bi)
		if n := len(edits); n > 0 && r.start < edits[n-1].end {
			// The blank line before a last table (its env sub-table) is
			// already in the previous table's removal.
			r.start = edits[n-1].end
		}
		edits = append(edits, r)
	}
	out := apply(s, edits)
	empty := len(bytes.TrimSpace(out[bomLen(out):])) == 0
	return out, Removed, empty, nil
}

func tomlLookup(s []byte, name string) (Entry, bool, error) {
	doc, err := parseTOMLDoc(s, name)
	if err != nil {
		return Entry{}, false, err
	}
	if len(doc.tv) == 0 {
		return Entry{}, false, nil
	}
	e, err := doc.info().entry(name)
	return e, true, err
}
