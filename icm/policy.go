package icm

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Policy is a stage's MCP tool policy: the tools the stage declares, in
// declared order, each known and named once.
type Policy struct {
	Tools []string
}

// Allows reports whether the policy declares tool. A nil policy allows nothing.
func (p *Policy) Allows(tool string) bool {
	return p != nil && slices.Contains(p.Tools, tool)
}

// Frontmatter renders the policy as the canonical frontmatter block
// (block style, two-space indent, ending in "---\n"). ParsePolicy of the
// result yields an equal policy when the tools are known and unique.
func (p *Policy) Frontmatter() []byte {
	var b bytes.Buffer
	b.WriteString("---\nmcp:\n  tools:\n")
	for _, t := range p.Tools {
		b.WriteString("    - ")
		b.WriteString(t)
		b.WriteString("\n")
	}
	b.WriteString("---\n")
	return b.Bytes()
}

// KnownTools returns the tool names a stage policy may name when the
// caller does not pass its own list (Validate uses it): the scoped tools of
// the vault MCP server. The result is a fresh slice.
func KnownTools() []string {
	return []string{
		"vault_file_info",
		"vault_file_find",
		"vault_file_read",
		"vault_workspace_walk_test",
		"vault_workspace_commit",
	}
}

// ParsePolicy extracts and validates the YAML frontmatter of a stage
// CONTEXT.md.
//
// Frontmatter exists only when content starts with a line that is exactly
// "---" (a trailing "\r" is allowed: CRLF files work). Content starting with
// anything else has no frontmatter and ParsePolicy returns (nil, nil): no
// policy, which the server treats as fail-closed. Two near misses are
// errors rather than "no policy", because the author plainly meant one: a
// byte-order mark or blank lines before a "---" line (ReasonNotFirst), and
// "---" followed by blanks on line 1 (ReasonBadDelimiter).
//
// The block ends at the next line that is exactly "---" and, delimiters
// included, must fit in MaxPolicyBytes. It is parsed with goccy/go-yaml's
// parser (decodeYAML) and must have exactly this shape, in block or flow style:
//
//	mcp:
//	  tools:
//	    - tool_name
//
// that is: a mapping whose only key is mcp, whose value is a mapping whose
// only key is tools, whose value is a sequence of 1 to MaxPolicyTools
// distinct scalars, each a plain or quoted string naming a tool in known.
// Comments are allowed. Anchors, aliases, merge keys, explicit tags,
// directives, extra documents, any other key, duplicate keys, nested
// collections, block scalars, non-string or empty entries all fail.
//
// Every error is a *PolicyError (wrapping ErrPolicy) whose Reason is one of
// the Reason constants and whose Line is a line of content.
func ParsePolicy(content []byte, known []string) (*Policy, error) {
	return parsePolicy(content, splitLines(content), known, policyFast)
}

// How parsePolicy reads a block.
const (
	policyFast  = iota // a canonical block without the YAML decoder
	policyCheck        // as policyFast, but a valid canonical block yields a nil policy
	policyYAML         // every block with the YAML decoder
)

