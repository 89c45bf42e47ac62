package mcptools

import (
	"errors"
	"testing"

	"github.com/thalix/tv/mcptools/mcpkit"
)

// TestValidatorMessages: arguments that break a tool's input schema are
// refused before the handler runs, with ErrBadArguments and a message
// naming the offending member and the problem.
func TestValidatorMessages(t *testing.T) {
	v, err := mcpkit.NewValidator(Tools())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ tool, args, want string }{
		{"read_file", `{"path":"a","bogus":1}`, `invalid arguments: unexpected additional properties ["bogus"]`},
		{"read_file", `{}`, `invalid arguments: required: missing properties: ["path"]`},
		{"read_file", ``, `invalid arguments: required: missing properties: ["path"]`},
		{"read_file", `{"path":7}`, `invalid arguments: argument "path": type: 7 has type "integer", want "string"`},
		{"read_file", `{"path":"a","start_line":0}`, `invalid arguments: argument "start_line": minimum: 0 is less than 1`},
		{"read_file", `{"path":"a","start_line":1.5}`, `invalid arguments: argument "start_line": type: 1.5 has type "number", want "integer"`},
		{"list_directory", `{"depth":9}`, `invalid arguments: argument "depth": maximum: 9 is greater than 8`},
		{"edit_tool", `{"path":"a","edits":[{"op":"replace","text":"x"}]}`, `invalid arguments: argument "edits[]": required: missing properties: ["find"]`},
		{"edit_tool", `{"path":"a","edits":[{"op":"swap","find":"x"}]}`, `invalid arguments: argument "edits[]/op": enum: swap does not equal any of: [replace insert_before insert_after delete]`},
		{"edit_tool", `{"path":"a","edits":[{"op":"delete","find":"x","zz":1}]}`, `invalid arguments: argument "edits[]": unexpected additional properties ["zz"]`},
		{"edit_tool", `{"path":"a","edits":[]}`, `invalid arguments: argument "edits": minItems: array length 0 is less than 1`},
		{"read_file", `{"path":`, "invalid arguments: arguments are not valid JSON: unexpected EOF"},
		{"no_such_tool", `{}`, `invalid arguments: unknown tool "no_such_tool"`},
	}
	for _, c := range cases {
		err := v.Validate(c.tool, []byte(c.args))
		if err == nil || !errors.Is(err, mcpkit.ErrBadArguments) || err.Error() != c.want {
			t.Errorf("%s %s:\n got %v\nwant %s", c.tool, c.args, err, c.want)
		}
	}
	for _, ok := range []struct{ tool, args string }{
		{"read_file", `{"path":"a","start_line":2,"line_numbers":true}`},
		{"list_directory", ``},
		{"edit_tool", `{"path":"a","edits":[{"op":"delete","find":"x"}]}`},
	} {
		if err := v.Validate(ok.tool, []byte(ok.args)); err != nil {
			t.Errorf("%s %s: %v", ok.tool, ok.args, err)
		}
	}
}

// TestInputSchemasResolve: every tool's input schema is one the schema
// library resolves. The validator resolves a schema on its tool's first
// call that FastAccepts leaves to it; this finds a bad schema without one.
func TestInputSchemasResolve(t *testing.T) {
	v, err := mcpkit.NewValidator(Tools())
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Resolve(); err != nil {
		t.Fatal(err)
	}
	bad := mcpkit.Spec{Name: "bad", Input: mcpkit.Schema{"type": "object", "properties": mcpkit.Schema{"a": mcpkit.Schema{"type": "integer", "minimum": "one"}}}}
	v, err = mcpkit.NewValidator([]mcpkit.Spec{bad})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Resolve(); err == nil {
		t.Fatal("Resolve accepted a schema whose minimum is a string")
	}
	if err := v.Validate("bad", []byte(`{"a":1.5}`)); err == nil || errors.Is(err, mcpkit.ErrBadArguments) {
		t.Fatalf("a call against a bad schema: %v; want the schema's error, not a refusal of the arguments", err)
	}
}
