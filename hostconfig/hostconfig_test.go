package hostconfig

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var tvEntry = Entry{Name: "thalix-vault", Command: "/usr/local/bin/tv", Args: []string{"mcp", "serve", "--workspace", "ws_1"}}

func testEnv(t *testing.T) Env {
	t.Helper()
	return Env{GOOS: "linux", Home: t.TempDir(), Getenv: func(string) string { return "" }}
}

func writeFixture(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

type fileState struct {
	data  string
	mode  fs.FileMode
	mtime time.Time
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileState{string(data), fi.Mode().Perm(), fi.ModTime()}
}

func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s exists (err %v), want it absent", path, err)
	}
}

// hostCase holds one host's fixtures and the exact text tv must produce.
type hostCase struct {
	host      Host
	rel       string // config path below Home on linux
	created   string // a new file
	fixture   string // other servers and unrelated keys
	installed string // fixture after Install
	different string // holds another entry named thalix-vault
	malformed string
}

const claudeFixture = `{
  "numStartups": 12345678901234567890,
  "theme": "dark",
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ],
      "env": {
        "GITHUB_TOKEN": "ghp_secret"
      }
    }
  },
  "projects": {
    "/home/u/p": {
      "mcpServers": {},
      "allowedTools": [],
      "lastCost": 0.10000000000000000555
    }
  },
  "userID": "abc\u00e9"
}
`

const claudeInstalled = `{
  "numStartups": 12345678901234567890,
  "theme": "dark",
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ],
      "env": {
        "GITHUB_TOKEN": "ghp_secret"
      }
    },
    "thalix-vault": {
      "type": "stdio",
      "command": "/usr/local/bin/tv",
      "args": [
        "mcp",
        "serve",
        "--workspace",
        "ws_1"
      ]
    }
  },
  "projects": {
    "/home/u/p": {
      "mcpServers": {},
      "allowedTools": [],
      "lastCost": 0.10000000000000000555
    }
  },
  "userID": "abc\u00e9"
}
`

const claudeCreated = `{
  "mcpServers": {
    "thalix-vault": {
      "type": "stdio",
      "command": "/usr/local/bin/tv",
      "args": [
        "mcp",
        "serve",
        "--workspace",
        "ws_1"
      ]
    }
  }
}
`

const desktopFixture = `{
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/u"]
        }
    }
}`

const desktopInstalled = `{
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/u"]
        },
        "thalix-vault": {
            "command": "/usr/local/bin/tv",
            "args": [
                "mcp",
                "serve",
                "--workspace",
                "ws_1"
            ]
        }
    }
}`

const cursorFixture = `{
  "mcpServers": {
    "a": {"command": "a"},
    "b": {"url": "http://localhost:1/mcp"}
  },
  "big": [1e400, -0.0, 123456789012345678901234567890]
}
`

const cursorInstalled = `{
  "mcpServers": {
    "a": {"command": "a"},
    "b": {"url": "http://localhost:1/mcp"},
    "thalix-vault": {
      "command": "/usr/local/bin/tv",
      "args": [
        "mcp",
        "serve",
        "--workspace",
        "ws_1"
      ]
    }
  },
  "big": [1e400, -0.0, 123456789012345678901234567890]
}
`

const cursorCreated = `{
  "mcpServers": {
    "thalix-vault": {
      "command": "/usr/local/bin/tv",
      "args": [
        "mcp",
        "serve",
        "--workspace",
        "ws_1"
      ]
    }
  }
}
`

const codexFixture = `# Codex config
model = "o3"
approval_policy = "on-request"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[mcp_servers.github.env]
GITHUB_TOKEN = "ghp_secret"

[profiles.fast]
model = "o4-mini" # cheaper
`

const codexTable = `[mcp_servers.thalix-vault]
command = "/usr/local/bin/tv"
args = ["mcp", "serve", "--workspace", "ws_1"]
`

