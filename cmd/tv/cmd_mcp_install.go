package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/thalix/tv/hostconfig"
	"github.com/urfave/cli/v3"
)

// Server kinds an entry can run, and their default entry names.
const (
	serverServe = "serve" // tv mcp serve: the vault tools
	serverLocal = "local" // tv mcp local: the local workspace tools

	defaultServeName = "tv"
	defaultLocalName = "tv-local"
)

// envExecutable names the environment variable that overrides the
// executable registered with hosts and launched by the doctor. It must be
// an absolute path. Useful when the running binary's resolved path is not
// the one hosts should keep (a package manager's versioned directory), and
// in tests.
const envExecutable = "TV_EXECUTABLE"

// serverFlag, nameFlag, … are new flag values per command: urfave/cli
// keeps parse state in the flag.
func serverFlag() cli.Flag {
	return &cli.StringFlag{Name: "server", Value: serverServe, Usage: "which server the entry runs: serve (vault tools) or local (local workspace tools)"}
}

func nameFlag() cli.Flag {
	return &cli.StringFlag{Name: "name", Usage: "the entry's name in the host config (default " + defaultServeName + ", or " + defaultLocalName + " with --server local)"}
}

func scopeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "workspace", Usage: "scope the serve entry to this workspace (with --stage)"},
		&cli.StringFlag{Name: "stage", Usage: "scope the serve entry to this direct stage folder (with --workspace)"},
	}
}

func targetFlag() cli.Flag {
	return &cli.StringFlag{Name: "target", Value: "all", Usage: "host(s) to edit: claude-code, claude-desktop, cursor, codex, a comma-separated list, or all"}
}

func (a *app) mcpInstallCommand() *cli.Command {
	return &cli.Command{
		Name:  "install",
		Usage: "register tv's stdio MCP server in MCP hosts' config files",
		Description: "Writes one entry per host: the absolute path of this tv executable (symlinks resolved; $TV_EXECUTABLE overrides it) " +
			"and the arguments `mcp serve` (optionally scoped with --workspace and --stage) or `mcp local`; nothing else — no environment, " +
			"no credential. Every other key and server in the file stays byte for byte. An equal entry is left alone (\"unchanged\"); a different " +
			"entry of the same name is replaced only with --force. Hosts and files: claude-code ~/.claude.json, claude-desktop " +
			"claude_desktop_config.json (Linux $XDG_CONFIG_HOME/Claude, macOS ~/Library/Application Support/Claude, Windows %APPDATA%\\Claude), " +
			"cursor ~/.cursor/mcp.json, codex $CODEX_HOME/config.toml (default ~/.codex/config.toml).",
		UsageText: "tv mcp install [--target claude-code|claude-desktop|cursor|codex|all] [--server serve|local] [--name NAME] [--workspace W --stage S] [--force] [--json]",
		Flags: append([]cli.Flag{
			targetFlag(), serverFlag(), nameFlag(),
			&cli.BoolFlag{Name: "force", Usage: "replace a different entry of the same name"},
		}, scopeFlags()...),
		Action: a.action(a.runMCPInstall),
	}
}

func (a *app) mcpUninstallCommand() *cli.Command {
	return &cli.Command{
		Name:  "uninstall",
		Usage: "remove tv's entry from MCP hosts' config files",
		Description: "Removes only the entry of that name, and only when it runs `mcp serve` or `mcp local` (tv's entry) unless --force; " +
			"every other key and server stays. A file tv created and that holds nothing else is deleted.",
		UsageText: "tv mcp uninstall [--target claude-code|claude-desktop|cursor|codex|all] [--server serve|local] [--name NAME] [--force] [--json]",
		Flags: []cli.Flag{
			targetFlag(), serverFlag(), nameFlag(),
			&cli.BoolFlag{Name: "force", Usage: "remove the entry even if it does not run tv's server"},
		},
		Action: a.action(a.runMCPUninstall),
	}
}

func (a *app) mcpConfigCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "print tv's MCP server entry as JSON, for hosts tv mcp install does not edit",
		Description: "Prints {\"mcpServers\": {NAME: {\"command\": …, \"args\": […]}}} with this executable's absolute path, " +
			"ready for a host's --mcp-config or config file. The output is JSON with or without --json.",
		UsageText: "tv mcp config [--server serve|local] [--name NAME] [--workspace W --stage S]",
		Flags:     append([]cli.Flag{serverFlag(), nameFlag()}, scopeFlags()...),
		Action:    a.action(a.runMCPConfig),
	}
}

// entrySpec is the server an entry runs, from --server, --name,
// --workspace and --stage.
type entrySpec struct {
	server string
	name   string
	args   []string
}

