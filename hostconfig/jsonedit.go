package hostconfig

// JSON editing by splicing the raw bytes: the file is validated with
// encoding/json, then scanned for byte spans (top-level members, the
// mcpServers members); only the span of tv's member changes. Nothing is
// re-encoded, so key order, numbers, escapes and whitespace elsewhere stay.

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/thalix/tv/internal/jsonspan"
)

const mcpServersKey = "mcpServers"

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// jsonMember is one object member: spans of its quoted key and its value.
type jsonMember struct {
	keyStart, keyEnd int
	key              string // decoded
	valStart, valEnd int
}

// jsonObject is an object's span ('{' to after '}') and its members.
type jsonObject struct {
	start, end int
	members    []jsonMember
}

// jsonDoc is a parsed config: the top-level object, mcpServers, tv's entry.
type jsonDoc struct {
	data       []byte
	root       jsonObject
	serversIdx int         // index of mcpServers in root.members, or -1
	servers    *jsonObject // the mcpServers object, or nil
	entryIdx   int         // index of the entry in servers.members, or -1
}

// parseObjectAt scans the valid object starting at d[i] == '{'.
func parseObjectAt(d []byte, i int) jsonObject {
	obj := jsonObject{start: i}
	j := jsonspan.SkipSpace(d, i+1)
	if d[j] == '}' {
		obj.end = j + 1
		return obj
	}
	for {
		m := jsonMember{keyStart: j, keyEnd: jsonspan.SkipString(d, j)}
		m.key = decodeJSONKey(d[m.keyStart:m.keyEnd])
		j = jsonspan.SkipSpace(d, m.keyEnd) + 1 // past ':'
		m.valStart = jsonspan.SkipSpace(d, j)
		m.valEnd = jsonspan.SkipValue(d, m.valStart)
		obj.members = append(obj.members, m)
		j = jsonspan.SkipSpace(d, m.valEnd)
		if d[j] == '}' {
			obj.end = j + 1
			return obj
		}
		j = jsonspan.SkipSpace(d, j+1) // past ','
	}
}

func decodeJSONKey(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s) // raw is a valid JSON string
	return s
}

// bomLen is 3 when d starts with a UTF-8 byte order mark.
func bomLen(d []byte) int {
	if bytes.HasPrefix(d, utf8BOM) {
		return len(utf8BOM)
	}
	return 0
}

// blankJSON reports whether d holds no JSON value at all.
func blankJSON(d []byte) bool {
	return jsonspan.SkipSpace(d, bomLen(d)) == len(d)
}

// parseJSONDoc validates d and locates mcpServers and the entry name.
func parseJSONDoc(d []byte, name string) (*jsonDoc, error) {
	off := bomLen(d)
	if err := json.Unmarshal(d[off:], new(json.RawMessage)); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, malformedAt(d, off+int(se.Offset)-1, "%s", se.Error())
		}
		return nil, malformedAt(d, len(d), "%s", err.Error())
	}
	i := jsonspan.SkipSpace(d, off)
	if d[i] != '{' {
		return nil, malformedAt(d, i, "the top-level value is not a JSON object")
	}
	doc := &jsonDoc{data: d, root: parseObjectAt(d, i), serversIdx: -1, entryIdx: -1}
	for k, m := range doc.root.members {
		if m.key != mcpServersKey {
			continue
		}
		if doc.serversIdx >= 0 {
			return nil, malformedAt(d, m.keyStart, "duplicate key %q in the top-level object", mcpServersKey)
		}
		doc.serversIdx = k
	}
	if doc.serversIdx < 0 {
		return doc, nil
	}
	m := doc.root.members[doc.serversIdx]
	if d[m.valStart] != '{' {
		return nil, malformedAt(d, m.valStart, "%q is not a JSON object", mcpServersKey)
	}
	obj := parseObjectAt(d, m.valStart)
	doc.servers = &obj
	for k, sm := range obj.members {
		if sm.key != name {
			continue
		}
		if doc.entryIdx >= 0 {
			return nil, malformedAt(d, sm.keyStart, "duplicate key %q in %q", name, mcpServersKey)
		}
		doc.entryIdx = k
	}
	return doc, nil
}

// jsonStyle is the formatting new text copies from the file.
type jsonStyle struct {
	nl        string // "\n" or "\r\n"
	unit      string // one indentation level
	colon     string // between key and value, e.g. ": "
	multiline bool   // the top-level object spans lines
}

func defaultJSONStyle() jsonStyle {
	return jsonStyle{nl: "\n", unit: "  ", colon: ": ", multiline: true}
}