// parsePolicy is ParsePolicy on content split into lines, read as mode
// says. A canonical block (see canonicalTools) needs no YAML decoder.
func parsePolicy(content []byte, lines []lineSpan, known []string, mode int) (*Policy, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	if lines[0].text != "---" {
		if strings.TrimRight(lines[0].text, " \t") == "---" {
			return nil, policyErr(ReasonBadDelimiter, 1, "the opening line must be exactly \"---\", without trailing blanks")
		}
		if n := misplacedOpening(lines); n > 0 {
			return nil, policyErr(ReasonNotFirst, n, "frontmatter must start on the first line of the file, with no byte-order mark or blank lines before it")
		}
		return nil, nil
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if lines[i].text == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, policyErr(ReasonUnterminated, 1, "no closing \"---\" line")
	}
	size := lines[end].end // bytes from the start through the closing line
	if size > MaxPolicyBytes {
		return nil, policyErr(ReasonTooLarge, 1, fmt.Sprintf("frontmatter is %d bytes, over MaxPolicyBytes (%d bytes)", size, MaxPolicyBytes))
	}
	for i := 1; i < end; i++ {
		t := lines[i].text
		if isDocumentMarker(t) {
			return nil, policyErr(ReasonDocumentMarker, i+1, fmt.Sprintf("YAML document marker %s inside the frontmatter", quoteShort(t)))
		}
		if strings.HasPrefix(t, "%") {
			return nil, policyErr(ReasonDirective, i+1, fmt.Sprintf("YAML directive %s inside the frontmatter", quoteShort(t)))
		}
	}
	if mode != policyYAML {
		var buf [MaxPolicyTools]string
		if tools, ok := canonicalTools(lines[1:end], known, buf[:0]); ok {
			if mode == policyCheck {
				return nil, nil
			}
			p := &Policy{Tools: make([]string, len(tools))}
			for i, t := range tools {
				p.Tools[i] = strings.Clone(t) // not a view of all of content
			}
			return p, nil
		}
	}
	body := content[lines[0].end:lines[end].start]
	root, pe := decodeYAML(body)
	if pe != nil {
		return nil, pe
	}
	if root == nil {
		return nil, policyErr(ReasonEmpty, 1, "frontmatter holds no policy; want mcp: tools: [...]")
	}
	if pe := checkNodes(root); pe != nil {
		return nil, pe
	}
	return checkShape(root, known)
}

// canonicalTools appends to buf the tools of the frontmatter body lines
// when they are exactly what Frontmatter writes for known, unique tools
// whose names YAML reads as plain strings ("mcp:", "  tools:", then one
// "    - name" line per tool, 1 to MaxPolicyTools of them, each name a
// lowercase letter then lowercase letters, digits and '_'); ok is false
// otherwise. For such a body the YAML decoder yields this same policy; it
// is only slow (some sixty allocations a block).
func canonicalTools(body []lineSpan, known, buf []string) (tools []string, ok bool) {
	if len(body) < 3 || len(body) > 2+MaxPolicyTools || body[0].text != "mcp:" || body[1].text != "  tools:" {
		return nil, false
	}
	for _, l := range body[2:] {
		name, ok := strings.CutPrefix(l.text, "    - ")
		if !ok || !isPlainToolName(name) || !slices.Contains(known, name) || slices.Contains(buf, name) {
			return nil, false
		}
		buf = append(buf, name)
	}
	return buf, true
}

