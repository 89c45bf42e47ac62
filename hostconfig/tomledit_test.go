package hostconfig

import (
	"errors"
	"strings"
	"testing"
)

const tvTable = "[mcp_servers.tv]\ncommand = \"/bin/tv\"\nargs = [\"mcp\"]\n"

func TestTOMLInstallRestore(t *testing.T) {
	tests := []struct {
		name, in, want string
		restores       bool
	}{
		{"empty file", "", tvTable, false},
		{"root keys", "model = \"o3\"\n", "model = \"o3\"\n\n" + tvTable, true},
		{"ends in a blank line", "a = 1\n\n", "a = 1\n\n\n" + tvTable, true},
		{"no final newline", "a = 1", "a = 1\n\n" + tvTable, false},
		{"CRLF", "a = 1\r\n[b]\r\nc = 2\r\n", "a = 1\r\n[b]\r\nc = 2\r\n\r\n" + strings.ReplaceAll(tvTable, "\n", "\r\n"), true},
		{"other servers", "[mcp_servers.x]\ncommand = \"x\"\n[mcp_servers.x.env]\nK = \"v\"\n", "[mcp_servers.x]\ncommand = \"x\"\n[mcp_servers.x.env]\nK = \"v\"\n\n" + tvTable, true},
		{"mcp_servers table with inline servers", "[mcp_servers]\nx = { command = \"x\" }\n", "[mcp_servers]\nx = { command = \"x\" }\n\n" + tvTable, true},
		{"trailing comment", "a = 1\n# end\n", "a = 1\n# end\n\n" + tvTable, true},
		{"header text inside strings", "a = \"\"\"\n[mcp_servers.tv]\n\"\"\"\nb = '''\n[mcp_servers.tv]'''\nc = [\n  \"[mcp_servers.tv]\", # [mcp_servers.tv]\n]\n",
			"a = \"\"\"\n[mcp_servers.tv]\n\"\"\"\nb = '''\n[mcp_servers.tv]'''\nc = [\n  \"[mcp_servers.tv]\", # [mcp_servers.tv]\n]\n\n" + tvTable, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, ch, err := tomlInstall([]byte(tc.in), shortEntry, false)
			if err != nil || ch != Created || string(out) != tc.want {
				t.Fatalf("install = %q, %v:\n%q\nwant:\n%q", ch, err, out, tc.want)
			}
			if again, ch, err := tomlInstall(out, shortEntry, false); err != nil || ch != Unchanged || string(again) != string(out) {
				t.Errorf("second install = %q, %v", ch, err)
			}
			back, ch, empty, err := tomlUninstall(out, "tv")
			if err != nil || ch != Removed {
				t.Fatalf("uninstall = %q, %v", ch, err)
			}
			if tc.restores && string(back) != tc.in {
				t.Errorf("uninstall:\n%q\nwant:\n%q", back, tc.in)
			}
			if empty != (strings.TrimSpace(string(back)) == "") {
				t.Errorf("empty = %v for %q", empty, back)
			}
		})
	}
	// A file without a final newline comes back with one.
	out, _, _ := tomlInstall([]byte("a = 1"), shortEntry, false)
	if back, _, _, _ := tomlUninstall(out, "tv"); string(back) != "a = 1\n" {
		t.Errorf("no-final-newline restore = %q", back)
	}
}

func TestTOMLRecognisesForms(t *testing.T) {
	for _, in := range []string{
		"[mcp_servers.\"tv\"]\ncommand = \"/bin/tv\"\nargs = [\"mcp\"]\n",
		"[ mcp_servers . 'tv' ] # tv\ncommand = '/bin/tv'\nargs = [\n  \"mcp\", # the subcommand\n]\n",
		"[\"mcp_servers\".tv]\n\"command\" = \"\\u002Fbin/tv\"\nargs=['''mcp''']\n",
		"  [mcp_servers.tv]\n  command = \"\"\"\n/bin/tv\"\"\"\n  args = [\"\"\"m\\\n   cp\"\"\"]\n",
		"[mcp_servers.tv]\ncommand = \"/bin/tv\"\nargs = [\"mcp\"]",
	} {
		e, ok, err := tomlLookup([]byte(in), "tv")
		if !ok || err != nil || !entryEqual(e, shortEntry) {
			t.Errorf("lookup %q = %+v %v %v", in, e, ok, err)
		}
		if out, ch, err := tomlInstall([]byte(in), shortEntry, false); err != nil || ch != Unchanged || string(out) != in {
			t.Errorf("install over %q = %q, %v", in, ch, err)
		}
	}
}