func detectJSONStyle(doc *jsonDoc) jsonStyle {
	st := defaultJSONStyle()
	d := doc.data
	if bytes.Contains(d, []byte("\r\n")) {
		st.nl = "\r\n"
	}
	if len(doc.root.members) > 0 {
		m0 := doc.root.members[0]
		ws := d[doc.root.start+1 : m0.keyStart]
		if nl := bytes.LastIndexByte(ws, '\n'); nl >= 0 {
			st.unit = string(bytes.ReplaceAll(ws[nl+1:], []byte{'\r'}, nil))
		} else {
			st.multiline = false
		}
		st.colon = colonOf(d, m0, st.colon)
	}
	return st
}

// colonOf returns the text between m's key and value when it is on one line.
func colonOf(d []byte, m jsonMember, fallback string) string {
	c := d[m.keyEnd:m.valStart]
	if bytes.ContainsAny(c, "\r\n") {
		return fallback
	}
	return string(c)
}

// wsBefore returns the whitespace run that ends at i.
func wsBefore(d []byte, i int) []byte {
	j := i
	for j > 0 && jsonspan.IsSpace(d[j-1]) {
		j--
	}
	return d[j:i]
}

// indentOf says whether ws spans lines and what indentation follows its
// last line break.
func indentOf(ws []byte) (multiline bool, prefix string) {
	nl := bytes.LastIndexByte(ws, '\n')
	if nl < 0 {
		return false, ""
	}
	return true, string(ws[nl+1:])
}

// lineIndent returns the leading blanks of the line holding offset i.
func lineIndent(d []byte, i int) string {
	s := bytes.LastIndexByte(d[:i], '\n') + 1
	e := s
	for e < i && (d[e] == ' ' || d[e] == '\t') {
		e++
	}
	return string(d[s:e])
}

// jsonServer is tv's entry as written; field order is the output order.
type jsonServer struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

func newJSONServer(e Entry, typed bool) jsonServer {
	s := jsonServer{Command: e.Command, Args: e.Args, Env: e.Env}
	if s.Args == nil {
		s.Args = []string{}
	}
	if typed {
		s.Type = "stdio"
	}
	return s
}

// renderServer encodes s; multi-line text continues lines with prefix.
func renderServer(st jsonStyle, s jsonServer, multiline bool, prefix string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if multiline {
		enc.SetIndent(prefix, st.unit)
	}
	_ = enc.Encode(s) // strings only: cannot fail
	out := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	if st.nl != "\n" {
		out = bytes.ReplaceAll(out, []byte{'\n'}, []byte(st.nl))
	}
	return out
}