// isPlainToolName reports whether YAML reads name, written plain, as the
// string name: [a-z][a-z0-9_]*, and none of the words YAML resolves to a
// boolean or null.
func isPlainToolName(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	switch name {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

// misplacedOpening returns the 1-based line of a "---" line that is the
// first non-blank line after an optional byte-order mark, when the file
// does not start with it; else 0.
func misplacedOpening(lines []lineSpan) int {
	bom := strings.HasPrefix(lines[0].text, "\uFEFF")
	for i, l := range lines {
		t := l.text
		if i == 0 {
			t = strings.TrimPrefix(t, "\uFEFF")
		}
		if strings.TrimSpace(t) == "" {
			continue
		}
		if strings.TrimRight(t, " \t") == "---" && (i > 0 || bom) {
			return i + 1
		}
		return 0
	}
	return 0
}

// isDocumentMarker reports whether a line starts a YAML document ("---")
// or ends one ("..."), as YAML defines them: at column 0, followed by a
// blank or the end of the line.
func isDocumentMarker(t string) bool {
	if !strings.HasPrefix(t, "---") && !strings.HasPrefix(t, "...") {
		return false
	}
	return len(t) == 3 || t[3] == ' ' || t[3] == '\t'
}

// decodeYAML parses body (the lines between the delimiters) into the root
// node of its one document: nil when it holds none (only comments or
// blank lines). goccy/go-yaml's parser builds the syntax tree and nothing
// else (no reflection, no decoding into values); it replaced yaml.v3,
// whose package initialisation (tag tables and two regexps) cost every
// tv command 0.7-0.8 ms of start-up on the benchmark VM (300 paired runs
// of `tv --version`: 13.36 against 12.58 ms without it), where the
// parser's costs 0.15 ms. A panic inside the parser is an error, so that
// no input can crash the caller. What the parser leaves to its callers,
// and YAML forbids, is refused here first: bytes that are not UTF-8,
// control characters other than tab, CR and LF, and complex ("?") keys.
func decodeYAML(body []byte) (root ast.Node, pe *PolicyError) {
	if pe := checkYAMLText(body); pe != nil {
		return nil, pe
	}
	defer func() {
		if r := recover(); r != nil {
			root, pe = nil, policyErr(ReasonMalformedYAML, 1, fmt.Sprintf("yaml parser failed: %v", r))
		}
	}()
	f, err := parser.ParseBytes(body, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		line, msg := yamlErrorLine(err)
		return nil, policyErr(ReasonMalformedYAML, line, msg)
	}
	if len(f.Docs) == 0 || f.Docs[0] == nil {
		return nil, nil
	}
	return f.Docs[0].Body, nil
}

// checkYAMLText refuses what YAML's character set and tv's shape rule out
// before the parser sees it: invalid UTF-8 and control characters
// (malformed YAML), and the complex-key indicator "?" at the start of a
// line (a key that is not a plain or quoted string).
func checkYAMLText(body []byte) *PolicyError {
	line := 1 // of the body
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\n':
			line++
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n <= 1 {
				return policyErr(ReasonMalformedYAML, line+1, "invalid UTF-8")
			}
			i += n
			continue
		case c < 0x20 && c != '\t' && c != '\r', c == 0x7f:
			return policyErr(ReasonMalformedYAML, line+1, fmt.Sprintf("control character %#02x is not allowed in YAML", c))
		}
		i++
	}
	for n, l := range strings.Split(string(body), "\n") {
		if t := strings.TrimLeft(l, " "); t == "?" || t == "?\r" || strings.HasPrefix(t, "? ") {
			return policyErr(ReasonUnknownKey, n+2, "complex key (?); the only keys allowed are mcp and tools")
		}
	}
	return nil
}

// yamlErrorLine maps a parser error to a line of the file (the body starts
// on line 2) and its message without the source excerpt.
func yamlErrorLine(err error) (int, string) {
	var te interface {
		GetMessage() string
		GetToken() *token.Token
	}
	if errors.As(err, &te) {
		if tk := te.GetToken(); tk != nil && tk.Position != nil && tk.Position.Line > 0 {
			return tk.Position.Line + 1, te.GetMessage()
		}
		return 1, te.GetMessage()
	}
	return 1, err.Error()
}

// checkNodes refuses aliases anywhere (first, so that an alias is reported
// as such even though its anchor comes earlier; one whose anchor is not
// defined before it is malformed YAML), then anchors, explicit tags and
// merge keys, in document order.
func checkNodes(root ast.Node) *PolicyError {
	anchors := map[string]bool{}
	var alias *ast.AliasNode
	walk(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AnchorNode:
			anchors[nodeText(n.Name)] = true
		case *ast.AliasNode:
			alias = n
			return true
		}
		return false
	})
	if alias != nil {
		name := nodeText(alias.Value)
		if !anchors[name] {
			return policyErr(ReasonMalformedYAML, fileLine(alias), fmt.Sprintf("unknown anchor %s referenced", quoteShort(name)))
		}
		return policyErr(ReasonAlias, fileLine(alias), fmt.Sprintf("alias *%s; aliases are not allowed", short(name)))
	}
	var found ast.Node
	walk(root, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.AnchorNode, *ast.TagNode, *ast.MergeKeyNode:
			found = n
			return true
		}
		return false
	})
	switch n := found.(type) {
	case nil:
		return nil
	case *ast.AnchorNode:
		return policyErr(ReasonAnchor, fileLine(n), fmt.Sprintf("anchor &%s; anchors are not allowed", short(nodeText(n.Name))))
	case *ast.TagNode:
		return policyErr(ReasonTag, fileLine(n), fmt.Sprintf("explicit tag %s; tags are not allowed", short(n.Start.Value)))
	default:
		return policyErr(ReasonMergeKey, fileLine(n), "merge key <<; merge keys are not allowed")
	}
}