func TestTOMLUninstall(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{
			"middle, comment before the next table stays",
			"a = 1\n\n[mcp_servers.tv]\ncommand = \"/x\"\nargs = []\n\n# the next one\n[b]\nc = 2\n",
			"a = 1\n\n# the next one\n[b]\nc = 2\n",
		},
		{
			"with sub-tables, contiguous and not",
			"[mcp_servers.tv]\ncommand = \"/x\"\n[mcp_servers.tv.env]\nK = \"v\"\n\n[other]\nx = 1\n\n[mcp_servers.tv.tools.a]\nenabled = true\n",
			"[other]\nx = 1\n",
		},
		{
			"comment inside the table goes with it",
			"[a]\n[mcp_servers.tv]\n# tv\ncommand = \"/x\"\n[b]\n",
			"[a]\n[b]\n",
		},
		{
			"quoted header",
			"x = 1\n\n[mcp_servers.\"tv\"]\ncommand = \"/x\"\n",
			"x = 1\n",
		},
		{
			"last table with trailing comment",
			"x = 1\n\n[mcp_servers.tv]\ncommand = \"/x\"\n# bye\n",
			"x = 1\n\n# bye\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, ch, _, err := tomlUninstall([]byte(tc.in), "tv")
			if err != nil || ch != Removed || string(out) != tc.want {
				t.Errorf("uninstall = %q, %v:\n%q\nwant:\n%q", ch, err, out, tc.want)
			}
		})
	}
	if out, ch, _, err := tomlUninstall([]byte("[mcp_servers.tvx]\n[mcp_servers.t]\n"), "tv"); ch != Absent || err != nil || string(out) != "[mcp_servers.tvx]\n[mcp_servers.t]\n" {
		t.Errorf("absent = %q %v", ch, err)
	}
	if _, _, empty, _ := tomlUninstall([]byte(tvTable), "tv"); !empty {
		t.Errorf("only tv's table: want empty")
	}
}

func TestTOMLForceReplace(t *testing.T) {
	in := "a = 1\n\n[mcp_servers.tv]\ncommand = \"/old/tv\"\nargs = [\"serve\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.tv.env]\nTOKEN = \"s3cret\"\n\n[z]\nq = 1\n"
	_, _, err := tomlInstall([]byte(in), shortEntry, false)
	if !errors.Is(err, ErrEntryExists) {
		t.Fatalf("install without force = %v", err)
	}
	want := `"tv" is registered with command "/old/tv", args ["serve"], env TOKEN, also "startup_timeout_sec"; pass --force`
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("message %q, want it to contain %q and no secret", err, want)
	}
	out, ch, err := tomlInstall([]byte(in), shortEntry, true)
	wantOut := "a = 1\n\n" + tvTable + "\n[z]\nq = 1\n"
	if err != nil || ch != Updated || string(out) != wantOut {
		t.Errorf("force = %q %v:\n%q\nwant:\n%q", ch, err, out, wantOut)
	}
	// Only sub-tables: tv's entry exists implicitly and is replaced by an
	// appended table.
	in = "[mcp_servers.tv.env]\nK = \"v\"\n\n[z]\n"
	if _, ok, err := tomlLookup([]byte(in), "tv"); !ok || !errors.Is(err, ErrUnexpectedEntry) {
		t.Errorf("lookup of sub-tables only = %v %v", ok, err)
	}
	out, ch, err = tomlInstall([]byte(in), shortEntry, true)
	if err != nil || ch != Updated || string(out) != "[z]\n\n"+tvTable {
		t.Errorf("force over sub-tables = %q %v: %q", ch, err, out)
	}
}

