package mcpcmd

import (
	"context"
	"errors"
	"fmt"
	"github.com/thalix/tv/internal/tvcmd"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/thalix/tv/hostconfig"
	"github.com/thalix/tv/mcpdoctor"
	"github.com/urfave/cli/v3"
)

// The tool each server check calls: identity for the vault server (it
// needs a login), the workspace list for the local server.
const (
	serveCallTool = "vault_whoami"
	localCallTool = "workspace_list"
)

func (a *app) mcpDoctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check tv's MCP registration, login and servers",
		Description: "For each host: whether tv's entry is registered (names tv and tv-local, or --name) and whether its command exists and is executable. " +
			"Login: whether `tv login` was run. Then it launches each server as a host would — `tv mcp serve` and `tv mcp local`, with each distinct " +
			"registered command line, or this executable when none is registered — negotiates MCP (initialize), lists the tools and validates every " +
			"definition (name ^[a-zA-Z0-9_-]{1,64}$, input and output schemas compiled as JSON Schema, input schema strict, every annotation hint set), " +
			"calls vault_whoami (serve; not for an entry scoped with --workspace/--stage, which must list at least one tool) or workspace_list (local), " +
			"checks the structured result against the output schema, and reports timings. --timeout bounds each server's check. Every server process " +
			"is terminated and reaped, on every path. Exit 0 when all is well, 1 with the reasons when any check failed. A host that has no tv entry is " +
			"reported, not a failure. No config file is edited (the servers it starts may create the vault on first use, like any tv command).",
		UsageText: "tv mcp doctor [--server serve|local|all] [--name NAME]... [--timeout D] [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "server", Value: "all", Usage: "which servers to check: serve, local or all"},
			&cli.StringSliceFlag{Name: "name", Usage: "entry name(s) to look up in the host configs (default " + defaultServeName + " and " + defaultLocalName + ")"},
			&cli.DurationFlag{Name: "timeout", Value: mcpdoctor.DefaultTimeout, Usage: "time limit for each server's check (launch, initialize, tools/list, call)"},
		},
		Action: a.h.Action(a.runMCPDoctor),
	}
}

// doctorReport is the result of tv mcp doctor, as printed with --json.
type doctorReport struct {
	OK            bool                 `json:"ok"`
	Executable    string               `json:"executable"`
	Login         doctorLogin          `json:"login"`
	Registrations []doctorRegistration `json:"registrations"`
	Servers       []doctorServer       `json:"servers"`
	Problems      []string             `json:"problems"`
}

// doctorLogin is the session state: who tv acts as.
type doctorLogin struct {
	LoggedIn bool   `json:"logged_in"`
	User     string `json:"user,omitempty"`
	Email    string `json:"email,omitempty"`
	Error    string `json:"error,omitempty"`
}

