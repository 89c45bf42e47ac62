package mcptools

import (
	"encoding/json"
	"testing"

	"github.com/thalix/tv/mcptools/mcpkit"
)

// fastSeeds are arguments for FuzzFastArgsAgree and TestFastArgs: each
// tool with members of every kind, valid and not.
var fastSeeds = []struct {
	tool, args string
	fast       bool // fastArgs accepts it (the library must too)
}{
	{"read_file", `{"path":"a.txt"}`, true},
	{"read_file", `{"path":"a","start_line":2,"end_line":9007199254740992,"line_numbers":true,"workspace":"launch"}`, true},
	{"read_file", `{"path":"a","start_line":1.0}`, false},
	{"read_file", `{"path":"a","start_line":1e0}`, false},
	{"read_file", `{"path":"a","start_line":0}`, false},
	{"read_file", `{"path":"a","start_line":-0}`, false},
	{"read_file", `{"path":"a","start_line":9007199254740993}`, false},
	{"read_file", `{"path":null}`, false},
	{"read_file", `{"path":"a","line_numbers":"true"}`, false},
	{"read_file", `{"path":"a","bogus":1}`, false},
	{"read_file", `{"start_line":1}`, false},
	{"read_file", `{"path":"a","path":5}`, false},
	{"read_file", `{"path":5,"path":"a"}`, false},
	{"read_file", `{"pa\u0074h":"a"}`, true},
	{"read_file", `[]`, false},
	{"read_file", `{"path":"\u00e9\ud83d\ude00"}`, true},
	{"grep", `{"pattern":"x","limit":1000,"context":20}`, true},
	{"grep", `{"pattern":"","limit":1}`, false},
	{"grep", `{"pattern":"x","limit":1001}`, false},
	{"grep", `{"pattern":"x","ignore":["a"]}`, false},
	{"list_directory", `{}`, true},
	{"list_directory", `{"depth":8,"path":"."}`, true},
	{"list_directory", `{"depth":9}`, false},
	{"write_file", `{"path":"a","content":"x\n"}`, true},
	{"edit_tool", `{"path":"a","edits":[{"op":"delete","find":"x"}]}`, false},
	{"execute_bash", `{"command":"true"}`, true},
	{"workspace_list", `{}`, true},
	{"workspace_list", `{"x":1}`, false},
	{"workspace_list", `null`, false},
	{"workspace_list", ` {} `, true},
}

// TestFastArgs: the first pass accepts the plain calls it is meant for
// (so the library is skipped for them) and leaves everything else to the
// library.
func TestFastArgs(t *testing.T) {
	v, err := mcpkit.NewValidator(Tools())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range fastSeeds {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			if got := v.FastAccepts(c.tool, json.RawMessage(c.args)); got != c.fast {
				t.Errorf("fast pass accepts = %v, want %v", got, c.fast)
			}
			if err := libraryValidate(v, c.tool, c.args); c.fast && err != nil {
				t.Errorf("fast pass accepts what the library refuses: %v", err)
			}
		})
	}
}

// libraryValidate validates with the schema library alone.
func libraryValidate(v *mcpkit.Validator, tool, args string) error {
	return v.ValidateSchema(tool, json.RawMessage(args))
}

// FuzzFastArgsAgree: whatever the first pass accepts, the library accepts.
func FuzzFastArgsAgree(f *testing.F) {
	v, err := mcpkit.NewValidator(Tools())
	if err != nil {
		f.Fatal(err)
	}
	tools := Tools()
	for _, c := range fastSeeds {
		for i, s := range tools {
			if s.Name == c.tool {
				f.Add(uint8(i), c.args)
			}
		}
	}
	f.Fuzz(func(t *testing.T, tool uint8, args string) {
		name := tools[int(tool)%len(tools)].Name
		if !json.Valid([]byte(args)) || !v.FastAccepts(name, json.RawMessage(args)) {
			return
		}
		if err := libraryValidate(v, name, args); err != nil {
			t.Errorf("%s %s: the fast pass accepts, the library refuses: %v", name, args, err)
		}
	})
}
