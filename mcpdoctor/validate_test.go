package mcpdoctor

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/mcptools"
	"github.com/thalix/tv/mcptools/vaultmcp"
)

const (
	strictIn  = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`
	objOut    = `{"type":"object","properties":{"ok":{"type":"boolean"}}}`
	allHints  = `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`
	validTool = `{"name":"read_file","description":"Read a file.","inputSchema":` + strictIn + `,"outputSchema":` + objOut + `,"annotations":` + allHints + `}`
)

// tool returns validTool with key set to the raw value (or removed when
// value is "").
func toolWith(key, value string) json.RawMessage {
	var m map[string]json.RawMessage
	json.Unmarshal([]byte(validTool), &m)
	if value == "" {
		delete(m, key)
	} else {
		m[key] = json.RawMessage(value)
	}
	b, _ := json.Marshal(m)
	return b
}

// TestDoctorValidateTools: each defect of a tool definition is reported with the
// tool's name and a message that says what is wrong; a valid one passes.
func TestDoctorValidateTools(t *testing.T) {
	cases := []struct {
		name string
		tool json.RawMessage
		want string // "" means no problem
	}{
		{"valid", json.RawMessage(validTool), ""},
		{"draft-07 schema", toolWith("inputSchema", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false}`), ""},
		{"internal ref", toolWith("outputSchema", `{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`), ""},
		{"not an object", json.RawMessage(`[1]`), "#1: the definition is not a JSON object"},
		{"name missing", toolWith("name", ""), "#1: name is missing or not a string"},
		{"name not a string", toolWith("name", `7`), "name is missing or not a string"},
		{"name with dot", toolWith("name", `"read.file"`), `#1 "read.file": name "read.file" does not match`},
		{"name too long", toolWith("name", `"`+strings.Repeat("a", 65)+`"`), "does not match ^[a-zA-Z0-9_-]{1,64}$"},
		{"name empty", toolWith("name", `""`), "name \"\" does not match"},
		{"no description", toolWith("description", ""), "read_file: description is missing or empty"},
		{"blank description", toolWith("description", `"  "`), "description is missing or empty"},
		{"no input schema", toolWith("inputSchema", ""), "read_file: inputSchema: missing"},
		{"input schema array", toolWith("inputSchema", `[]`), "inputSchema: not a JSON object"},
		{"input not object type", toolWith("inputSchema", `{"type":"string"}`), `inputSchema: "type" is not "object"`},
		{"input open", toolWith("inputSchema", `{"type":"object"}`), `inputSchema: "additionalProperties" is not false`},
		{"input additionalProperties schema", toolWith("inputSchema", `{"type":"object","additionalProperties":{}}`), `"additionalProperties" is not false`},
		{"input bad keyword value", toolWith("inputSchema", `{"type":"object","properties":{"n":{"type":"integr"}},"additionalProperties":false}`), "inputSchema: not a valid JSON Schema: at '/properties/n/type'"},
		{"input bad pattern", toolWith("inputSchema", `{"type":"object","properties":{"n":{"type":"string","pattern":"("}},"additionalProperties":false}`), "inputSchema: not a valid JSON Schema"},
		{"input dangling ref", toolWith("inputSchema", `{"type":"object","properties":{"n":{"$ref":"#/$defs/none"}},"additionalProperties":false}`), "inputSchema: does not compile"},
		{"input external ref", toolWith("inputSchema", `{"type":"object","properties":{"n":{"$ref":"file:///etc/passwd"}},"additionalProperties":false}`), "is not loaded"},
		{"no output schema", toolWith("outputSchema", ""), "read_file: outputSchema: missing"},
		{"output not object type", toolWith("outputSchema", `{"type":"array"}`), `outputSchema: "type" is not "object"`},
		{"output bad", toolWith("outputSchema", `{"type":"object","minProperties":-1}`), "outputSchema: not a valid JSON Schema"},
		{"no annotations", toolWith("annotations", ""), "read_file: annotations are missing"},
		{"annotations not object", toolWith("annotations", `true`), "annotations are missing"},
		{"hint missing", toolWith("annotations", `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true}`), "annotations do not set openWorldHint to a boolean"},
		{"hint not bool", toolWith("annotations", `{"readOnlyHint":"yes","destructiveHint":false,"idempotentHint":true,"openWorldHint":null}`), "annotations do not set readOnlyHint, openWorldHint to a boolean"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, problems := ValidateTools([]json.RawMessage{c.tool})
			if c.want == "" {
				if len(problems) > 0 {
					t.Fatalf("want no problem, got %v", problems)
				}
				return
			}
			if len(problems) != 1 {
				t.Fatalf("want one problem containing %q, got %v", c.want, problems)
			}
			if got := problems[0].String(); !strings.Contains(got, c.want) {
				t.Errorf("problem %q does not contain %q", got, c.want)
			}
		})
	}
}

