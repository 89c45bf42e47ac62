package mcpcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thalix/tv/hostconfig"
	"github.com/thalix/tv/internal/tvbuild"
	"github.com/thalix/tv/mcpdoctor"
)

// fakeMCPServer builds mcpdoctor's fake server (mcpdoctor/testdata/
// fakeserver), whose FAKEMCP_MODE selects how it misbehaves.
func fakeMCPServer(t *testing.T) string {
	t.Helper()
	return tvbuild.Program(t, "../../../mcpdoctor/testdata/fakeserver")
}

// doctorEnv is a private HOME for the real tv binary.
type doctorEnv struct {
	t    *testing.T
	bin  string
	home string
	env  []string
}

func newDoctorEnv(t *testing.T, extra ...string) *doctorEnv {
	t.Helper()
	home := t.TempDir()
	e := &doctorEnv{t: t, bin: tvbuild.TV(t), home: home}
	e.env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config", "XDG_DATA_HOME=" + home + "/.local/share",
		"XDG_STATE_HOME=" + home + "/.local/state", "GIT_CONFIG_NOSYSTEM=1",
	}, extra...)
	return e
}

// run runs tv with extra environment and returns stdout, stderr and the
// exit code.
func (e *doctorEnv) run(env []string, args ...string) (string, string, int) {
	e.t.Helper()
	var out, errb bytes.Buffer
	c := exec.Command(e.bin, args...)
	c.Env = append(slices.Clone(e.env), env...)
	// A project directory, not home itself: `tv mcp local` (which the
	// doctor launches in its own directory) refuses home as an implicit root.
	c.Dir = filepath.Join(e.home, "project")
	os.MkdirAll(c.Dir, 0o755)
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (e *doctorEnv) must(env []string, args ...string) string {
	e.t.Helper()
	out, errs, code := e.run(env, args...)
	if code != 0 {
		e.t.Fatalf("tv %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// doctorJSON runs tv mcp doctor --json and decodes the report.
func (e *doctorEnv) doctorJSON(env []string, args ...string) (doctorReport, string, int) {
	e.t.Helper()
	out, errs, code := e.run(env, append([]string{"mcp", "doctor", "--json"}, args...)...)
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errs)
	}
	return r, out, code
}

// TestDoctorFakeServer: the doctor fails, exit 1 with the reason, when a
// registered server's tool schema is invalid, when it exits early, and
// when it refuses the call (saying to log in when the user is not); it
// passes against a well-behaved one.
func TestDoctorFakeServer(t *testing.T) {
	t.Parallel()
	fake := fakeMCPServer(t)
	cases := []struct {
		mode, server string
		login        bool
		code         int
		failure      string
		want         []string
	}{
		{mode: "ok", server: "serve", code: 0},
		{mode: "ok", server: "local", code: 0},
		{mode: "bad-schema", server: "local", code: 1, failure: mcpdoctor.FailInvalidTool,
			want: []string{"workspace_list: inputSchema: not a valid JSON Schema: at '/properties/n/minimum': got string, want number"}},
		{mode: "open-input", server: "serve", code: 1, failure: mcpdoctor.FailInvalidTool,
			want: []string{`inputSchema: \"additionalProperties\" is not false`}},
		{mode: "exit", server: "serve", code: 1, failure: mcpdoctor.FailExited,
			want: []string{"the server exited during initialize (exit status 3); its stderr ends: fake: boom"}},
		{mode: "refuse", server: "serve", code: 1, failure: mcpdoctor.FailRefused,
			want: []string{"vault_whoami refused the call: not logged in; you are not logged in: run `tv login --user NAME`"}},
		{mode: "refuse", server: "serve", login: true, code: 1, failure: mcpdoctor.FailRefused,
			want: []string{"vault_whoami refused the call: not logged in"}},
		{mode: "bad-output", server: "local", code: 1, failure: mcpdoctor.FailInvalidTool,
			want: []string{"structuredContent does not match the output schema: at '/user': got number, want string"}},
	}
	for _, c := range cases {
		name := c.mode + "/" + c.server
		if c.login {
			name += "/logged-in"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newDoctorEnv(t, "FAKEMCP_MODE="+c.mode)
			if c.login {
				e.must(nil, "login", "--user", "alice")
			}
			install := []string{"mcp", "install", "--target", "all", "--server", c.server}
			if c.server == "local" {
				install = append(install, "--root", e.home)
			}
			e.must([]string{"TV_EXECUTABLE=" + fake}, install...)
			r, out, code := e.doctorJSON(nil, "--server", c.server)
			if code != c.code || r.OK != (c.code == 0) {
				t.Fatalf("exit %d ok=%v, want %d\n%s", code, r.OK, c.code, out)
			}
			if len(r.Servers) != 1 || r.Servers[0].Command != fake || r.Servers[0].Source != "registered" ||
				len(r.Servers[0].Hosts) != len(hostconfig.Hosts) {
				t.Fatalf("servers: %s", out)
			}
			if s := r.Servers[0]; s.Failure != c.failure {
				t.Errorf("failure %q, want %q\n%s", s.Failure, c.failure, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("report lacks %q:\n%s", w, out)
				}
			}
			if c.code == 0 && len(r.Problems) != 0 {
				t.Errorf("problems: %v", r.Problems)
			}
			// The text report says the same.
			text, errs, code := e.run(nil, "mcp", "doctor", "--server", c.server)
			if code != c.code {
				t.Fatalf("text: exit %d, want %d", code, c.code)
			}
			if c.code != 0 {
				if !strings.Contains(text, "FAILED ("+c.failure+")") || !strings.Contains(errs, "tv: mcp doctor: 1 problem,") {
					t.Errorf("text report:\n%s\n%s", text, errs)
				}
				for _, w := range c.want {
					if w = strings.ReplaceAll(w, `\"`, `"`); !strings.Contains(text, w) {
						t.Errorf("text report lacks %q:\n%s", w, text)
					}
				}
			} else if !strings.Contains(text, "all checks passed") {
				t.Errorf("text report:\n%s", text)
			}
		})
	}
}

// TestDoctorRealBinary: against the real tv — logged in, fresh vault —
// every check passes, unregistered (this executable) and registered.
func TestDoctorRealBinary(t *testing.T) {
	t.Parallel()
	e := newDoctorEnv(t)
	e.must(nil, "login", "--user", "alice")
	for _, registered := range []bool{false, true} {
		if registered {
			e.must(nil, "mcp", "install", "--target", "all")
			e.must(nil, "mcp", "install", "--target", "all", "--server", "local", "--root", e.home)
		}
		r, out, code := e.doctorJSON(nil, "--timeout", "60s")
		if code != 0 || !r.OK {
			t.Fatalf("registered=%v: exit %d\n%s", registered, code, out)
		}
		if !r.Login.LoggedIn || r.Login.User != "alice" {
			t.Errorf("login %+v", r.Login)
		}
		var labels []string
		for _, s := range r.Servers {
			labels = append(labels, s.Label)
			if s.Command != e.bin {
				t.Errorf("%s: command %s, want %s", s.Label, s.Command, e.bin)
			}
			wantSource := "current executable"
			if registered {
				wantSource = "registered"
			}
			if s.Source != wantSource {
				t.Errorf("%s: source %q, want %q", s.Label, s.Source, wantSource)
			}
			if s.Timings.Initialize <= 0 || s.Timings.List <= 0 || s.Timings.Call <= 0 {
				t.Errorf("%s: timings %+v", s.Label, s.Timings)
			}
		}
		if !slices.Equal(labels, []string{serverServe, serverLocal}) {
			t.Errorf("servers %v", labels)
		}
		if r.Servers[0].Call != serveCallTool || !slices.Contains(r.Servers[0].Tools, serveCallTool) ||
			r.Servers[1].Call != localCallTool || !slices.Contains(r.Servers[1].Tools, localCallTool) {
			t.Errorf("calls:\n%s", out)
		}
		if !strings.Contains(r.Servers[0].CallText, "alice") {
			t.Errorf("vault_whoami text %q", r.Servers[0].CallText)
		}
	}
}

// TestDoctorRealBinaryNotLoggedIn: without `tv login`, vault_whoami is
// refused and the doctor says to log in.
func TestDoctorRealBinaryNotLoggedIn(t *testing.T) {
	t.Parallel()
	e := newDoctorEnv(t)
	r, out, code := e.doctorJSON(nil, "--server", "serve", "--timeout", "60s")
	if code != 1 || r.OK || r.Login.LoggedIn {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "run `tv login --user NAME`") {
		t.Errorf("no login hint:\n%s", out)
	}
}

// TestDoctorTargets: which command lines the doctor launches.
func TestDoctorTargets(t *testing.T) {
	reg := func(h hostconfig.Host, server, command string, ok bool, args ...string) doctorRegistration {
		return doctorRegistration{Host: h, Registered: true, Server: server, Command: command, CommandOK: ok, Args: args}
	}
	type launch struct {
		label, command, args, call, source string
		hosts                              int
		requireTools                       bool
	}
	cases := []struct {
		name  string
		kinds []string
		regs  []doctorRegistration
		want  []launch
	}{
		{"nothing registered", []string{"serve", "local"}, nil, []launch{
			{"serve", "/cur/tv", "mcp serve", "vault_whoami", "current executable", 0, false},
			{"local", "/cur/tv", "mcp local", "workspace_list", "current executable", 0, false},
		}},
		{"same entry everywhere", []string{"serve"}, []doctorRegistration{
			reg("claude-code", "serve", "/a/tv", true, "mcp", "serve"),
			reg("cursor", "serve", "/a/tv", true, "mcp", "serve"),
			reg("cursor", "local", "/a/tv", true, "mcp", "local"),
		}, []launch{{"serve", "/a/tv", "mcp serve", "vault_whoami", "registered", 2, false}}},
		{"broken command: fall back to this executable", []string{"local"}, []doctorRegistration{
			reg("codex", "local", "/gone/tv", false, "mcp", "local"),
		}, []launch{{"local", "/cur/tv", "mcp local", "workspace_list", "current executable", 0, false}}},
		{"two binaries", []string{"local"}, []doctorRegistration{
			reg("codex", "local", "/a/tv", true, "mcp", "local"),
			reg("cursor", "local", "/b/tv", true, "mcp", "local", "--root", "/w"),
		}, []launch{
			{"local", "/a/tv", "mcp local", "workspace_list", "registered", 1, false},
			{"local", "/b/tv", "mcp local --root /w", "workspace_list", "registered", 1, false},
		}},
		{"scoped only: also the unscoped server of that binary", []string{"serve"}, []doctorRegistration{
			reg("cursor", "serve", "/a/tv", true, "mcp", "serve", "--workspace", "w", "--stage", "s"),
		}, []launch{
			{"serve", "/a/tv", "mcp serve --workspace w --stage s", "", "registered", 1, true},
			{"serve", "/a/tv", "mcp serve", "vault_whoami", "registered command, unscoped", 0, false},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []launch
			for _, d := range doctorTargets(c.kinds, c.regs, "/cur/tv") {
				got = append(got, launch{d.Label, d.Command, strings.Join(d.Args, " "), d.Call, d.source, len(d.hosts), d.RequireTools})
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestInstallHostPaths: the CLI finds each platform's home directory the
// way os.UserHomeDir does, so hostconfig picks the platform's files.
func TestInstallHostPaths(t *testing.T) {
	cases := []struct {
		goos string
		env  map[string]string
		host hostconfig.Host
		want string
	}{
		{"linux", map[string]string{"HOME": "/home/u"}, hostconfig.ClaudeDesktop, "/home/u/.config/Claude/claude_desktop_config.json"},
		{"linux", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/x"}, hostconfig.ClaudeDesktop, "/x/Claude/claude_desktop_config.json"},
		{"darwin", map[string]string{"HOME": "/Users/u"}, hostconfig.ClaudeDesktop, "/Users/u/Library/Application Support/Claude/claude_desktop_config.json"},
		{"darwin", map[string]string{"HOME": "/Users/u"}, hostconfig.ClaudeCode, "/Users/u/.claude.json"},
		{"windows", map[string]string{"HOME": "/ignored", "USERPROFILE": `C:\Users\u`, "APPDATA": `C:\Users\u\AppData\Roaming`}, hostconfig.ClaudeDesktop, `C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json`},
		{"windows", map[string]string{"USERPROFILE": `C:\Users\u`}, hostconfig.Cursor, `C:\Users\u\.cursor\mcp.json`},
		{"windows", map[string]string{"USERPROFILE": `C:\Users\u`, "CODEX_HOME": `D:\codex`}, hostconfig.Codex, `D:\codex\config.toml`},
	}
	for _, c := range cases {
		env, err := hostEnvFor(c.goos, func(k string) string { return c.env[k] })
		if err != nil {
			t.Fatalf("%s: %v", c.goos, err)
		}
		got, err := hostconfig.ConfigPath(c.host, env)
		if err != nil || got != c.want {
			t.Errorf("%s %s: got %q, %v; want %q", c.goos, c.host, got, err, c.want)
		}
	}
	if _, err := hostEnvFor("windows", func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }); err == nil ||
		!strings.Contains(err.Error(), "$USERPROFILE is not set") {
		t.Errorf("windows without USERPROFILE: %v", err)
	}
}