// doctorRegistration is one host's entry of one name.
type doctorRegistration struct {
	Host       hostconfig.Host   `json:"host"`
	Path       string            `json:"path"`
	Name       string            `json:"name"`
	Registered bool              `json:"registered"`
	Command    string            `json:"command,omitempty"`
	Args       []string          `json:"args,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	// Server is serve or local when the entry runs tv's server.
	Server string `json:"server,omitempty"`
	// CommandOK: the command exists and is executable.
	CommandOK bool `json:"command_ok"`
	// Problem makes the doctor fail; Note does not.
	Problem string `json:"problem,omitempty"`
	Note    string `json:"note,omitempty"`
	// launchEnv is the environment the host gives the server: a base
	// environment and the entry's env, not the doctor's TV_* variables.
	launchEnv []string
}

// hostEnvKeys are the variables a host's server gets from the doctor's
// environment when the whole environment is not known (IO.Environ nil).
var hostEnvKeys = []string{"HOME", "PATH", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TMPDIR", "TZ",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
	"APPDATA", "LOCALAPPDATA", "USERPROFILE", "SystemRoot", "ComSpec", "PATHEXT", "TEMP", "TMP",
	"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL"}

// hostEnviron is the environment a host launches an entry with: the
// doctor's own without any TV_* variable (they choose the vault, the
// served workspaces and the executable, and a host does not have the
// caller's shell settings), then the entry's env.
func (a *app) hostEnviron(entry map[string]string) []string {
	var base []string
	if a.io.Environ != nil {
		base = a.io.Environ()
	} else {
		for _, k := range hostEnvKeys {
			if v := a.io.Getenv(k); v != "" {
				base = append(base, k+"="+v)
			}
		}
	}
	var out []string
	for _, kv := range base {
		if !strings.HasPrefix(kv, "TV_") {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(entry)) {
		out = append(out, k+"="+entry[k])
	}
	return out
}

// doctorServer is one server check: where its command line came from and
// what mcpdoctor found.
type doctorServer struct {
	mcpdoctor.Result
	// Source is "registered" (Hosts lists where) or "current executable".
	Source string            `json:"source"`
	Hosts  []hostconfig.Host `json:"hosts,omitempty"`
}

func (a *app) runMCPDoctor(ctx context.Context, cmd *cli.Command) error {
	if err := tvcmd.ExactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	kinds := []string{serverServe, serverLocal}
	switch s := cmd.String("server"); s {
	case "all":
	case serverServe, serverLocal:
		kinds = []string{s}
	default:
		return tvcmd.Usagef("--server %q: use serve, local or all", s)
	}
	timeout := cmd.Duration("timeout")
	if timeout <= 0 {
		return tvcmd.Usagef("--timeout %s: must be positive", timeout)
	}
	names := cmd.StringSlice("name")
	if len(names) == 0 {
		names = []string{defaultServeName, defaultLocalName}
	}
	for _, n := range names {
		if _, err := hostconfig.JSONSnippet(hostconfig.Entry{Name: n, Command: "tv"}); err != nil {
			return err
		}
	}
	env, err := a.hostEnv()
	if err != nil {
		return err
	}

	r := doctorReport{Registrations: []doctorRegistration{}, Servers: []doctorServer{}, Problems: []string{}}
	problem := func(format string, args ...any) { r.Problems = append(r.Problems, fmt.Sprintf(format, args...)) }

	exe, exeErr := a.tvExecutable()
	if exeErr != nil {
		problem("the tv executable: %v", exeErr)
	}
	r.Executable = exe

	creds, err := a.h.Credentials()
	switch {
	case err != nil:
		r.Login.Error = err.Error()
		problem("login: %v", err)
	case creds != nil:
		r.Login = doctorLogin{LoggedIn: true, User: creds.User, Email: creds.Email}
	}

	for _, h := range hostconfig.Hosts {
		for _, n := range names {
			reg := lookupRegistration(h, env, n)
			reg.launchEnv = a.hostEnviron(reg.Env)
			if reg.Problem != "" {
				problem("%s: %s", h, reg.Problem)
			}
			r.Registrations = append(r.Registrations, reg)
		}
	}

	for _, t := range doctorTargets(kinds, r.Registrations, exe) {
		t.Timeout = timeout
		res := mcpdoctor.Check(ctx, t.Target)
		ds := doctorServer{Result: res, Source: t.source, Hosts: t.hosts}
		if res.Err != nil {
			msg := res.Reason
			if t.Label == serverServe && !r.Login.LoggedIn && (res.Failure == mcpdoctor.FailRefused || res.Failure == mcpdoctor.FailInvalidTool) {
				msg += "; you are not logged in: run `tv login --user NAME`"
			}
			problem("%s (%s): %s", t.Label, strings.Join(append([]string{t.Command}, t.Args...), " "), msg)
		}
		r.Servers = append(r.Servers, ds)
	}
	r.OK = len(r.Problems) == 0

	if err := a.h.Output(r, func(w io.Writer) { printDoctor(w, r) }); err != nil {
		return err
	}
	if !r.OK {
		if !a.h.JSON() {
			fmt.Fprintf(a.io.Stderr, "tv: mcp doctor: %s, see above\n", tvcmd.Plural(len(r.Problems), "problem"))
		}
		return tvcmd.Silent{Err: fmt.Errorf("%w: %s", tvcmd.ErrCheckFailed, strings.Join(r.Problems, "; "))}
	}
	return nil
}

// lookupRegistration reads host h's entry called name and checks its
// command.
func lookupRegistration(h hostconfig.Host, env hostconfig.Env, name string) doctorRegistration {
	e, ok, path, err := hostconfig.Lookup(h, env, name)
	reg := doctorRegistration{Host: h, Path: path, Name: name, Registered: ok, Command: e.Command, Args: e.Args, Env: e.Env}
	switch {
	case errors.Is(err, hostconfig.ErrUnexpectedEntry):
		reg.Note = fmt.Sprintf("%q is not a stdio command entry (%v); not checked", name, err)
		return reg
	case err != nil:
		reg.Problem = fmt.Sprintf("cannot read the config: %v", err)
		return reg
	case !ok:
		return reg
	}
	server, tv := isTVEntry(e.Args)
	if !tv {
		reg.Note = fmt.Sprintf("%q runs %s, not tv's MCP server; not checked", name, describeCommand(e))
		return reg
	}
	reg.Server = server
	if server == serverLocal {
		if root := launchRoot(h, e.Args); root != "" && filepath.Dir(root) == root {
			reg.Problem = fmt.Sprintf("entry %q in %s would serve %s, the whole filesystem (%s starts servers there and the entry names no --root); "+
				"run `tv mcp install --target %s --force%s --root DIR` with the directory the agent works in", name, path, root, h, h, installFlags(server, name))
			return reg
		}
	}
	if p := checkCommand(e.Command); p != "" {
		reg.Problem = fmt.Sprintf("entry %q in %s: %s; run `tv mcp install --force%s` to register this tv",
			name, path, p, installFlags(server, name))
		return reg
	}
	reg.CommandOK = true
	return reg
}

// launchRoot is the directory a local entry serves: its --root, else the
// directory host h starts servers in ("" for a project directory).
func launchRoot(h hostconfig.Host, args []string) string {
	for i, a := range args {
		if a == "--root" && i+1 < len(args) {
			return filepath.Clean(args[i+1])
		}
		if v, ok := strings.CutPrefix(a, "--root="); ok {
			return filepath.Clean(v)
		}
	}
	return hostconfig.LaunchDir(h)
}

// installFlags are the install flags that re-create an entry of server
// kind server called name.
func installFlags(server, name string) string {
	s := ""
	if server == serverLocal {
		s += " --server local"
	}
	if (server == serverLocal && name != defaultLocalName) || (server == serverServe && name != defaultServeName) {
		s += " --name " + name
	}
	return s
}

// checkCommand says what is wrong with an entry's command, or "".
func checkCommand(c string) string {
	if !filepath.IsAbs(c) {
		if _, err := exec.LookPath(c); err != nil {
			return fmt.Sprintf("the command %q is not an absolute path and is not found on PATH", c)
		}
		return "" // found on this PATH; the host's PATH may differ
	}
	fi, err := os.Stat(c)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("the command %s does not exist", c)
	case err != nil:
		return fmt.Sprintf("the command %s: %v", c, err)
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("the command %s is not a regular file", c)
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return fmt.Sprintf("the command %s is not executable", c)
	}
	return ""
}

// doctorTarget is one server to launch.
type doctorTarget struct {
	mcpdoctor.Target
	source string
	hosts  []hostconfig.Host
}

// doctorTargets picks the command lines to check, per server kind: every
// distinct registered command line whose command is usable; and, when no
// registered entry of that kind runs unscoped, the unscoped server of the
// first usable registered command, else of this executable. An unscoped
// serve calls vault_whoami, local calls workspace_list; a scoped serve
// calls nothing but must list a tool.
func doctorTargets(kinds []string, regs []doctorRegistration, exe string) []doctorTarget {
	var out []doctorTarget
	for _, kind := range kinds {
		var mine []doctorTarget
		for _, reg := range regs {
			if reg.Server != kind || !reg.CommandOK {
				continue
			}
			if i := slices.IndexFunc(mine, func(t doctorTarget) bool {
				return t.Command == reg.Command && slices.Equal(t.Args, reg.Args) && slices.Equal(t.Env, reg.launchEnv)
			}); i >= 0 {
				if !slices.Contains(mine[i].hosts, reg.Host) {
					mine[i].hosts = append(mine[i].hosts, reg.Host)
				}
				continue
			}
			t := newDoctorTarget(kind, reg.Command, reg.Args, "registered", reg.Host)
			t.Env = reg.launchEnv
			mine = append(mine, t)
		}
		unscoped := slices.IndexFunc(mine, func(t doctorTarget) bool { return len(t.Args) == 2 || kind == serverLocal })
		if unscoped < 0 {
			switch {
			case len(mine) > 0:
				mine = append(mine, newDoctorTarget(kind, mine[0].Command, []string{"mcp", kind}, "registered command, unscoped", ""))
			case exe != "":
				mine = append(mine, newDoctorTarget(kind, exe, []string{"mcp", kind}, "current executable", ""))
			}
		}
		out = append(out, mine...)
	}
	return out
}

func newDoctorTarget(kind, command string, args []string, source string, host hostconfig.Host) doctorTarget {
	t := doctorTarget{Target: mcpdoctor.Target{Label: kind, Command: command, Args: slices.Clone(args)}, source: source}
	if host != "" {
		t.hosts = []hostconfig.Host{host}
	}
	switch {
	case kind == serverLocal:
		t.Call = localCallTool
	case len(args) == 2:
		t.Call = serveCallTool
	default:
		t.RequireTools = true
	}
	return t
}

// printDoctor is the text report.
func printDoctor(w io.Writer, r doctorReport) {
	switch {
	case r.Login.Error != "":
		fmt.Fprintf(w, "login: unreadable: %s\n", r.Login.Error)
	case r.Login.LoggedIn:
		fmt.Fprintf(w, "login: %s <%s>\n", r.Login.User, r.Login.Email)
	default:
		fmt.Fprintln(w, "login: not logged in (run `tv login --user NAME`)")
	}
	fmt.Fprintf(w, "executable: %s\n", r.Executable)
	fmt.Fprintln(w, "registrations:")
	for _, h := range hostconfig.Hosts {
		shown := false
		for _, reg := range r.Registrations {
			if reg.Host != h || (!reg.Registered && reg.Problem == "") {
				continue
			}
			shown = true
			state := "ok"
			switch {
			case reg.Problem != "":
				state = "PROBLEM: " + reg.Problem
			case reg.Note != "":
				state = "note: " + reg.Note
			}
			cmdline := strings.Join(append([]string{reg.Command}, reg.Args...), " ")
			if !reg.Registered {
				cmdline = "?"
			}
			fmt.Fprintf(w, "  %-15s %-9s %s (%s): %s\n", h, reg.Name, cmdline, reg.Path, state)
		}
		if !shown {
			path := ""
			for _, reg := range r.Registrations {
				if reg.Host == h {
					path = reg.Path
					break
				}
			}
			fmt.Fprintf(w, "  %-15s not registered (%s)\n", h, path)
		}
	}
	fmt.Fprintln(w, "servers:")
	for _, s := range r.Servers {
		from := s.Source
		if len(s.Hosts) > 0 {
			hs := make([]string, len(s.Hosts))
			for i, h := range s.Hosts {
				hs[i] = string(h)
			}
			from += ": " + strings.Join(hs, ", ")
		}
		fmt.Fprintf(w, "  %s: %s (%s)\n", s.Label, strings.Join(append([]string{s.Command}, s.Args...), " "), from)
		var steps []string
		if s.Timings.Initialize > 0 {
			steps = append(steps, fmt.Sprintf("initialize %.1f ms (%s %s, protocol %s)",
				mcpdoctor.Millis(s.Timings.Initialize), s.ServerName, s.ServerVersion, s.Protocol))
		}
		if s.Timings.List > 0 {
			steps = append(steps, fmt.Sprintf("tools/list %.1f ms (%d tools)", mcpdoctor.Millis(s.Timings.List), len(s.Tools)))
		}
		if s.Timings.Call > 0 {
			steps = append(steps, fmt.Sprintf("%s %.1f ms", s.Call, mcpdoctor.Millis(s.Timings.Call)))
		}
		if len(steps) > 0 {
			fmt.Fprintf(w, "    %s\n", strings.Join(steps, ", "))
		}
		if s.OK {
			fmt.Fprintln(w, "    ok")
			continue
		}
		fmt.Fprintf(w, "    FAILED (%s): %s\n", s.Failure, s.Reason)
		for _, p := range s.Problems {
			fmt.Fprintf(w, "      - %s\n", p)
		}
		if st := strings.TrimSpace(s.Stderr); st != "" {
			fmt.Fprintln(w, "    stderr:")
			for _, line := range strings.Split(st, "\n") {
				fmt.Fprintf(w, "      | %s\n", line)
			}
		}
	}
	if r.OK {
		fmt.Fprintln(w, "all checks passed")
		return
	}
	fmt.Fprintf(w, "%s:\n", tvcmd.Plural(len(r.Problems), "problem"))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  - %s\n", p)
	}
}