// walk calls visit on n and the nodes below it in document order (depth
// first, keys before values) until visit returns true; it reports whether
// one did. It does not follow aliases.
func walk(n ast.Node, visit func(ast.Node) bool) bool {
	if n == nil || visit(n) {
		return n != nil
	}
	var kids []ast.Node
	switch n := n.(type) {
	case *ast.MappingNode:
		for _, v := range n.Values {
			kids = append(kids, v)
		}
	case *ast.MappingValueNode:
		kids = []ast.Node{n.Key, n.Value}
	case *ast.MappingKeyNode:
		kids = []ast.Node{n.Value}
	case *ast.SequenceNode:
		kids = n.Values
	case *ast.AnchorNode:
		kids = []ast.Node{n.Value}
	case *ast.TagNode:
		kids = []ast.Node{n.Value}
	}
	for _, k := range kids {
		if walk(k, visit) {
			return true
		}
	}
	return false
}

// nodeText is a scalar node's raw text ("" for none).
func nodeText(n ast.Node) string {
	if n == nil || n.GetToken() == nil {
		return ""
	}
	return n.GetToken().Value
}

// checkShape checks root (already free of aliases, anchors, tags and merge
// keys) against the one accepted shape.
func checkShape(root ast.Node, known []string) (*Policy, error) {
	rootMap, ok := root.(*ast.MappingNode)
	if !ok {
		return nil, policyErr(ReasonNotMapping, fileLine(root), "frontmatter must be a mapping with the single key mcp")
	}
	mcp, pe := onlyKey(rootMap, "mcp")
	if pe != nil {
		return nil, pe
	}
	if mcp == nil {
		return nil, policyErr(ReasonMissingMCP, fileLine(root), "no mcp key; want mcp: tools: [...]")
	}
	if isNull(mcp) {
		return nil, policyErr(ReasonMissingTools, fileLine(mcp), "mcp is empty; want mcp: tools: [...]")
	}
	mcpMap, ok := mcp.(*ast.MappingNode)
	if !ok {
		return nil, policyErr(ReasonNotMapping, fileLine(mcp), "mcp must be a mapping with the single key tools")
	}
	tools, pe := onlyKey(mcpMap, "tools")
	if pe != nil {
		return nil, pe
	}
	if tools == nil {
		return nil, policyErr(ReasonMissingTools, fileLine(mcp), "mcp has no tools key")
	}
	if isNull(tools) {
		return nil, policyErr(ReasonNoTools, fileLine(tools), "tools is empty; a policy must name at least one tool")
	}
	seq, ok := tools.(*ast.SequenceNode)
	if !ok {
		return nil, policyErr(ReasonNotSequence, fileLine(tools), "tools must be a sequence of tool names")
	}
	if len(seq.Values) == 0 {
		return nil, policyErr(ReasonNoTools, fileLine(tools), "tools is empty; a policy must name at least one tool")
	}
	if len(seq.Values) > MaxPolicyTools {
		return nil, policyErr(ReasonTooManyTools, fileLine(tools), fmt.Sprintf("%d tools, over MaxPolicyTools (%d)", len(seq.Values), MaxPolicyTools))
	}
	p := &Policy{Tools: make([]string, 0, len(seq.Values))}
	for _, e := range seq.Values {
		line := fileLine(e)
		str, isStr := e.(*ast.StringNode)
		switch {
		case isCollection(e):
			return nil, policyErr(ReasonNested, line, "a tools entry must be a tool name, not a list or mapping")
		case e.Type() == ast.LiteralType:
			return nil, policyErr(ReasonBlockScalar, line, "a tools entry must be a plain or quoted name, not a | or > block")
		case isStr && str.Value == "", isImplicitNull(e):
			return nil, policyErr(ReasonEmptyEntry, line, "empty tools entry")
		case !isStr:
			return nil, policyErr(ReasonNonString, line, fmt.Sprintf("tools entry %s is a %s, not a tool name", quoteShort(nodeText(e)), scalarKind(e)))
		case !slices.Contains(known, str.Value):
			return nil, policyErr(ReasonUnknownTool, line, fmt.Sprintf("unknown tool %s; known tools: %s", quoteShort(str.Value), strings.Join(known, ", ")))
		case slices.Contains(p.Tools, str.Value):
			return nil, policyErr(ReasonDuplicateTool, line, fmt.Sprintf("tool %s is named twice", quoteShort(str.Value)))
		}
		p.Tools = append(p.Tools, str.Value)
	}
	return p, nil
}

