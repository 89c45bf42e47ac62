package hostconfig

import (
	"errors"
	"strings"
	"testing"
)

var shortEntry = Entry{Name: "tv", Command: "/bin/tv", Args: []string{"mcp"}}

func TestJSONInstallLayouts(t *testing.T) {
	tests := []struct {
		name     string
		in, want string
		restores bool // Uninstall gives back in exactly
	}{
		{
			name:     "minified",
			in:       `{"a":1,"mcpServers":{"x":{"command":"x"}}}`,
			want:     `{"a":1,"mcpServers":{"x":{"command":"x"},"tv":{"command":"/bin/tv","args":["mcp"]}}}`,
			restores: true,
		},
		{
			name:     "minified without mcpServers",
			in:       `{"a":[1,2]}`,
			want:     `{"a":[1,2],"mcpServers":{"tv":{"command":"/bin/tv","args":["mcp"]}}}`,
			restores: true,
		},
		{
			name:     "tabs",
			in:       "{\n\t\"a\": true\n}\n",
			want:     "{\n\t\"a\": true,\n\t\"mcpServers\": {\n\t\t\"tv\": {\n\t\t\t\"command\": \"/bin/tv\",\n\t\t\t\"args\": [\n\t\t\t\t\"mcp\"\n\t\t\t]\n\t\t}\n\t}\n}\n",
			restores: true,
		},
		{
			name:     "CRLF and 4 spaces",
			in:       "{\r\n    \"mcpServers\": {\r\n        \"x\": {}\r\n    }\r\n}\r\n",
			want:     "{\r\n    \"mcpServers\": {\r\n        \"x\": {},\r\n        \"tv\": {\r\n            \"command\": \"/bin/tv\",\r\n            \"args\": [\r\n                \"mcp\"\r\n            ]\r\n        }\r\n    }\r\n}\r\n",
			restores: true,
		},
		{
			name:     "empty mcpServers in the middle",
			in:       "{\n  \"mcpServers\": {},\n  \"z\": null\n}\n",
			want:     "{\n  \"mcpServers\": {\n    \"tv\": {\n      \"command\": \"/bin/tv\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  },\n  \"z\": null\n}\n",
			restores: true,
		},
		{
			name: "empty mcpServers last is dropped on uninstall",
			in:   "{\n  \"z\": null,\n  \"mcpServers\": {}\n}\n",
			want: "{\n  \"z\": null,\n  \"mcpServers\": {\n    \"tv\": {\n      \"command\": \"/bin/tv\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n",
		},
		{
			name:     "compact mcpServers in a pretty file",
			in:       "{\n  \"mcpServers\": {\"x\": {\"command\": \"x\"}}\n}\n",
			want:     "{\n  \"mcpServers\": {\"x\": {\"command\": \"x\"},\"tv\": {\"command\":\"/bin/tv\",\"args\":[\"mcp\"]}}\n}\n",
			restores: true,
		},
		{
			name:     "byte order mark",
			in:       "\xEF\xBB\xBF{\"a\": 1}",
			want:     "\xEF\xBB\xBF{\"a\": 1,\"mcpServers\": {\"tv\": {\"command\":\"/bin/tv\",\"args\":[\"mcp\"]}}}",
			restores: true,
		},
		{
			name: "empty object",
			in:   " {}\n",
			want: " {\n  \"mcpServers\": {\n    \"tv\": {\n      \"command\": \"/bin/tv\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n",
		},
		{
			name:     "escaped keys and odd spacing",
			in:       "{ \"mcp\\u0053ervers\" : { \"x\" : 1 } , \"\\\"\" : \"}\" }",
			want:     "{ \"mcp\\u0053ervers\" : { \"x\" : 1, \"tv\" : {\"command\":\"/bin/tv\",\"args\":[\"mcp\"]} } , \"\\\"\" : \"}\" }",
			restores: true,
		},
		{
			name:     "nested mcpServers in projects is not the top-level one",
			in:       "{\n  \"projects\": {\"/p\": {\"mcpServers\": {}}}\n}",
			want:     "{\n  \"projects\": {\"/p\": {\"mcpServers\": {}}},\n  \"mcpServers\": {\n    \"tv\": {\n      \"command\": \"/bin/tv\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}",
			restores: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, ch, err := jsonInstall([]byte(tc.in), shortEntry, false, false)
			if err != nil || ch != Created {
				t.Fatalf("install = %q, %v", ch, err)
			}
			if string(out) != tc.want {
				t.Errorf("install:\n%q\nwant:\n%q", out, tc.want)
			}
			if again, ch, err := jsonInstall(out, shortEntry, false, false); err != nil || ch != Unchanged || string(again) != string(out) {
				t.Errorf("second install = %q, %v", ch, err)
			}
			back, ch, _, err := jsonUninstall(out, "tv")
			if err != nil || ch != Removed {
				t.Fatalf("uninstall = %q, %v", ch, err)
			}
			if tc.restores && string(back) != tc.in {
				t.Errorf("uninstall:\n%q\nwant the original:\n%q", back, tc.in)
			}
			if _, ok, err := jsonLookup(back, "tv"); ok || err != nil {
				t.Errorf("lookup after uninstall = %v, %v", ok, err)
			}
		})
	}
}