var hostCases = []hostCase{
	{
		host: ClaudeCode, rel: ".claude.json",
		created: claudeCreated, fixture: claudeFixture, installed: claudeInstalled,
		different: strings.Replace(claudeFixture, `"github"`, `"thalix-vault"`, 1),
		malformed: "{\n  \"mcpServers\": {\n    \"a\": 1,\n  }\n}\n",
	},
	{
		host: ClaudeDesktop, rel: ".config/Claude/claude_desktop_config.json",
		created:   cursorCreated,
		fixture:   desktopFixture,
		installed: desktopInstalled,
		different: strings.Replace(desktopFixture, `"filesystem"`, `"thalix-vault"`, 1),
		malformed: `{"mcpServers": {"a": 1}} // comment`,
	},
	{
		host: Cursor, rel: ".cursor/mcp.json",
		created: cursorCreated, fixture: cursorFixture, installed: cursorInstalled,
		different: strings.Replace(cursorFixture, `"a": {"command": "a"}`, `"thalix-vault": {"command": "/opt/old/tv", "env": {"TOKEN": "ghp_secret"}}`, 1),
		malformed: `[{"mcpServers": {}}]`,
	},
	{
		host: Codex, rel: ".codex/config.toml",
		created: codexTable, fixture: codexFixture, installed: codexFixture + "\n" + codexTable,
		different: strings.ReplaceAll(codexFixture, "mcp_servers.github", "mcp_servers.thalix-vault"),
		malformed: "model = \"o3\"\n[mcp_servers.x]\ncommand = \"\"\"never closed\n",
	},
}

