package mcptools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validator checks tool arguments against the tools' input schemas, on
// the server, before a handler runs. Its messages name the offending
// member ("additional properties 'bogus' not allowed", "at '/edits/0':
// missing property 'find'").
type Validator struct {
	schemas map[string]*jsonschema.Schema
	printer *message.Printer
	// plain holds, per tool, a check that accepts only arguments the
	// schema certainly accepts (plainReadFileArgs); Validate skips the
	// schema for them.
	plain map[string]func([]byte) bool
}

// NewValidator compiles the input schema of every spec.
func NewValidator(specs []Spec) (*Validator, error) {
	v := &Validator{schemas: map[string]*jsonschema.Schema{}, printer: message.NewPrinter(language.English), plain: map[string]func([]byte) bool{}}
	for _, s := range specs {
		b, err := json.Marshal(s.Input)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		url := "mem:///tools/" + s.Name + ".json"
		c := jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		sch, err := c.Compile(url)
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
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%w: arguments are not valid JSON: %v", ErrBadArguments, err)
	}
	err = sch.Validate(doc)
	var verr *jsonschema.ValidationError
	if err == nil {
		return nil
	}
	if !errors.As(err, &verr) {
		return fmt.Errorf("%w: %v", ErrBadArguments, err)
	}
	return fmt.Errorf("%w: %s", ErrBadArguments, strings.Join(v.leaves(verr, nil), "; "))
}

func (v *Validator) leaves(e *jsonschema.ValidationError, out []string) []string {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			out = v.leaves(c, out)
		}
		return out
	}
	msg := e.ErrorKind.LocalizedString(v.printer)
	if len(e.InstanceLocation) > 0 {
		msg = "at '/" + strings.Join(e.InstanceLocation, "/") + "': " + msg
	}
	return append(out, msg)
}
