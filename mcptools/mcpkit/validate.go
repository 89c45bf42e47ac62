package mcpkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Validator checks tool arguments against the tools' input schemas, on
// the server, before a handler runs, with the JSON Schema library the MCP
// SDK uses (github.com/google/jsonschema-go, draft 2020-12). Its messages
// name the offending argument: `unexpected additional properties
// ["bogus"]`, `argument "edits/find": …`.
type Validator struct {
	schemas map[string]*inputSchema
	fast    map[string]*fastArgs // a cheap first pass that only accepts (validate_fast.go)
}

// inputSchema is a tool's input schema, resolved by the library on its
// first use: resolving every tool's schema up front was ~2.5 ms of `tv
// mcp local`'s start on the benchmark VM (a tenth of it, perf samples of
// 40 starts), for schemas that plain calls never need (FastAccepts).
type inputSchema struct {
	raw      []byte // the schema as JSON
	once     sync.Once
	resolved *jsonschema.Resolved
	err      error
}

// get resolves the schema once and returns it.
func (s *inputSchema) get() (*jsonschema.Resolved, error) {
	s.once.Do(func() {
		var sch jsonschema.Schema
		if s.err = json.Unmarshal(s.raw, &sch); s.err == nil {
			s.resolved, s.err = sch.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
		}
	})
	return s.resolved, s.err
}

// NewValidator takes the input schema of every spec; the library resolves
// each on its first use (no external reference is loaded). Resolve
// resolves them all now.
func NewValidator(specs []Spec) (*Validator, error) {
	v := &Validator{schemas: map[string]*inputSchema{}, fast: map[string]*fastArgs{}}
	for _, s := range specs {
		b, err := json.Marshal(s.Input)
		if err != nil {
			return nil, fmt.Errorf("input schema of %s: %w", s.Name, err)
		}
		v.schemas[s.Name] = &inputSchema{raw: b}
		v.fast[s.Name] = newFastArgs(b)
	}
	return v, nil
}

// Resolve resolves every tool's input schema and returns the first error,
// naming its tool (the tests' check that each schema is one the library
// accepts).
func (v *Validator) Resolve() error {
	for _, name := range slices.Sorted(maps.Keys(v.schemas)) {
		if _, err := v.schemas[name].get(); err != nil {
			return fmt.Errorf("input schema of %s: %w", name, err)
		}
	}
	return nil
}

// Validate checks raw (the arguments object; empty means {}) against the
// named tool's input schema. The error wraps ErrBadArguments.
func (v *Validator) Validate(tool string, raw json.RawMessage) error {
	if v.FastAccepts(tool, raw) {
		return nil
	}
	return v.ValidateSchema(tool, raw)
}

// FastAccepts reports whether the first pass alone accepts raw for the
// named tool: a plain call (flat closed object of strings, integers and
// booleans with simple bounds) that the schema library would accept too
// (FuzzFastArgsAgree). It never refuses: false leaves the call to
// ValidateSchema.
func (v *Validator) FastAccepts(tool string, raw json.RawMessage) bool {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	return v.fast[tool].accepts(raw)
}

// ValidateSchema checks raw against the named tool's input schema with the
// schema library alone; its refusals name the failing argument.
func (v *Validator) ValidateSchema(tool string, raw json.RawMessage) error {
	in, ok := v.schemas[tool]
	if !ok {
		return fmt.Errorf("%w: unknown tool %q", ErrBadArguments, tool)
	}
	sch, err := in.get()
	if err != nil {
		return fmt.Errorf("input schema of %s: %w", tool, err)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("%w: arguments are not valid JSON: %v", ErrBadArguments, err)
	}
	if err := sch.Validate(numbers(doc)); err != nil {
		return fmt.Errorf("%w: %s", ErrBadArguments, argumentMessage(err.Error()))
	}
	return nil
}

// numbers turns json.Numbers into int64 when integral, else float64, so
// "integer" is checked on the value as written (1.0 is a number, not an
// integer, only if it has a fraction).
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	}
	return v
}

// messageRegexps are compiled on the first refusal, not at init (every tv
// command pays for package init).
var messageRegexps = sync.OnceValue(func() [4]*regexp.Regexp {
	return [4]*regexp.Regexp{
		regexp.MustCompile(`validating (/properties/[^:]*): `),
		regexp.MustCompile(`\b(-?[0-9]+)/1\b`),
		regexp.MustCompile(`\b(-?[0-9]+)\.000000\b`),
		regexp.MustCompile(`/(properties|items|prefixItems|additionalProperties)`),
	}
})

// argumentMessage rewrites the library's schema locations ("validating
// root: validating /properties/edits/items: …") as the argument they are
// about (`argument "edits[]": …`).
func argumentMessage(msg string) string {
	re := messageRegexps()
	schemaPath, ratio, fixed, pathPart := re[0], re[1], re[2], re[3]
	msg = strings.ReplaceAll(msg, "validating root: ", "")
	msg = fixed.ReplaceAllString(ratio.ReplaceAllString(msg, "$1"), "$1")
	if m := schemaPath.FindAllStringSubmatchIndex(msg, -1); len(m) > 0 {
		last := m[len(m)-1]
		arg := pathPart.ReplaceAllStringFunc(msg[last[2]:last[3]], func(p string) string {
			if p == "/items" || p == "/prefixItems" {
				return "[]"
			}
			return "/"
		})
		arg = strings.TrimPrefix(strings.ReplaceAll(arg, "//", "/"), "/")
		msg = fmt.Sprintf("argument %q: %s", arg, msg[last[1]:])
	}
	return msg
}