func TestTOMLMalformed(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unterminated multi-line string", "a = 1\nb = \"\"\"x\n\n", "line 2, column 5: unterminated multi-line string"},
		{"unterminated literal multi-line", "b = '''x", "unterminated multi-line string"},
		{"unterminated string", "b = \"x\nc = 1\n", "line 1, column 5: unterminated string"},
		{"backslash-newline in a basic string", "b = \"x\\\ny\"\n", "unterminated string"},
		{"unterminated array", "args = [\"a\",\n", "unterminated array or inline table"},
		{"header not closed", "[mcp_servers.tv\ncommand = \"x\"\n", `line 1, column 16: table header not closed with "]"`},
		{"array header not closed", "[[x]\n", `not closed with "]]"`},
		{"no equals", "a 1\n", "expected '=' after a key"},
		{"no value", "a =\n", "missing value"},
		{"text after value", "a = \"x\" y\n", "unexpected text \"y\""},
		{"empty key", "= 1\n", "expected a key"},
		{"bad escape in key", "[\"\\q\"]\n", "invalid escape"},
		{"duplicate tv table", "[mcp_servers.tv]\ncommand = \"/a\"\n[x]\n[mcp_servers.\"tv\"]\n", "line 4, column 1: duplicate table [mcp_servers.tv]"},
		{"inline mcp_servers", "mcp_servers = { x = { command = \"x\" } }\n", "mcp_servers is assigned an inline value"},
		{"tv as inline table", "[mcp_servers]\ntv = { command = \"/x\" }\n", "line 2, column 1: mcp_servers.tv is defined with dotted keys"},
		{"tv by dotted keys", "mcp_servers.tv.command = \"/x\"\n", "defined with dotted keys"},
		{"array of tables", "[[mcp_servers]]\n", "array of tables"},
		{"tv array of tables", "[[mcp_servers.tv]]\n", "array of tables"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tomlInstall([]byte(tc.in), shortEntry, true)
			_, _, _, err2 := tomlUninstall([]byte(tc.in), "tv")
			_, _, err3 := tomlLookup([]byte(tc.in), "tv")
			for _, err := range []error{err, err2, err3} {
				if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("got %v, want ErrMalformed with %q", err, tc.want)
				}
			}
		})
	}
	// Dotted keys for other servers are fine.
	in := "mcp_servers.x.command = \"x\"\n[mcp_servers]\ny = { command = \"y\" }\n"
	if _, ch, err := tomlInstall([]byte(in), shortEntry, false); err != nil || ch != Created {
		t.Errorf("other servers by dotted keys: %q %v", ch, err)
	}
}

func TestTOMLQuoting(t *testing.T) {
	e := Entry{Name: "tv", Command: `C:\Program Files\tv\tv.exe`, Args: []string{`say "hi"`, "tab\tnew\nline", "\x01\x7f", "é ☃"}}
	out, _, err := tomlInstall(nil, e, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "[mcp_servers.tv]\ncommand = \"C:\\\\Program Files\\\\tv\\\\tv.exe\"\nargs = [\"say \\\"hi\\\"\", \"tab\\tnew\\nline\", \"\\u0001\\u007F\", \"é ☃\"]\n"
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	got, ok, err := tomlLookup(out, "tv")
	if !ok || err != nil || !entryEqual(got, e) {
		t.Errorf("round trip = %+v %v %v", got, ok, err)
	}
}

func TestTOMLStringDecoding(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`"a\tb\u00e9\U0001F600\\\""`, "a\tb\u00e9\U0001F600\\\""},
		{`'C:\x'`, `C:\x`},
		{"\"\"\"\nline1\\\n   line2\"\"\"", "line1line2"},
		{"'''\r\nraw\\n'''", `raw\n`},
		{`""""quoted""""`, `"quoted"`},
	}
	for _, tc := range tests {
		got, ok := tomlString([]byte(tc.raw))
		if !ok || got != tc.want {
			t.Errorf("tomlString(%s) = %q, %v; want %q", tc.raw, got, ok, tc.want)
		}
	}
	for _, raw := range []string{`"\q"`, `"\u12"`, `"\uD800"`, `42`, `[1]`} {
		if _, ok := tomlString([]byte(raw)); ok {
			t.Errorf("tomlString(%s) accepted", raw)
		}
	}
	if _, ok := tomlStringArray([]byte(`["a", 1]`)); ok {
		t.Errorf("mixed array accepted")
	}
	if got, ok := tomlStringArray([]byte("[ # c\n 'a' ,\n\"b\", ]")); !ok || strings.Join(got, "|") != "a|b" {
		t.Errorf("array = %q %v", got, ok)
	}
}
