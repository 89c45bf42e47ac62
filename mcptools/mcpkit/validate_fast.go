package mcpkit

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The schema library validates a decoded document (a map[string]any of the
// arguments) by walking the resolved schema recursively: ~20 µs and a
// deep stack for a read_file call, which the SDK runs on a fresh goroutine
// whose stack then grows by copying (BenchmarkReadFileLine's profile).
// fastArgs is a cheap first pass over the common case: it only ever
// ACCEPTS. Arguments it is not sure of — an unknown or missing member, a
// null, a number with a fraction or exponent, a value breaking a bound, a
// property whose schema uses any keyword besides the few below — go to
// the library, which stays the one authority on refusals and their
// messages (FuzzFastArgsAgree: whatever fastArgs accepts, the library
// accepts).

// fastArgs is the flat part of a tool's input schema: an object with
// additionalProperties false whose properties are strings, integers or
// booleans with simple bounds.
type fastArgs struct {
	props    map[string]*fastProp
	required []string
}

// fastProp is one property fastArgs can check; nil in props means "ask
// the library" (a nested or composite schema).
type fastProp struct {
	typ                  string // "string", "integer" or "boolean"
	minimum, maximum     *float64
	minLength, maxLength *int
	enum                 []string // strings only
}

// fastKeywords are the keywords fastProp understands; annotations
// (description, default, title) do not constrain.
var fastKeywords = map[string]bool{"type": true, "description": true, "default": true, "title": true,
	"minimum": true, "maximum": true, "minLength": true, "maxLength": true, "enum": true}

// newFastArgs compiles an input schema (as JSON); nil when its top level
// is not a closed object.
func newFastArgs(schema []byte) *fastArgs {
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Additional *bool                      `json:"additionalProperties"`
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil || json.Unmarshal(schema, &all) != nil || s.Type != "object" || s.Additional == nil || *s.Additional || len(s.Required) > 64 {
		return nil // not a closed object, or more required members than accepts' bit set holds
	}
	for k := range all {
		switch k {
		case "type", "properties", "required", "additionalProperties", "description", "title":
		default:
			return nil
		}
	}
	f := &fastArgs{props: map[string]*fastProp{}, required: s.Required}
	for name, raw := range s.Properties {
		f.props[name] = newFastProp(raw)
	}
	return f
}

// newFastProp compiles one property schema, or returns nil.
func newFastProp(raw json.RawMessage) *fastProp {
	var kw map[string]json.RawMessage
	if json.Unmarshal(raw, &kw) != nil {
		return nil
	}
	for k := range kw {
		if !fastKeywords[k] {
			return nil
		}
	}
	var p struct {
		Type      string   `json:"type"`
		Minimum   *float64 `json:"minimum"`
		Maximum   *float64 `json:"maximum"`
		MinLength *int     `json:"minLength"`
		MaxLength *int     `json:"maxLength"`
		Enum      []string `json:"enum"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil // an enum of non-strings, a type array, …
	}
	switch p.Type {
	case "string", "integer", "boolean":
	default:
		return nil
	}
	if kw["enum"] != nil && p.Enum == nil {
		return nil
	}
	return &fastProp{typ: p.Type, minimum: p.Minimum, maximum: p.Maximum, minLength: p.MinLength, maxLength: p.MaxLength, enum: p.Enum}
}

// accepts reports whether raw (the arguments object, valid JSON) surely
// satisfies the schema. false means "not sure", never "invalid". It walks
// the members in place (eachMember): decoding them into a map first was a
// third of a read_file call's argument checking. A repeated name has each
// of its values checked (decoders keep the last).
func (f *fastArgs) accepts(raw json.RawMessage) bool {
	if f == nil {
		return false
	}
	ok, seen := true, uint64(0) // bit i: required[i] present
	object := eachMember(raw, func(name, v []byte) {
		p := f.props[string(name)]
		if !ok || p == nil || !p.accepts(v) {
			ok = false
			return
		}
		for i, r := range f.required {
			if r == string(name) {
				seen |= 1 << i
			}
		}
	})
	return object && ok && seen == 1<<len(f.required)-1
}

// accepts reports whether v (one valid JSON value) surely satisfies p.
func (p *fastProp) accepts(v json.RawMessage) bool {
	switch p.typ {
	case "boolean":
		return string(v) == "true" || string(v) == "false"
	case "integer":
		if !isInteger(v) {
			return false
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n > maxExactInt || n < -maxExactInt {
			return false
		}
		return (p.minimum == nil || float64(n) >= *p.minimum) && (p.maximum == nil || float64(n) <= *p.maximum)
	}
	if len(v) == 0 || v[0] != '"' {
		return false
	}
	if p.minLength == nil && p.maxLength == nil && p.enum == nil {
		return true // valid JSON starting with a quote is a string
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return false
	}
	n := utf8.RuneCountInString(s)
	if p.minLength != nil && n < *p.minLength || p.maxLength != nil && n > *p.maxLength {
		return false
	}
	if p.enum == nil {
		return true
	}
	for _, e := range p.enum {
		if s == e {
			return true
		}
	}
	return false
}