func parseEntrySpec(cmd *cli.Command) (entrySpec, error) {
	s := entrySpec{server: cmd.String("server")}
	ws, stage := cmd.String("workspace"), cmd.String("stage")
	switch s.server {
	case serverServe:
		s.name, s.args = defaultServeName, []string{"mcp", serverServe}
		if (ws == "") != (stage == "") {
			return s, usagef("--workspace and --stage are an all-or-nothing pair: give both to scope the entry to a stage, or neither for discovery")
		}
		if ws != "" {
			for flag, v := range map[string]string{"--workspace": ws, "--stage": stage} {
				if strings.HasPrefix(v, "-") || strings.TrimSpace(v) != v {
					return s, usagef("%s %q: the value must not start with '-' or have surrounding spaces", flag, v)
				}
			}
			s.args = append(s.args, "--workspace", ws, "--stage", stage)
		}
	case serverLocal:
		s.name, s.args = defaultLocalName, []string{"mcp", serverLocal}
		if ws != "" || stage != "" {
			return s, usagef("--workspace and --stage scope `tv mcp serve`; they do not apply to --server local")
		}
	default:
		return s, usagef("--server %q: use serve or local", s.server)
	}
	if n := cmd.String("name"); n != "" {
		s.name = n
	}
	return s, nil
}

// parseTargets reads --target: all, one host, or a comma-separated list.
// The hosts come back in hostconfig.Hosts order, each once.
func parseTargets(v string) ([]hostconfig.Host, error) {
	if v == "all" {
		return slices.Clone(hostconfig.Hosts), nil
	}
	want := map[hostconfig.Host]bool{}
	for _, s := range strings.Split(v, ",") {
		h, err := hostconfig.ParseHost(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("--target: %w, or all", err)
		}
		want[h] = true
	}
	var out []hostconfig.Host
	for _, h := range hostconfig.Hosts {
		if want[h] {
			out = append(out, h)
		}
	}
	return out, nil
}

// tvExecutable returns the absolute path hosts should run: $TV_EXECUTABLE
// when set, else the running executable with symlinks resolved.
func (a *app) tvExecutable() (string, error) {
	if p := a.io.Getenv(envExecutable); p != "" {
		if !filepath.IsAbs(p) {
			return "", usagef("$%s %q is not an absolute path", envExecutable, p)
		}
		return filepath.Clean(p), nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the tv executable: %w (set $%s)", err, envExecutable)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Abs(p)
}

// warnTemporary warns on stderr when the executable to register lives in
// the temporary directory (`go run`, an unpacked download): hosts would
// fail once it is cleaned up.
func (a *app) warnTemporary(exe string) {
	if a.io.Getenv(envExecutable) != "" {
		return
	}
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		return
	}
	if rel, err := filepath.Rel(tmp, exe); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		fmt.Fprintf(a.io.Stderr, "tv: warning: %s is in the temporary directory %s; hosts will fail to start it once it is removed (install tv, or set $%s)\n",
			exe, tmp, envExecutable)
	}
}

// hostEnv is hostconfig's view of this process: the platform, the home
// directory and the environment from a.io.
func (a *app) hostEnv() (hostconfig.Env, error) {
	return hostEnvFor(runtime.GOOS, a.io.Getenv)
}

// hostEnvFor builds the Env for goos the way os.UserHomeDir finds the home
// directory there.
func hostEnvFor(goos string, getenv func(string) string) (hostconfig.Env, error) {
	key := "HOME"
	switch goos {
	case "windows":
		key = "USERPROFILE"
	case "plan9":
		key = "home"
	}
	home := getenv(key)
	if home == "" {
		return hostconfig.Env{}, fmt.Errorf("$%s is not set: cannot find the MCP hosts' config files", key)
	}
	return hostconfig.Env{GOOS: goos, Home: home, Getenv: getenv}, nil
}

// hostResult is one host's line of an install or uninstall report.
type hostResult struct {
	Host   hostconfig.Host   `json:"host"`
	Path   string            `json:"path"`
	Change hostconfig.Change `json:"change,omitempty"`
	Error  *errorDoc         `json:"error,omitempty"`
	err    error
}

// errorDoc is an error as {"code": …, "message": …}.
type errorDoc struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func newErrorDoc(err error) *errorDoc {
	_, code := classify(err)
	return &errorDoc{Code: code, Message: err.Error()}
}

// registration is the report of install and uninstall.
type registration struct {
	Server  string       `json:"server,omitempty"`
	Name    string       `json:"name"`
	Command string       `json:"command,omitempty"`
	Args    []string     `json:"args,omitempty"`
	Hosts   []hostResult `json:"hosts"`
}

