package mcptools

import (
	"errors"
	"testing"
)

// TestValidatorMessages: arguments that break a tool's input schema are
// refused before the handler runs, with ErrBadArguments and a message
// naming the offending member and the problem.
func TestValidatorMessages(t *testing.T) {
	v, err := NewValidator(Tools())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ tool, args, want string }{
		{"read_file", `{"path":"a","bogus":1}`, "invalid arguments: additional properties 'bogus' not allowed"},
		{"read_file", `{}`, "invalid arguments: missing property 'path'"},
		{"read_file", ``, "invalid arguments: missing property 'path'"},
		{"read_file", `{"path":7}`, "invalid arguments: at '/path': got number, want string"},
		{"read_file", `{"path":"a","start_line":0}`, "invalid arguments: at '/start_line': minimum: got 0, want 1"},
		{"read_file", `{"path":"a","start_line":1.5}`, "invalid arguments: at '/start_line': got number, want integer"},
		{"list_directory", `{"depth":9}`, "invalid arguments: at '/depth': maximum: got 9, want 8"},
		{"edit_tool", `{"path":"a","edits":[{"op":"replace","text":"x"}]}`, "invalid arguments: at '/edits/0': missing property 'find'"},
		{"edit_tool", `{"path":"a","edits":[{"op":"swap","find":"x"}]}`, "invalid arguments: at '/edits/0/op': value must be one of 'replace', 'insert_before', 'insert_after', 'delete'"},
		{"edit_tool", `{"path":"a","edits":[]}`, "invalid arguments: at '/edits': minItems: got 0, want 1"},
		{"read_file", `{"path":`, "invalid arguments: arguments are not valid JSON: unexpected EOF"},
		{"read_file", `{"path":"a"} {}`, "invalid arguments: arguments are not valid JSON: invalid character after top-level value"},
		{"no_such_tool", `{}`, `invalid arguments: unknown tool "no_such_tool"`},
	}
	for _, c := range cases {
		err := v.Validate(c.tool, []byte(c.args))
		if err == nil || !errors.Is(err, ErrBadArguments) || err.Error() != c.want {
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

// TestValidatorRefusesBadSchema: a tool whose input schema is not a valid
// JSON Schema fails NewValidator, naming the tool and the keyword.
func TestValidatorRefusesBadSchema(t *testing.T) {
	bad := Spec{Name: "bad", Input: Object(Schema{"n": Schema{"type": "integr"}})}
	_, err := NewValidator([]Spec{bad})
	if err == nil || err.Error() != "input schema of bad: at '/properties/n/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; at '/properties/n/type': got string, want array" {
		t.Fatalf("got %v", err)
	}
}