// TestDoctorValidateToolsDuplicate: a name listed twice is a problem of the
// second definition.
func TestDoctorValidateToolsDuplicate(t *testing.T) {
	tools, problems := ValidateTools([]json.RawMessage{json.RawMessage(validTool), json.RawMessage(validTool)})
	if len(tools) != 2 || len(problems) != 1 || problems[0].String() != "read_file: the name is listed more than once" {
		t.Fatalf("got %v", problems)
	}
}

// TestDoctorValidateTVTools: every tool of `tv mcp local` and of
// `tv mcp serve` (unscoped and scoped) passes, so the doctor does not fail
// tv's own servers.
func TestDoctorValidateTVTools(t *testing.T) {
	sets := map[string][]*mcp.Tool{}
	for _, s := range mcptools.Tools() {
		sets["local"] = append(sets["local"], s.MCPTool())
	}
	for _, s := range vaultmcp.UnscopedTools() {
		sets["serve"] = append(sets["serve"], vaultmcp.MCPTool(s))
	}
	for _, s := range vaultmcp.ScopedTools() {
		sets["serve scoped"] = append(sets["serve scoped"], vaultmcp.MCPTool(s))
	}
	for name, set := range sets {
		var raws []json.RawMessage
		for _, tl := range set {
			b, err := json.Marshal(tl)
			if err != nil {
				t.Fatal(err)
			}
			raws = append(raws, b)
		}
		tools, problems := ValidateTools(raws)
		if len(problems) > 0 || len(tools) == 0 {
			t.Errorf("%s: %d tools, problems %v", name, len(tools), problems)
		}
		for _, tl := range tools {
			if tl.Output == nil {
				t.Errorf("%s: %s: output schema not compiled", name, tl.Name)
			}
		}
	}
}

// TestDoctorValidateValue: a value is checked against a compiled schema, with a
// message naming the member.
func TestDoctorValidateValue(t *testing.T) {
	s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateValue(s, json.RawMessage(`{"n":3}`)); err != nil {
		t.Errorf("valid value refused: %v", err)
	}
	if err := ValidateValue(s, json.RawMessage(`{"n":3.5}`)); err == nil || !strings.Contains(err.Error(), "at '/n'") {
		t.Errorf("got %v", err)
	}
	if err := ValidateValue(s, json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "missing property 'n'") {
		t.Errorf("got %v", err)
	}
}

// TestDoctorTimingsJSON: timings travel as milliseconds and come back.
func TestDoctorTimingsJSON(t *testing.T) {
	in := Timings{Initialize: 12345 * time.Microsecond, Call: 2 * time.Millisecond}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"call_ms":2,"initialize_ms":12.3}` {
		t.Fatalf("%s %v", b, err)
	}
	var out Timings
	if err := json.Unmarshal(b, &out); err != nil || out != (Timings{Initialize: 12300 * time.Microsecond, Call: 2 * time.Millisecond}) {
		t.Fatalf("%+v %v", out, err)
	}
}