// report prints r (text: one line per host; failures also on stderr) and
// returns the first host's error, already reported, or nil.
func (a *app) reportRegistration(r registration) error {
	var first error
	for _, h := range r.Hosts {
		if h.err != nil && first == nil {
			first = h.err
		}
	}
	err := a.output(r, func(w io.Writer) {
		for _, h := range r.Hosts {
			ch := string(h.Change)
			if h.err != nil {
				ch = "failed"
			}
			fmt.Fprintf(w, "%-15s %-9s %s\n", h.Host, ch, h.Path)
		}
		for _, h := range r.Hosts {
			if h.err != nil {
				fmt.Fprintf(a.io.Stderr, "tv: %s: %v\n", h.Host, h.err)
			}
		}
	})
	if err != nil {
		return err
	}
	if first != nil {
		return silent{first}
	}
	return nil
}

func (a *app) runMCPInstall(_ context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	hosts, err := parseTargets(cmd.String("target"))
	if err != nil {
		return err
	}
	spec, err := parseEntrySpec(cmd)
	if err != nil {
		return err
	}
	exe, err := a.tvExecutable()
	if err != nil {
		return err
	}
	e := hostconfig.Entry{Name: spec.name, Command: exe, Args: spec.args}
	if _, err := hostconfig.JSONSnippet(e); err != nil { // a bad --name, before any file
		return err
	}
	a.warnTemporary(exe)
	env, err := a.hostEnv()
	if err != nil {
		return err
	}
	r := registration{Server: spec.server, Name: e.Name, Command: e.Command, Args: e.Args}
	for _, h := range hosts {
		path, ch, err := hostconfig.Install(h, env, e, cmd.Bool("force"))
		hr := hostResult{Host: h, Path: path, Change: ch, err: err}
		if err != nil {
			hr.Error = newErrorDoc(err)
		}
		r.Hosts = append(r.Hosts, hr)
	}
	return a.reportRegistration(r)
}

// isTVEntry reports whether args run one of tv's MCP servers.
func isTVEntry(args []string) (server string, ok bool) {
	if len(args) >= 2 && args[0] == "mcp" && (args[1] == serverServe || args[1] == serverLocal) {
		return args[1], true
	}
	return "", false
}

// errNotTVEntry: uninstall found an entry of that name that does not run
// tv's server (exit 4, like hostconfig.ErrEntryExists).
var errNotTVEntry = errors.New("the entry of this name is not tv's")

func (a *app) runMCPUninstall(_ context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	hosts, err := parseTargets(cmd.String("target"))
	if err != nil {
		return err
	}
	spec, err := parseEntrySpec(cmd)
	if err != nil {
		return err
	}
	if _, err := hostconfig.JSONSnippet(hostconfig.Entry{Name: spec.name, Command: "tv"}); err != nil {
		return err
	}
	env, err := a.hostEnv()
	if err != nil {
		return err
	}
	r := registration{Name: spec.name}
	for _, h := range hosts {
		hr := hostResult{Host: h}
		if !cmd.Bool("force") {
			e, ok, path, err := hostconfig.Lookup(h, env, spec.name)
			hr.Path = path
			switch {
			case err != nil && !errors.Is(err, hostconfig.ErrUnexpectedEntry):
				hr.err = err
			case ok:
				if _, tv := isTVEntry(e.Args); !tv || err != nil {
					hr.err = fmt.Errorf("%s: %w: %q runs %s, not `tv mcp serve` or `tv mcp local`; pass --force to remove it anyway",
						path, errNotTVEntry, spec.name, describeCommand(e))
				}
			}
		}
		if hr.err == nil {
			hr.Path, hr.Change, hr.err = hostconfig.Uninstall(h, env, spec.name)
		}
		if hr.err != nil {
			hr.Error = newErrorDoc(hr.err)
		}
		r.Hosts = append(r.Hosts, hr)
	}
	return a.reportRegistration(r)
}

// describeCommand shows an entry's command line for a message.
func describeCommand(e hostconfig.Entry) string {
	if e.Command == "" {
		return "no command"
	}
	q := make([]string, 0, 1+len(e.Args))
	for _, s := range append([]string{e.Command}, e.Args...) {
		if len(s) > hostconfig.MaxShownBytes {
			s = s[:hostconfig.MaxShownBytes] + "…"
		}
		q = append(q, fmt.Sprintf("%q", s))
	}
	return strings.Join(q, " ")
}

func (a *app) runMCPConfig(_ context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	spec, err := parseEntrySpec(cmd)
	if err != nil {
		return err
	}
	exe, err := a.tvExecutable()
	if err != nil {
		return err
	}
	b, err := hostconfig.JSONSnippet(hostconfig.Entry{Name: spec.name, Command: exe, Args: spec.args})
	if err != nil {
		return err
	}
	_, err = a.io.Stdout.Write(b)
	return err
}