func TestJSONUninstallPositions(t *testing.T) {
	tests := []struct {
		name, in, want string
		empty          bool
	}{
		{"first of several", `{"mcpServers": {"tv": {"command": "/x"}, "b": 2, "c": 3}}`, `{"mcpServers": {"b": 2, "c": 3}}`, false},
		{"middle", "{\"mcpServers\": {\n \"a\": 1,\n \"tv\": {},\n \"c\": 3\n}}", "{\"mcpServers\": {\n \"a\": 1,\n \"c\": 3\n}}", false},
		{"only, mcpServers in the middle", `{"mcpServers": {"tv": 1}, "z": 0}`, `{"mcpServers": {}, "z": 0}`, false},
		{"only, mcpServers last", `{"a": 0, "mcpServers": { "tv": 1 }}`, `{"a": 0}`, false},
		{"only content", "{\"mcpServers\": {\"tv\": 1}}\n", "{}\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, ch, empty, err := jsonUninstall([]byte(tc.in), "tv")
			if err != nil || ch != Removed || string(out) != tc.want || empty != tc.empty {
				t.Errorf("uninstall = %q, %q, empty %v, %v; want %q, empty %v", out, ch, empty, err, tc.want, tc.empty)
			}
		})
	}
}

func TestJSONEquivalentEntries(t *testing.T) {
	// What `claude mcp add` writes, and hand-written variants, count as tv's
	// entry: no rewrite.
	for _, in := range []string{
		`{"mcpServers": {"tv": {"type": "stdio", "command": "/bin/tv", "args": ["mcp"], "env": {}}}}`,
		`{"mcpServers": {"tv": {"args": ["mcp"], "command": "/bin/tv"}}}`,
		"{\"mcpServers\": {\"tv\": {\n\"command\": \"\\/bin\\/tv\", \"args\": [\"m\\u0063p\"]}}}",
	} {
		for _, typed := range []bool{true, false} {
			out, ch, err := jsonInstall([]byte(in), shortEntry, typed, false)
			if err != nil || ch != Unchanged || string(out) != in {
				t.Errorf("install over %s = %q, %v", in, ch, err)
			}
		}
	}
	for _, in := range []string{
		`{"mcpServers": {"tv": {"command": "/bin/tv", "args": ["mcp"], "env": {"K": "v"}}}}`,
		`{"mcpServers": {"tv": {"command": "/bin/tv", "args": ["mcp"], "type": "http"}}}`,
		`{"mcpServers": {"tv": {"command": "/bin/tv", "args": ["mcp"], "cwd": "/"}}}`,
		`{"mcpServers": {"tv": {"command": "/bin/tv", "args": ["mcp", "x"]}}}`,
		`{"mcpServers": {"tv": {"command": "/bin/tv", "command": "/bin/tv", "args": ["mcp"]}}}`,
		`{"mcpServers": {"tv": {"command": "/bin/tv"}}}`,
		`{"mcpServers": {"tv": ["/bin/tv"]}}`,
		`{"mcpServers": {"tv": null}}`,
	} {
		if _, _, err := jsonInstall([]byte(in), shortEntry, false, false); !errors.Is(err, ErrEntryExists) {
			t.Errorf("install over %s = %v, want ErrEntryExists", in, err)
		}
		out, ch, err := jsonInstall([]byte(in), shortEntry, false, true)
		if err != nil || ch != Updated {
			t.Fatalf("force install over %s = %q, %v", in, ch, err)
		}
		if e, ok, err := jsonLookup(out, "tv"); !ok || err != nil || !entryEqual(e, shortEntry) {
			t.Errorf("lookup after force = %+v %v %v", e, ok, err)
		}
	}
}