func TestHosts(t *testing.T) {
	for _, hc := range hostCases {
		t.Run(string(hc.host), func(t *testing.T) {
			setup := func(t *testing.T, content string, mode fs.FileMode) (Env, string) {
				env := testEnv(t)
				path := filepath.Join(env.Home, filepath.FromSlash(hc.rel))
				if content != "" {
					writeFixture(t, path, content, mode)
				}
				return env, path
			}

			t.Run("create-new", func(t *testing.T) {
				env, want := setup(t, "", 0)
				path, ch, err := Install(hc.host, env, tvEntry, false)
				if err != nil || ch != Created || path != want {
					t.Fatalf("Install = %q, %q, %v; want %q, created", path, ch, err, want)
				}
				st := stateOf(t, path)
				if st.data != hc.created {
					t.Errorf("new file:\n%s\nwant:\n%s", st.data, hc.created)
				}
				if st.mode != 0o600 {
					t.Errorf("new file mode %v, want 0600", st.mode)
				}
				if fi, err := os.Stat(filepath.Dir(path)); strings.Contains(hc.rel, "/") && (err != nil || fi.Mode().Perm() != 0o700) {
					t.Errorf("new directory: %v, %v; want mode 0700", fi.Mode(), err)
				}
				got, ok, _, err := Lookup(hc.host, env, tvEntry.Name)
				if err != nil || !ok || !entryEqual(got, tvEntry) {
					t.Errorf("Lookup = %+v, %v, %v", got, ok, err)
				}
				// Uninstall of the only content deletes the file tv created.
				if _, ch, err := Uninstall(hc.host, env, tvEntry.Name); err != nil || ch != Removed {
					t.Fatalf("Uninstall = %q, %v", ch, err)
				}
				mustNotExist(t, path)
			})

			t.Run("add-beside-others", func(t *testing.T) {
				env, path := setup(t, hc.fixture, 0o640)
				if _, ch, err := Install(hc.host, env, tvEntry, false); err != nil || ch != Created {
					t.Fatalf("Install = %q, %v", ch, err)
				}
				st := stateOf(t, path)
				if st.data != hc.installed {
					t.Errorf("after Install:\n%s\nwant:\n%s", st.data, hc.installed)
				}
				if st.mode != 0o640 {
					t.Errorf("mode %v, want 0640 kept", st.mode)
				}
				entries, _ := os.ReadDir(filepath.Dir(path))
				for _, de := range entries {
					if strings.Contains(de.Name(), ".tmp") {
						t.Errorf("temporary file %s left behind", de.Name())
					}
				}
			})

			t.Run("idempotent", func(t *testing.T) {
				env, path := setup(t, hc.fixture, 0o640)
				if _, _, err := Install(hc.host, env, tvEntry, false); err != nil {
					t.Fatal(err)
				}
				old := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
				os.Chtimes(path, old, old)
				before := stateOf(t, path)
				for _, force := range []bool{false, true} {
					if _, ch, err := Install(hc.host, env, tvEntry, force); err != nil || ch != Unchanged {
						t.Fatalf("second Install(force=%v) = %q, %v; want unchanged", force, ch, err)
					}
				}
				if after := stateOf(t, path); after != before {
					t.Errorf("second Install rewrote the file: %+v -> %+v", before, after)
				}
			})

			t.Run("refuse-replace-without-force", func(t *testing.T) {
				env, path := setup(t, hc.different, 0o640)
				before := stateOf(t, path)
				_, _, err := Install(hc.host, env, tvEntry, false)
				if !errors.Is(err, ErrEntryExists) {
					t.Fatalf("Install = %v, want ErrEntryExists", err)
				}
				msg := err.Error()
				for _, want := range []string{path, "thalix-vault", "--force", "--name", "command"} {
					if !strings.Contains(msg, want) {
						t.Errorf("message %q lacks %q", msg, want)
					}
				}
				if strings.Contains(msg, "ghp_secret") {
					t.Errorf("message leaks a secret: %q", msg)
				}
				if after := stateOf(t, path); after != before {
					t.Errorf("refused Install touched the file")
				}
			})

			t.Run("force-replace", func(t *testing.T) {
				env, path := setup(t, hc.different, 0o640)
				if _, ch, err := Install(hc.host, env, tvEntry, true); err != nil || ch != Updated {
					t.Fatalf("Install(force) = %q, %v; want updated", ch, err)
				}
				got, ok, _, err := Lookup(hc.host, env, tvEntry.Name)
				if err != nil || !ok || !entryEqual(got, tvEntry) {
					t.Errorf("Lookup after force = %+v, %v, %v", got, ok, err)
				}
				st := stateOf(t, path)
				if strings.Contains(st.data, "ghp_secret") {
					t.Errorf("replaced entry's env survived:\n%s", st.data)
				}
				if st.mode != 0o640 {
					t.Errorf("mode %v, want 0640", st.mode)
				}
				if _, ch, err := Install(hc.host, env, tvEntry, false); err != nil || ch != Unchanged {
					t.Errorf("Install after force = %q, %v; want unchanged", ch, err)
				}
			})

			t.Run("uninstall-restores", func(t *testing.T) {
				env, path := setup(t, hc.fixture, 0o640)
				if _, _, err := Install(hc.host, env, tvEntry, false); err != nil {
					t.Fatal(err)
				}
				if _, ch, err := Uninstall(hc.host, env, tvEntry.Name); err != nil || ch != Removed {
					t.Fatalf("Uninstall = %q, %v", ch, err)
				}
				st := stateOf(t, path)
				if st.data != hc.fixture {
					t.Errorf("after Uninstall:\n%s\nwant the original:\n%s", st.data, hc.fixture)
				}
				if st.mode != 0o640 {
					t.Errorf("mode %v, want 0640", st.mode)
				}
				if _, ok, _, err := Lookup(hc.host, env, tvEntry.Name); ok || err != nil {
					t.Errorf("Lookup after Uninstall = %v, %v", ok, err)
				}
			})

			t.Run("uninstall-absent", func(t *testing.T) {
				env, path := setup(t, hc.fixture, 0o640)
				before := stateOf(t, path)
				if _, ch, err := Uninstall(hc.host, env, tvEntry.Name); err != nil || ch != Absent {
					t.Fatalf("Uninstall = %q, %v; want absent", ch, err)
				}
				if after := stateOf(t, path); after != before {
					t.Errorf("Uninstall of an absent entry touched the file")
				}
				env2, path2 := setup(t, "", 0)
				if _, ch, err := Uninstall(hc.host, env2, tvEntry.Name); err != nil || ch != Absent {
					t.Fatalf("Uninstall without a file = %q, %v; want absent", ch, err)
				}
				mustNotExist(t, path2)
				if _, ok, _, err := Lookup(hc.host, env2, tvEntry.Name); ok || err != nil {
					t.Errorf("Lookup without a file = %v, %v", ok, err)
				}
			})

			t.Run("malformed-untouched", func(t *testing.T) {
				env, path := setup(t, hc.malformed, 0o640)
				before := stateOf(t, path)
				_, _, err := Install(hc.host, env, tvEntry, true)
				_, _, err2 := Uninstall(hc.host, env, tvEntry.Name)
				_, _, _, err3 := Lookup(hc.host, env, tvEntry.Name)
				for _, err := range []error{err, err2, err3} {
					if !errors.Is(err, ErrMalformed) {
						t.Fatalf("got %v, want ErrMalformed", err)
					}
					for _, want := range []string{path, "line ", "column ", "fix the file or move it aside"} {
						if !strings.Contains(err.Error(), want) {
							t.Errorf("message %q lacks %q", err, want)
						}
					}
				}
				if after := stateOf(t, path); after != before {
					t.Errorf("malformed file changed: %+v -> %+v", before, after)
				}
			})
		})
	}
}

func entryEqual(a, b Entry) bool {
	return a.Name == b.Name && a.Command == b.Command && slices.Equal(a.Args, b.Args)
}

