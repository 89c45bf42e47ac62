package icm

import (
	"errors"
	"fmt"
)

// ErrPolicy is wrapped by every error ParsePolicy returns: a stage
// CONTEXT.md has frontmatter, but it is not a valid policy.
var ErrPolicy = errors.New("invalid stage policy")

// Reason codes of a *PolicyError. They are stable: the vault MCP server
// records them in its scope evidence. Every one of them fails closed.
const (
	// ReasonNotFirst: a "---" block follows a byte-order mark or blank
	// lines; frontmatter must start on line 1, byte 1.
	ReasonNotFirst = "not-first"
	// ReasonBadDelimiter: the opening line is "---" followed by spaces or tabs.
	ReasonBadDelimiter = "bad-delimiter"
	// ReasonUnterminated: no line that is exactly "---" closes the block.
	ReasonUnterminated = "unterminated"
	// ReasonTooLarge: the block is over MaxPolicyBytes.
	ReasonTooLarge = "too-large"
	// ReasonDocumentMarker: a YAML document marker ("--- x", "...") inside
	// the block would start a second document.
	ReasonDocumentMarker = "document-marker"
	// ReasonDirective: a YAML directive (%YAML, %TAG) inside the block.
	ReasonDirective = "directive"
	// ReasonMalformedYAML: the block is not well-formed YAML.
	ReasonMalformedYAML = "malformed-yaml"
	// ReasonEmpty: the block holds no YAML value (nothing, or only comments).
	ReasonEmpty = "empty"
	// ReasonAlias: an alias (*name) anywhere in the block.
	ReasonAlias = "alias"
	// ReasonAnchor: an anchor (&name) anywhere in the block.
	ReasonAnchor = "anchor"
	// ReasonTag: an explicit tag (!!str, !foo) anywhere in the block.
	ReasonTag = "tag"
	// ReasonMergeKey: a merge key (<<) anywhere in the block.
	ReasonMergeKey = "merge-key"
	// ReasonNotMapping: the top level or the value of mcp is not a mapping.
	ReasonNotMapping = "not-mapping"
	// ReasonUnknownKey: a key other than mcp (top level) or tools (under
	// mcp), or a key that is not a string scalar.
	ReasonUnknownKey = "unknown-key"
	// ReasonDuplicateKey: mcp or tools appears twice in one mapping.
	ReasonDuplicateKey = "duplicate-key"
	// ReasonMissingMCP: the top-level mapping has no mcp key.
	ReasonMissingMCP = "missing-mcp"
	// ReasonMissingTools: mcp is empty or has no tools key.
	ReasonMissingTools = "missing-tools"
	// ReasonNotSequence: tools is not a sequence.
	ReasonNotSequence = "not-sequence"
	// ReasonNoTools: tools is an empty sequence or null.
	ReasonNoTools = "no-tools"
	// ReasonTooManyTools: tools has more than MaxPolicyTools entries.
	ReasonTooManyTools = "too-many-tools"
	// ReasonNested: a tools entry is a sequence or a mapping.
	ReasonNested = "nested"
	// ReasonBlockScalar: a tools entry is a literal (|) or folded (>) scalar.
	ReasonBlockScalar = "block-scalar"
	// ReasonEmptyEntry: a tools entry is empty ("-" alone, or "").
	ReasonEmptyEntry = "empty-entry"
	// ReasonNonString: a tools entry resolves to a non-string (1, true, null, ~).
	ReasonNonString = "non-string"
	// ReasonUnknownTool: a tools entry is not a known tool name.
	ReasonUnknownTool = "unknown-tool"
	// ReasonDuplicateTool: a tool is named twice.
	ReasonDuplicateTool = "duplicate-tool"
)

// PolicyError reports why a stage policy is invalid. It wraps ErrPolicy.
type PolicyError struct {
	// Reason is one of the Reason constants.
	Reason string
	// Line is the 1-based line in the CONTEXT.md file the problem is on,
	// or 0 when it has none.
	Line int
	// Detail is a short human explanation; it may quote (bounded) input.
	Detail string
}

// Error returns "invalid stage policy (reason) at line N: detail".
func (e *PolicyError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s (%s) at line %d: %s", ErrPolicy, e.Reason, e.Line, e.Detail)
	}
	return fmt.Sprintf("%s (%s): %s", ErrPolicy, e.Reason, e.Detail)
}

// Unwrap returns ErrPolicy.
func (e *PolicyError) Unwrap() error { return ErrPolicy }

// PolicyReason returns the reason code of a *PolicyError in err's chain, or
// "" when err carries none.
func PolicyReason(err error) string {
	var pe *PolicyError
	if errors.As(err, &pe) {
		return pe.Reason
	}
	return ""
}

// PolicyReasons returns every reason code, in the order they are documented.
func PolicyReasons() []string {
	return []string{
		ReasonNotFirst, ReasonBadDelimiter, ReasonUnterminated, ReasonTooLarge,
		ReasonDocumentMarker, ReasonDirective, ReasonMalformedYAML, ReasonEmpty,
		ReasonAlias, ReasonAnchor, ReasonTag, ReasonMergeKey, ReasonNotMapping,
		ReasonUnknownKey, ReasonDuplicateKey, ReasonMissingMCP, ReasonMissingTools,
		ReasonNotSequence, ReasonNoTools, ReasonTooManyTools, ReasonNested,
		ReasonBlockScalar, ReasonEmptyEntry, ReasonNonString, ReasonUnknownTool,
		ReasonDuplicateTool,
	}
}