// onlyKey returns the value of key in mapping m, or nil when absent. Any
// other key, a non-string key, or key twice is an error.
func onlyKey(m *ast.MappingNode, key string) (ast.Node, *PolicyError) {
	var val ast.Node
	for _, kv := range m.Values {
		k, ok := kv.Key.(*ast.StringNode)
		if !ok {
			return nil, policyErr(ReasonUnknownKey, fileLine(kv.Key), fmt.Sprintf("non-string key; the only key allowed here is %s", key))
		}
		if k.Value != key {
			return nil, policyErr(ReasonUnknownKey, fileLine(k), fmt.Sprintf("unknown key %s; the only key allowed here is %s", quoteShort(k.Value), key))
		}
		if val != nil {
			return nil, policyErr(ReasonDuplicateKey, fileLine(k), fmt.Sprintf("key %s appears twice", key))
		}
		val = kv.Value
	}
	return val, nil
}

func isNull(n ast.Node) bool { return n.Type() == ast.NullType }

// isImplicitNull reports whether n is the null YAML reads where a value is
// missing ("- " with nothing after it), not a written null or "~".
func isImplicitNull(n ast.Node) bool {
	tk := n.GetToken()
	return isNull(n) && tk != nil && tk.Type == token.ImplicitNullType
}

func isCollection(n ast.Node) bool {
	switch n.Type() {
	case ast.MappingType, ast.MappingValueType, ast.SequenceType:
		return true
	}
	return false
}

// scalarKind names the type YAML gives a scalar that is not a string.
func scalarKind(n ast.Node) string {
	switch n.Type() {
	case ast.NullType:
		return "null"
	case ast.BoolType:
		return "bool"
	case ast.IntegerType:
		return "int"
	case ast.FloatType, ast.InfinityType, ast.NanType:
		return "float"
	}
	return strings.ToLower(n.Type().String())
}

// fileLine maps a node's body line to a line of the file: the body starts
// on line 2, after the opening "---".
func fileLine(n ast.Node) int {
	tk := n.GetToken()
	if tk == nil || tk.Position == nil || tk.Position.Line <= 0 {
		return 1
	}
	return tk.Position.Line + 1
}

func policyErr(reason string, line int, detail string) *PolicyError {
	return &PolicyError{Reason: reason, Line: line, Detail: detail}
}

// maxQuoted bounds how much of an input value a message repeats.
const maxQuoted = 64

// short truncates s to maxQuoted bytes (on a rune boundary) plus "…".
func short(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// quoteShort quotes s, truncated by short, for a message.
func quoteShort(s string) string { return strconv.Quote(short(s)) }