func TestConcurrentEdit(t *testing.T) {
	t.Cleanup(func() { beforeCommit = nil })
	env := testEnv(t)
	path := filepath.Join(env.Home, ".claude.json")
	writeFixture(t, path, claudeFixture, 0o600)
	calls := 0
	beforeCommit = func(p string) {
		calls++
		if calls == 1 { // another program rewrites the file once
			os.WriteFile(p, []byte(strings.Replace(claudeFixture, `"dark"`, `"light"`, 1)), 0o600)
		}
	}
	if _, ch, err := Install(ClaudeCode, env, tvEntry, false); err != nil || ch != Created {
		t.Fatalf("Install = %q, %v", ch, err)
	}
	want := strings.Replace(claudeInstalled, `"dark"`, `"light"`, 1)
	if got := stateOf(t, path).data; got != want || calls != 2 {
		t.Errorf("calls %d; got:\n%s\nwant the other program's change kept:\n%s", calls, got, want)
	}

	n := 0
	last := ""
	beforeCommit = func(p string) { // it never stops
		n++
		last = strings.Replace(want, "12345678901234567890", strings.Repeat("7", n), 1)
		os.WriteFile(p, []byte(last), 0o600)
	}
	_, _, err := Uninstall(ClaudeCode, env, tvEntry.Name)
	if !errors.Is(err, ErrConcurrentEdit) || n != MaxWriteAttempts {
		t.Fatalf("Uninstall = %v after %d attempts, want ErrConcurrentEdit after %d", err, n, MaxWriteAttempts)
	}
	if got := stateOf(t, path).data; got != last {
		t.Errorf("tv overwrote the other program's content: %s", got)
	}
}

func TestSymlinkedConfig(t *testing.T) {
	env := testEnv(t)
	target := filepath.Join(env.Home, "dotfiles", "cursor-mcp.json")
	writeFixture(t, target, "{}\n", 0o644)
	link := filepath.Join(env.Home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(link), 0o700)
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, _, err := Install(Cursor, env, tvEntry, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	if st := stateOf(t, target); !strings.Contains(st.data, "thalix-vault") || st.mode != 0o644 {
		t.Errorf("target not written through the link: %+v", st)
	}
	if _, ch, err := Uninstall(Cursor, env, tvEntry.Name); err != nil || ch != Removed {
		t.Fatalf("Uninstall = %q, %v", ch, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("emptied symlinked config was deleted: %v", err)
	}
	if got := stateOf(t, target).data; got != "{}\n" {
		t.Errorf("target after Uninstall = %q, want {}", got)
	}
}

func TestTooLarge(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Home, ".claude.json")
	writeFixture(t, path, "{}", 0o600)
	if err := os.Truncate(path, MaxConfigBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		func() error { _, _, err := Install(ClaudeCode, env, tvEntry, false); return err }(),
		func() error { _, _, err := Uninstall(ClaudeCode, env, tvEntry.Name); return err }(),
		func() error { _, _, _, err := Lookup(ClaudeCode, env, tvEntry.Name); return err }(),
	} {
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "16777216") {
			t.Errorf("got %v, want ErrTooLarge naming the limit", err)
		}
	}
	if fi, _ := os.Stat(path); fi.Size() != MaxConfigBytes+1 {
		t.Errorf("file changed")
	}
}

func TestNotARegularFile(t *testing.T) {
	env := testEnv(t)
	os.MkdirAll(filepath.Join(env.Home, ".claude.json"), 0o700)
	if _, _, err := Install(ClaudeCode, env, tvEntry, false); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Install over a directory = %v", err)
	}
}

func TestEntryValidation(t *testing.T) {
	env := testEnv(t)
	for _, tc := range []struct {
		name string
		e    Entry
		want string
	}{
		{"relative command", Entry{Name: "tv", Command: "tv"}, "not an absolute path"},
		{"empty command", Entry{Name: "tv"}, "empty"},
		{"empty name", Entry{Command: "/bin/tv"}, "name"},
		{"dotted name", Entry{Name: "a.b", Command: "/bin/tv"}, "name"},
		{"long name", Entry{Name: strings.Repeat("a", MaxNameBytes+1), Command: "/bin/tv"}, "64"},
		{"NUL", Entry{Name: "tv", Command: "/bin/tv", Args: []string{"a\x00b"}}, "NUL"},
		{"bad UTF-8", Entry{Name: "tv", Command: "/bin/tv", Args: []string{"\xff"}}, "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, h := range Hosts {
				_, _, err := Install(h, env, tc.e, false)
				if !errors.Is(err, ErrInvalidEntry) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: Install = %v, want ErrInvalidEntry mentioning %q", h, err, tc.want)
				}
			}
		})
	}
	entries, _ := os.ReadDir(env.Home)
	if len(entries) != 0 {
		t.Errorf("refused installs created files: %v", entries)
	}
	win := Env{GOOS: "windows", Home: `C:\Users\me`}
	if err := validateEntry(Entry{Name: "tv", Command: `C:\tv\tv.exe`}, win.goos(), true); err != nil {
		t.Errorf("windows absolute command refused: %v", err)
	}
	if err := validateEntry(Entry{Name: "tv", Command: `/tv/tv.exe`}, win.goos(), true); err == nil {
		t.Errorf("windows rooted-but-driveless command accepted")
	}
}