func TestJSONEntryExistsMessage(t *testing.T) {
	in := `{"mcpServers": {"tv": {"command": "/opt/tv", "args": ["serve"], "env": {"TOKEN": "s3cret"}, "cwd": "/x"}}}`
	_, _, err := jsonInstall([]byte(in), shortEntry, false, false)
	want := `a different MCP server entry with this name exists: "tv" is registered with command "/opt/tv", args ["serve"], env TOKEN, also "cwd"; pass --force to replace it, or --name to register tv under another name`
	if err == nil || err.Error() != want {
		t.Errorf("message:\n%v\nwant:\n%s", err, want)
	}
}

func TestJSONLookupUnexpected(t *testing.T) {
	for _, in := range []string{
		`{"mcpServers": {"tv": {"type": "http", "url": "http://x"}}}`,
		`{"mcpServers": {"tv": {"command": 7}}}`,
		`{"mcpServers": {"tv": {"command": "/x", "args": "a b"}}}`,
		`{"mcpServers": {"tv": "x"}}`,
	} {
		_, ok, err := jsonLookup([]byte(in), "tv")
		if !ok || !errors.Is(err, ErrUnexpectedEntry) {
			t.Errorf("lookup %s = %v, %v; want ok and ErrUnexpectedEntry", in, ok, err)
		}
	}
	e, ok, err := jsonLookup([]byte(`{"mcpServers": {"tv": {"command": "/x", "env": {"A": "b"}}}}`), "tv")
	if !ok || err != nil || e.Command != "/x" || e.Args != nil {
		t.Errorf("lookup with env = %+v %v %v", e, ok, err)
	}
}

func TestJSONMalformed(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"syntax", "{\n  \"a\": 1,\n  \"b\" 2\n}", "line 3, column 7"},
		{"trailing comma", "{\"a\": 1,}", "line 1, column 9"},
		{"truncated", "{\"a\": [1, 2", "unexpected end of JSON input"},
		{"comment", "// c\n{}", "line 1, column 1"},
		{"trailing garbage", "{} {}", "after top-level value"},
		{"top-level array", "\n [1]", "line 2, column 2: the top-level value is not a JSON object"},
		{"top-level string", `"x"`, "not a JSON object"},
		{"mcpServers array", `{"mcpServers": []}`, `"mcpServers" is not a JSON object`},
		{"mcpServers null", `{"mcpServers": null}`, `"mcpServers" is not a JSON object`},
		{"duplicate mcpServers", "{\"mcpServers\": {},\n\"mcpServers\": {}}", `line 2, column 1: duplicate key "mcpServers"`},
		{"duplicate tv", `{"mcpServers": {"tv": 1, "tv": 2}}`, `duplicate key "tv" in "mcpServers"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := jsonInstall([]byte(tc.in), shortEntry, false, true)
			_, _, _, err2 := jsonUninstall([]byte(tc.in), "tv")
			_, _, err3 := jsonLookup([]byte(tc.in), "tv")
			for _, err := range []error{err, err2, err3} {
				if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("got %v, want ErrMalformed with %q", err, tc.want)
				}
			}
		})
	}
	// Duplicate keys elsewhere are not tv's business.
	in := `{"a": 1, "a": 2, "mcpServers": {"x": {"k": 1, "k": 2}}}`
	out, ch, err := jsonInstall([]byte(in), shortEntry, false, false)
	if err != nil || ch != Created || !strings.HasPrefix(string(out), `{"a": 1, "a": 2, "mcpServers": {"x": {"k": 1, "k": 2},`) {
		t.Errorf("duplicates elsewhere: %s %q %v", out, ch, err)
	}
}

func TestJSONEscaping(t *testing.T) {
	e := Entry{Name: "tv", Command: `C:\Program Files\tv\tv.exe`, Args: []string{`<a & "b">`, "é\t"}}
	out, _, err := jsonInstall(nil, e, false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"C:\\Program Files\\tv\\tv.exe"`, `"<a & \"b\">"`, `"é\t"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	got, ok, err := jsonLookup(out, "tv")
	if !ok || err != nil || !entryEqual(got, e) {
		t.Errorf("round trip: %+v %v %v", got, ok, err)
	}
}
