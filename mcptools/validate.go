package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/thalix/tv/jsonschema"
)

// Validator checks tool arguments against the tools' input schemas, on
// the server, before a handler runs. Its messages name the offending
// member ("additional properties 'bogus' not allowed", "at '/edits/0':
// missing property 'find'").
type Validator struct {
	schemas map[string]*jsonschema.Schema
	// plain holds, per tool, a check that accepts only arguments the
	// schema certainly accepts (plainReadFileArgs); Validate skips the
	// schema for them.
	plain map[string]func([]byte) bool
}

// NewValidator compiles the input schema of every spec (draft 2020-12,
// checked against its metaschema; no external reference is loaded).
func NewValidator(specs []Spec) (*Validator, error) {
	v := &Validator{schemas: map[string]*jsonschema.Schema{}, plain: map[string]func([]byte) bool{}}
	for _, s := range specs {
		b, err := json.Marshal(s.Input)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.Unmarshal(b)
		if err != nil {
			return nil, err
		}
		sch, err := jsonschema.Compile(doc, &jsonschema.Options{URL: "mem:///tools/" + s.Name + ".json"})
		if err != nil {
			return nil, fmt.Errorf("input schema of %s: %w", s.Name, err)
		}
		v.schemas[s.Name] = sch
	}
	return v, nil
}

// Validate checks raw (the arguments object; empty means {}) against the
// named tool's input schema. The error wraps ErrBadArguments.
func (v *Validator) Validate(tool string, raw json.RawMessage) error {
	sch, ok := v.schemas[tool]
	if !ok {
		return fmt.Errorf("%w: unknown tool %q", ErrBadArguments, tool)
	}
	if plain := v.plain[tool]; plain != nil && plain(raw) {
		return nil
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	doc, err := jsonschema.Unmarshal(raw)
	if err != nil {
		return fmt.Errorf("%w: arguments are not valid JSON: %v", ErrBadArguments, err)
	}
	if err := sch.Validate(doc); err != nil {
		return fmt.Errorf("%w: %v", ErrBadArguments, err)
	}
	return nil
}