func TestJSONSnippet(t *testing.T) {
	got, err := JSONSnippet(Entry{Name: "thalix-vault", Command: "tv",
		Args: []string{"mcp", "serve", "--workspace", "<workspace-root-id>", "--stage", "<direct-stage-folder-id>"}})
	if err != nil {
		t.Fatal(err)
	}
	// The manual entry of the reference description, byte for byte.
	want := `{
  "mcpServers": {
    "thalix-vault": {
      "command": "tv",
      "args": [
        "mcp",
        "serve",
        "--workspace",
        "<workspace-root-id>",
        "--stage",
        "<direct-stage-folder-id>"
      ]
    }
  }
}
`
	if string(got) != want {
		t.Errorf("JSONSnippet:\n%s\nwant:\n%s", got, want)
	}
	got, _ = JSONSnippet(Entry{Name: "tv", Command: "/bin/tv"})
	if !bytes.Contains(got, []byte(`"args": []`)) {
		t.Errorf("no args should render as []: %s", got)
	}
	if _, err := JSONSnippet(Entry{Name: "", Command: "tv"}); !errors.Is(err, ErrInvalidEntry) {
		t.Errorf("empty name: %v", err)
	}
}

func TestParseHost(t *testing.T) {
	for _, h := range Hosts {
		if got, err := ParseHost(string(h)); got != h || err != nil {
			t.Errorf("ParseHost(%q) = %q, %v", h, got, err)
		}
	}
	_, err := ParseHost("vscode")
	if !errors.Is(err, ErrUnknownHost) || !strings.Contains(err.Error(), "claude-code, claude-desktop, cursor, codex") {
		t.Errorf("ParseHost(vscode) = %v", err)
	}
	if _, _, err := Install("vscode", testEnv(t), tvEntry, false); !errors.Is(err, ErrUnknownHost) {
		t.Errorf("Install(vscode) = %v", err)
	}
}

// TestEntryEnv: an entry's environment (TV_VAULT) is written, read back and
// compared in every format; an entry differing only in env is replaced
// only with force.
func TestEntryEnv(t *testing.T) {
	e := Entry{Name: "tv", Command: "/opt/tv", Args: []string{"mcp", "serve"}, Env: map[string]string{"TV_VAULT": `/srv/te"am.git`}}
	for _, h := range Hosts {
		t.Run(string(h), func(t *testing.T) {
			out, ch, err := installBytes(h, nil, e, false)
			if err != nil || ch != Created {
				t.Fatalf("install = %q, %v", ch, err)
			}
			got, ok, err := lookupBytes(h, out, "tv")
			if err != nil || !ok || got.Env["TV_VAULT"] != e.Env["TV_VAULT"] || len(got.Env) != 1 {
				t.Fatalf("lookup = %+v %v %v\n%s", got, ok, err, out)
			}
			if _, ch, err := installBytes(h, out, e, false); err != nil || ch != Unchanged {
				t.Fatalf("reinstall = %q, %v", ch, err)
			}
			other := e
			other.Env = map[string]string{"TV_VAULT": "/elsewhere.git"}
			if _, _, err := installBytes(h, out, other, false); !errors.Is(err, ErrEntryExists) {
				t.Fatalf("install of a different env without force = %v", err)
			}
			plain := Entry{Name: "tv", Command: "/opt/tv", Args: []string{"mcp", "serve"}}
			out2, ch, err := installBytes(h, out, plain, true)
			if err != nil || ch != Updated {
				t.Fatalf("force = %q %v", ch, err)
			}
			if got, _, _ := lookupBytes(h, out2, "tv"); len(got.Env) != 0 {
				t.Fatalf("env left after replacing with an entry without one:\n%s", out2)
			}
			if _, ch, _, err := uninstallBytes(h, out, "tv"); err != nil || ch != Removed {
				t.Fatalf("uninstall = %q %v", ch, err)
			}
		})
	}
	bad := e
	bad.Env = map[string]string{"1X": "v"}
	if _, err := JSONSnippet(bad); !errors.Is(err, ErrInvalidEntry) {
		t.Fatalf("bad env name accepted: %v", err)
	}
}
