package icm

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
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
// included, must fit in MaxPolicyBytes. It is decoded with yaml.v3's Node
// API and must have exactly this shape, in block or flow style:
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
	doc, err := decodeYAML(body)
	if err != nil {
		line, msg := yamlErrorLine(err)
		return nil, policyErr(ReasonMalformedYAML, line, msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, policyErr(ReasonEmpty, 1, "frontmatter holds no policy; want mcp: tools: [...]")
	}
	if pe := checkNodes(&doc); pe != nil {
		return nil, pe
	}
	return checkShape(doc.Content[0], known)
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

// decodeYAML decodes body into a document node, turning a panic inside the
// decoder into an error so that no input can crash the caller.
func decodeYAML(body []byte) (doc yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml decoder failed: %v", r)
		}
	}()
	err = yaml.Unmarshal(body, &doc)
	return doc, err
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// yamlErrorLine maps a yaml.v3 error to a line of the file (the body starts
// on line 2) and a message without the "yaml: line N:" prefix.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n > 0 {
			return n + 1, m[2]
		}
	}
	return 1, strings.TrimPrefix(msg, "yaml: ")
}

// checkNodes refuses aliases anywhere (first, so that an alias is reported
// as such even though its anchor comes earlier), then anchors, explicit
// tags and merge keys, in document order.
func checkNodes(doc *yaml.Node) *PolicyError {
	if a := find(doc, func(n *yaml.Node) bool { return n.Kind == yaml.AliasNode }); a != nil {
		return policyErr(ReasonAlias, fileLine(a), fmt.Sprintf("alias *%s; aliases are not allowed", short(a.Value)))
	}
	n := find(doc, func(n *yaml.Node) bool {
		return n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!merge")
	})
	switch {
	case n == nil:
		return nil
	case n.Anchor != "":
		return policyErr(ReasonAnchor, fileLine(n), fmt.Sprintf("anchor &%s; anchors are not allowed", short(n.Anchor)))
	case n.Style&yaml.TaggedStyle != 0:
		return policyErr(ReasonTag, fileLine(n), fmt.Sprintf("explicit tag %s; tags are not allowed", short(n.Tag)))
	default:
		return policyErr(ReasonMergeKey, fileLine(n), "merge key <<; merge keys are not allowed")
	}
}

// find returns the first node in document order (depth first, keys before
// values) for which match holds, or nil. It does not follow aliases.
func find(n *yaml.Node, match func(*yaml.Node) bool) *yaml.Node {
	if match(n) {
		return n
	}
	for _, c := range n.Content {
		if m := find(c, match); m != nil {
			return m
		}
	}
	return nil
}

// checkShape checks root (already free of aliases, anchors, tags and merge
// keys) against the one accepted shape.
func checkShape(root *yaml.Node, known []string) (*Policy, error) {
	if root.Kind != yaml.MappingNode {
		return nil, policyErr(ReasonNotMapping, fileLine(root), "frontmatter must be a mapping with the single key mcp")
	}
	mcp, pe := onlyKey(root, "mcp")
	if pe != nil {
		return nil, pe
	}
	if mcp == nil {
		return nil, policyErr(ReasonMissingMCP, fileLine(root), "no mcp key; want mcp: tools: [...]")
	}
	if isNull(mcp) {
		return nil, policyErr(ReasonMissingTools, fileLine(mcp), "mcp is empty; want mcp: tools: [...]")
	}
	if mcp.Kind != yaml.MappingNode {
		return nil, policyErr(ReasonNotMapping, fileLine(mcp), "mcp must be a mapping with the single key tools")
	}
	tools, pe := onlyKey(mcp, "tools")
	if pe != nil {
		return nil, pe
	}
	if tools == nil {
		return nil, policyErr(ReasonMissingTools, fileLine(mcp), "mcp has no tools key")
	}
	if isNull(tools) {
		return nil, policyErr(ReasonNoTools, fileLine(tools), "tools is empty; a policy must name at least one tool")
	}
	if tools.Kind != yaml.SequenceNode {
		return nil, policyErr(ReasonNotSequence, fileLine(tools), "tools must be a sequence of tool names")
	}
	if len(tools.Content) == 0 {
		return nil, policyErr(ReasonNoTools, fileLine(tools), "tools is empty; a policy must name at least one tool")
	}
	if len(tools.Content) > MaxPolicyTools {
		return nil, policyErr(ReasonTooManyTools, fileLine(tools), fmt.Sprintf("%d tools, over MaxPolicyTools (%d)", len(tools.Content), MaxPolicyTools))
	}
	p := &Policy{Tools: make([]string, 0, len(tools.Content))}
	for _, e := range tools.Content {
		line := fileLine(e)
		switch {
		case e.Kind != yaml.ScalarNode:
			return nil, policyErr(ReasonNested, line, "a tools entry must be a tool name, not a list or mapping")
		case e.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
			return nil, policyErr(ReasonBlockScalar, line, "a tools entry must be a plain or quoted name, not a | or > block")
		case e.Value == "":
			return nil, policyErr(ReasonEmptyEntry, line, "empty tools entry")
		case e.Tag != "!!str":
			return nil, policyErr(ReasonNonString, line, fmt.Sprintf("tools entry %s is a %s, not a tool name", quoteShort(e.Value), strings.TrimPrefix(e.Tag, "!!")))
		case !slices.Contains(known, e.Value):
			return nil, policyErr(ReasonUnknownTool, line, fmt.Sprintf("unknown tool %s; known tools: %s", quoteShort(e.Value), strings.Join(known, ", ")))
		case slices.Contains(p.Tools, e.Value):
			return nil, policyErr(ReasonDuplicateTool, line, fmt.Sprintf("tool %s is named twice", quoteShort(e.Value)))
		}
		p.Tools = append(p.Tools, e.Value)
	}
	return p, nil
}

// onlyKey returns the value of key in mapping m, or nil when absent. Any
// other key, a non-string key, or key twice is an error.
func onlyKey(m *yaml.Node, key string) (*yaml.Node, *PolicyError) {
	var val *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" || k.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return nil, policyErr(ReasonUnknownKey, fileLine(k), fmt.Sprintf("non-string key; the only key allowed here is %s", key))
		}
		if k.Value != key {
			return nil, policyErr(ReasonUnknownKey, fileLine(k), fmt.Sprintf("unknown key %s; the only key allowed here is %s", quoteShort(k.Value), key))
		}
		if val != nil {
			return nil, policyErr(ReasonDuplicateKey, fileLine(k), fmt.Sprintf("key %s appears twice", key))
		}
		val = m.Content[i+1]
	}
	return val, nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// fileLine maps a node's body line to a line of the file: the body starts
// on line 2, after the opening "---".
func fileLine(n *yaml.Node) int {
	if n.Line <= 0 {
		return 1
	}
	return n.Line + 1
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
