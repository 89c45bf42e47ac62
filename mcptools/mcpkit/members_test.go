package mcpkit

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzEachMember: on every valid JSON object, eachMember sees the members
// encoding/json decodes into a map (the last of a repeated name), with
// their values byte for byte.
func FuzzEachMember(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "a" : 1 , "b":[1,{"c":"}"}], "a":"x\"y" } `, `{"\u0069d":7,"id":8}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a\\b"}}}`,
		`{"x":null,"y":true,"z":-1.5e3,"w":"\\\""}`, `[1]`, `"s"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var want map[string]json.RawMessage
		isObject := json.Unmarshal(b, &want) == nil && bytes.TrimSpace(b)[0] == '{'
		got := map[string]json.RawMessage{}
		ok := eachMember(b, func(name, v []byte) { got[string(name)] = v })
		if ok != isObject {
			t.Fatalf("eachMember(%q) = %v, want %v", b, ok, isObject)
		}
		if !ok {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("eachMember(%q): %d members, want %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("eachMember(%q)[%q] = %q, want %q", b, k, got[k], v)
			}
		}
	})
}
