package hostconfig

import (
	"errors"
	"testing"
)

func TestConfigPath(t *testing.T) {
	vars := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	linux := Env{GOOS: "linux", Home: "/home/u", Getenv: vars()}
	darwin := Env{GOOS: "darwin", Home: "/Users/u", Getenv: vars("XDG_CONFIG_HOME", "/x")}
	windows := Env{GOOS: "windows", Home: `C:\Users\u`, Getenv: vars("APPDATA", `C:\Users\u\AppData\Roaming`)}
	tests := []struct {
		name string
		host Host
		env  Env
		want string
	}{
		{"claude-code linux", ClaudeCode, linux, "/home/u/.claude.json"},
		{"claude-code darwin", ClaudeCode, darwin, "/Users/u/.claude.json"},
		{"claude-code windows", ClaudeCode, windows, `C:\Users\u\.claude.json`},
		{"desktop linux default", ClaudeDesktop, linux, "/home/u/.config/Claude/claude_desktop_config.json"},
		{"desktop linux XDG", ClaudeDesktop, Env{GOOS: "linux", Home: "/home/u", Getenv: vars("XDG_CONFIG_HOME", "/cfg/")}, "/cfg/Claude/claude_desktop_config.json"},
		{"desktop linux relative XDG ignored", ClaudeDesktop, Env{GOOS: "linux", Home: "/home/u", Getenv: vars("XDG_CONFIG_HOME", "cfg")}, "/home/u/.config/Claude/claude_desktop_config.json"},
		{"desktop freebsd uses XDG rule", ClaudeDesktop, Env{GOOS: "freebsd", Home: "/home/u"}, "/home/u/.config/Claude/claude_desktop_config.json"},
		{"desktop darwin ignores XDG", ClaudeDesktop, darwin, "/Users/u/Library/Application Support/Claude/claude_desktop_config.json"},
		{"desktop windows APPDATA", ClaudeDesktop, windows, `C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json`},
		{"desktop windows other APPDATA", ClaudeDesktop, Env{GOOS: "windows", Home: `C:\Users\u`, Getenv: vars("APPDATA", `D:\Roam\`)}, `D:\Roam\Claude\claude_desktop_config.json`},
		{"desktop windows no APPDATA", ClaudeDesktop, Env{GOOS: "windows", Home: `C:\Users\u`}, `C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json`},
		{"cursor linux", Cursor, linux, "/home/u/.cursor/mcp.json"},
		{"cursor darwin", Cursor, darwin, "/Users/u/.cursor/mcp.json"},
		{"cursor windows", Cursor, windows, `C:\Users\u\.cursor\mcp.json`},
		{"codex linux", Codex, linux, "/home/u/.codex/config.toml"},
		{"codex windows", Codex, windows, `C:\Users\u\.codex\config.toml`},
		{"codex CODEX_HOME", Codex, Env{GOOS: "linux", Home: "/home/u", Getenv: vars("CODEX_HOME", "/srv/codex")}, "/srv/codex/config.toml"},
		{"codex CODEX_HOME windows", Codex, Env{GOOS: "windows", Home: `C:\Users\u`, Getenv: vars("CODEX_HOME", `E:\codex`)}, `E:\codex\config.toml`},
		{"nil Getenv", Codex, Env{GOOS: "darwin", Home: "/Users/u"}, "/Users/u/.codex/config.toml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConfigPath(tc.host, tc.env)
			if err != nil || got != tc.want {
				t.Errorf("ConfigPath = %q, %v; want %q", got, err, tc.want)
			}
		})
	}

	for _, tc := range []struct {
		name string
		host Host
		env  Env
		is   error
	}{
		{"unknown host", "vscode", linux, ErrUnknownHost},
		{"no home", ClaudeCode, Env{GOOS: "linux"}, nil},
		{"relative home", ClaudeCode, Env{GOOS: "linux", Home: "u"}, nil},
		{"relative CODEX_HOME", Codex, Env{GOOS: "linux", Home: "/home/u", Getenv: vars("CODEX_HOME", "codex")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ConfigPath(tc.host, tc.env)
			if err == nil || tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("ConfigPath = %v, want an error (%v)", err, tc.is)
			}
		})
	}
}
