package mcpdoctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/thalix/tv/jsonschema"
)

// ToolNamePattern is what every tool name must match: the name rule of the
// MCP hosts tv targets (letters, digits, '_' and '-', 1 to 64 bytes).
const ToolNamePattern = `^[a-zA-Z0-9_-]{1,64}$`

// toolName compiles ToolNamePattern on first use (not at package init:
// every tv command links this package).
var toolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(ToolNamePattern) })

// AnnotationHints are the tool annotations every tool must set explicitly
// (as JSON booleans), so no host falls back to a default.
var AnnotationHints = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// Problem is one defect of a tool definition or of a call's result.
type Problem struct {
	// Tool is the tool's name as listed (or "#N", its 1-based position,
	// when it has no usable name).
	Tool string `json:"tool"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// String is "tool: message".
func (p Problem) String() string { return p.Tool + ": " + p.Message }

// Tool is a tool definition exactly as a server listed it, and the
// compiled output schema when it compiled.
type Tool struct {
	// Name is the tool's name ("" when missing or not a string).
	Name string
	// Raw is the definition as received in tools/list.
	Raw json.RawMessage
	// Output is the compiled output schema, nil when absent or invalid.
	Output *jsonschema.Schema
}

// ValidateTools checks every tool definition of a tools/list answer (the
// raw members of "tools", all pages) and returns the tools and their
// problems, in list order:
//
//   - the name matches ToolNamePattern and is unique;
//   - the description is a non-empty string;
//   - inputSchema is present, an object schema ("type": "object") with
//     "additionalProperties": false, and compiles as a JSON Schema;
//   - outputSchema is present, an object schema, and compiles;
//   - annotations is an object that sets every one of AnnotationHints to a
//     boolean.
//
// Schemas compile with a real JSON Schema compiler: draft 2020-12 unless
// the schema's $schema names another draft; the schema is checked against
// its draft's metaschema; references outside the schema are not loaded and
// count as a problem.
func ValidateTools(raws []json.RawMessage) ([]Tool, []Problem) {
	tools := make([]Tool, len(raws))
	var problems []Problem
	seen := map[string]bool{}
	for i, raw := range raws {
		t, msgs := validateTool(raw)
		tools[i] = t
		label := t.Name
		if label == "" || !toolName().MatchString(label) {
			label = fmt.Sprintf("#%d", i+1)
			if t.Name != "" {
				label += " " + quote(t.Name)
			}
		}
		if t.Name != "" {
			if seen[t.Name] {
				msgs = append(msgs, "the name is listed more than once")
			}
			seen[t.Name] = true
		}
		for _, m := range msgs {
			problems = append(problems, Problem{Tool: label, Message: m})
		}
	}
	return tools, problems
}

// validateTool checks one definition and returns what it found.
func validateTool(raw json.RawMessage) (Tool, []string) {
	t := Tool{Raw: raw}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return t, []string{"the definition is not a JSON object"}
	}
	var msgs []string
	add := func(format string, args ...any) { msgs = append(msgs, fmt.Sprintf(format, args...)) }

	if err := json.Unmarshal(m["name"], &t.Name); err != nil || m["name"] == nil {
		add("name is missing or not a string")
	} else if !toolName().MatchString(t.Name) {
		add("name %s does not match %s", quote(t.Name), ToolNamePattern)
	}

	var desc string
	if err := json.Unmarshal(m["description"], &desc); err != nil || strings.TrimSpace(desc) == "" {
		add("description is missing or empty")
	}

	if _, err := checkSchema(m["inputSchema"], true); err != nil {
		add("inputSchema: %v", err)
	}
	out, err := checkSchema(m["outputSchema"], false)
	if err != nil {
		add("outputSchema: %v", err)
	}
	t.Output = out

	var ann map[string]json.RawMessage
	if err := json.Unmarshal(m["annotations"], &ann); err != nil || ann == nil {
		add("annotations are missing (set %s explicitly)", strings.Join(AnnotationHints, ", "))
	} else {
		var missing []string
		for _, h := range AnnotationHints {
			if v := string(bytes.TrimSpace(ann[h])); v != "true" && v != "false" {
				missing = append(missing, h)
			}
		}
		if len(missing) > 0 {
			add("annotations do not set %s to a boolean", strings.Join(missing, ", "))
		}
	}
	return t, msgs
}

// checkSchema checks that raw is an object schema (with additionalProperties
// false when strict) and compiles it.
func checkSchema(raw json.RawMessage, strict bool) (*jsonschema.Schema, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("missing")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, errors.New("not a JSON object")
	}
	if string(bytes.TrimSpace(top["type"])) != `"object"` {
		return nil, errors.New(`"type" is not "object"`)
	}
	if strict && string(bytes.TrimSpace(top["additionalProperties"])) != "false" {
		return nil, errors.New(`"additionalProperties" is not false (the input schema must be strict)`)
	}
	return CompileSchema(raw)
}

// CompileSchema compiles raw as a JSON Schema: draft 2020-12 unless its
// $schema says otherwise, validated against the draft's metaschema,
// without loading any external reference. The error is one line.
func CompileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.Unmarshal(raw)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	s, err := jsonschema.Compile(doc, &jsonschema.Options{
		URL:          "mem:///tool-schema.json",
		DefaultDraft: jsonschema.Draft2020,
		Load:         refuseLoad,
	})
	if err != nil {
		var ie *jsonschema.InvalidSchemaError
		if errors.As(err, &ie) {
			return nil, fmt.Errorf("not a valid JSON Schema: %s", ie)
		}
		return nil, fmt.Errorf("does not compile: %s", oneLine(err))
	}
	return s, nil
}

// ValidateValue checks the JSON value raw against schema and returns a
// one-line error naming each offending member.
func ValidateValue(schema *jsonschema.Schema, raw json.RawMessage) error {
	doc, err := jsonschema.Unmarshal(raw)
	if err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	return schema.Validate(doc)
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// refuseLoad refuses every external reference: a tool schema must be
// self-contained, and the doctor reads no file or URL a server names.
func refuseLoad(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s is not loaded (tool schemas must be self-contained)", url)
}

// quote quotes s for a message, cut to 80 bytes.
func quote(s string) string {
	if len(s) > 80 {
		return fmt.Sprintf("%q…", s[:80])
	}
	return fmt.Sprintf("%q", s)
}