func quoteJSON(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// objectWith renders {key: value} opening at indentation base.
func objectWith(st jsonStyle, multiline bool, base, key string, value func(prefix string) []byte) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	inner := ""
	if multiline {
		inner = base + st.unit
		b.WriteString(st.nl + inner)
	}
	b.Write(quoteJSON(key))
	if multiline {
		b.WriteString(st.colon)
	} else {
		b.WriteString(compactColon(st.colon))
	}
	b.Write(value(inner))
	if multiline {
		b.WriteString(st.nl + base)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func compactColon(c string) string {
	if c == "" {
		return ":"
	}
	return c
}

// insertAfterLast renders ", key: value" to follow obj's last member,
// copying the separator and colon of that member.
func insertAfterLast(d []byte, st jsonStyle, obj *jsonObject, key string, value func(multiline bool, prefix string) []byte) (int, []byte) {
	last := obj.members[len(obj.members)-1]
	ws := wsBefore(d, last.keyStart)
	multiline, prefix := indentOf(ws)
	var b bytes.Buffer
	b.WriteByte(',')
	b.Write(ws)
	b.Write(quoteJSON(key))
	b.WriteString(colonOf(d, last, st.colon))
	b.Write(value(multiline, prefix))
	return last.valEnd, b.Bytes()
}

func splice(d []byte, start, end int, repl []byte) []byte {
	out := make([]byte, 0, len(d)-(end-start)+len(repl))
	out = append(out, d[:start]...)
	out = append(out, repl...)
	return append(out, d[end:]...)
}

// jsonInstall adds or replaces the entry e in the config text d.
func jsonInstall(d []byte, e Entry, typed, force bool) ([]byte, Change, error) {
	srv := newJSONServer(e, typed)
	if blankJSON(d) {
		st := defaultJSONStyle()
		out := objectWith(st, true, "", mcpServersKey, func(prefix string) []byte {
			return objectWith(st, true, prefix, e.Name, func(prefix string) []byte {
				return renderServer(st, srv, true, prefix)
			})
		})
		return append(out, '\n'), Created, nil
	}
	doc, err := parseJSONDoc(d, e.Name)
	if err != nil {
		return nil, "", err
	}
	st := detectJSONStyle(doc)
	serverAt := func(multiline bool, prefix string) []byte { return renderServer(st, srv, multiline, prefix) }
	serversAt := func(multiline bool, prefix string) []byte {
		return objectWith(st, multiline, prefix, e.Name, func(p string) []byte { return serverAt(multiline, p) })
	}
	switch {
	case doc.entryIdx >= 0:
		m := doc.servers.members[doc.entryIdx]
		si := readJSONServer(d[m.valStart:m.valEnd])
		if si.same(e) {
			return d, Unchanged, nil
		}
		if !force {
			return nil, "", entryExists(e.Name, si)
		}
		multiline, prefix := indentOf(wsBefore(d, m.keyStart))
		return splice(d, m.valStart, m.valEnd, serverAt(multiline, prefix)), Updated, nil
	case doc.servers != nil && len(doc.servers.members) == 0:
		obj := doc.servers
		return splice(d, obj.start, obj.end, serversAt(st.multiline, lineIndent(d, obj.start))), Created, nil
	case doc.servers != nil:
		at, text := insertAfterLast(d, st, doc.servers, e.Name, serverAt)
		return splice(d, at, at, text), Created, nil
	case len(doc.root.members) == 0:
		root := doc.root
		val := objectWith(st, true, "", mcpServersKey, func(p string) []byte {
			return serversAt(true, p)
		})
		return splice(d, root.start, root.end, val), Created, nil
	default:
		at, text := insertAfterLast(d, st, &doc.root, mcpServersKey, serversAt)
		return splice(d, at, at, text), Created, nil
	}
}

// jsonUninstall removes the entry name from d. empty reports that nothing
// is left: the top-level object has no members.
func jsonUninstall(d []byte, name string) (out []byte, ch Change, empty bool, err error) {
	if blankJSON(d) {
		return d, Absent, false, nil
	}
	doc, err := parseJSONDoc(d, name)
	if err != nil {
		return nil, "", false, err
	}
	if doc.entryIdx < 0 {
		return d, Absent, false, nil
	}
	srv, root := doc.servers, doc.root
	i := doc.entryIdx
	switch {
	case len(srv.members) > 1 && i > 0:
		return splice(d, srv.members[i-1].valEnd, srv.members[i].valEnd, nil), Removed, false, nil
	case len(srv.members) > 1:
		return splice(d, srv.members[0].keyStart, srv.members[1].keyStart, nil), Removed, false, nil
	case len(root.members) == 1:
		return splice(d, root.start, root.end, []byte("{}")), Removed, true, nil
	case doc.serversIdx == len(root.members)-1:
		// mcpServers is now empty and sits where Install adds it: drop it.
		k := doc.serversIdx
		return splice(d, root.members[k-1].valEnd, root.members[k].valEnd, nil), Removed, false, nil
	default:
		return splice(d, srv.start, srv.end, []byte("{}")), Removed, false, nil
	}
}

func jsonLookup(d []byte, name string) (Entry, bool, error) {
	if blankJSON(d) {
		return Entry{}, false, nil
	}
	doc, err := parseJSONDoc(d, name)
	if err != nil {
		return Entry{}, false, err
	}
	if doc.entryIdx < 0 {
		return Entry{}, false, nil
	}
	m := doc.servers.members[doc.entryIdx]
	e, err := readJSONServer(d[m.valStart:m.valEnd]).entry(name)
	return e, true, err
}

// readJSONServer reads an existing entry value (valid JSON).
func readJSONServer(raw []byte) serverInfo {
	si := serverInfo{argsOK: true}
	switch raw[0] {
	case '{':
	case '[':
		return serverInfo{notObject: "a JSON array, not an object"}
	case '"':
		return serverInfo{notObject: "a JSON string, not an object"}
	default:
		return serverInfo{notObject: "the JSON value " + quoteShort(string(raw)) + ", not an object"}
	}
	seen := map[string]bool{}
	for _, m := range parseObjectAt(raw, 0).members {
		v := raw[m.valStart:m.valEnd]
		if seen[m.key] {
			si.extra = append(si.extra, "a second "+quoteShort(m.key))
			continue
		}
		seen[m.key] = true
		switch m.key {
		case "command":
			si.hasCommand = true
			si.badCommand = v[0] != '"' || json.Unmarshal(v, &si.command) != nil
		case "args":
			si.argsOK = v[0] == '[' && json.Unmarshal(v, &si.args) == nil
			if si.argsOK && len(si.args) == 0 {
				si.args = nil
			}
		case "type":
			var t string
			if json.Unmarshal(v, &t) != nil || t != "stdio" {
				si.extra = append(si.extra, "type")
			}
		case "env":
			var env map[string]string
			switch {
			case v[0] != '{' || json.Unmarshal(v, &env) != nil:
				si.extra = append(si.extra, "env")
			case len(env) > 0:
				si.env = env
			}
		default:
			si.extra = append(si.extra, quoteShort(m.key))
		}
	}
	return si
}
