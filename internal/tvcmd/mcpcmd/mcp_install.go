package mcpcmd

import (
	"context"
	"errors"
	"fmt"
	"github.com/thalix/tv/internal/tvcmd"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/hostconfig"
	"github.com/thalix/tv/mcptools/vaultmcp"
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
func serverFlag(def string) cli.Flag {
	usage := "which server the entry runs: serve (vault tools) or local (local workspace tools)"
	if def == "" {
		usage = "narrow to the entries running this server: serve or local (default: every tv entry)"
	}
	return &cli.StringFlag{Name: "server", Value: def, Usage: usage}
}

func nameFlag() cli.Flag {
	return &cli.StringFlag{Name: "name", Usage: "the entry's name in the host config (default " + defaultServeName + ", or " + defaultLocalName + " with --server local)"}
}

// pinFlags are what an entry pins: the scope, the vault and the root.
func pinFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "workspace", Usage: "scope the serve entry to this workspace (with --stage); checked now"},
		&cli.StringFlag{Name: "stage", Usage: "scope the serve entry to this direct stage folder (with --workspace); checked now"},
		&cli.StringFlag{Name: "vault", Usage: "the vault the entry opens (path or URL), written as its TV_VAULT (default: $TV_VAULT when set, else the default vault)"},
		&cli.StringFlag{Name: "root", Usage: "launch directory of a --server local entry (needed for hosts that start servers in /, like claude-desktop)"},
	}
}

func targetFlag(verb string) cli.Flag {
	return &cli.StringFlag{Name: "target", Usage: "host(s) to " + verb + ": claude-code, claude-desktop, cursor, codex, a comma-separated list, or all (default: the hosts present on this machine)"}
}

func (a *app) mcpInstallCommand() *cli.Command {
	return &cli.Command{
		Name:  "install",
		Usage: "register tv's stdio MCP server in MCP hosts' config files",
		Description: "Writes one entry per host: the absolute path of this tv executable (symlinks resolved; $TV_EXECUTABLE overrides it, and must name an executable) " +
			"and the arguments `mcp serve` (optionally scoped with --workspace and --stage, which must name a workspace and stage you can see: exit 6 otherwise) " +
			"or `mcp local` (with --root DIR); with --vault, the environment TV_VAULT=VAULT; never a credential. " +
			"Without --target it edits the hosts present on this machine (a config file or directory, or the host's command on PATH) and says which it skipped; " +
			"a host named with --target is edited even when absent. claude-desktop starts servers in /, so a --server local entry for it gets a root: --root DIR, else the current directory (refused in / and the home directory). " +
			"Every other key and server in the file stays byte for byte. The report says per host whether the file was created, the entry added, updated (--force) or unchanged; " +
			"a different entry of the same name is replaced only with --force. Hosts and files: claude-code ~/.claude.json, claude-desktop " +
			"claude_desktop_config.json (Linux $XDG_CONFIG_HOME/Claude, macOS ~/Library/Application Support/Claude, Windows %APPDATA%\\Claude), " +
			"cursor ~/.cursor/mcp.json, codex $CODEX_HOME/config.toml (default ~/.codex/config.toml).",
		UsageText: "tv mcp install [--target HOSTS] [--server serve|local] [--name NAME] [--workspace W --stage S] [--vault VAULT] [--root DIR] [--force] [--json]",
		Flags: append([]cli.Flag{
			targetFlag("edit"), serverFlag(serverServe), nameFlag(),
			&cli.BoolFlag{Name: "force", Usage: "replace a different entry of the same name"},
		}, pinFlags()...),
		Action: a.h.Action(a.runMCPInstall),
	}
}

func (a *app) mcpUninstallCommand() *cli.Command {
	return &cli.Command{
		Name:  "uninstall",
		Usage: "remove tv's entries from MCP hosts' config files",
		Description: "Removes every entry tv installs (" + defaultServeName + " and " + defaultLocalName + "), or only the --server kind, or only --name; " +
			"an entry of that name is removed only when it runs `mcp serve` or `mcp local` (tv's entry) unless --force. Every other key and server stays. " +
			"A file left holding nothing else is deleted. Without --target it looks at every host and writes only where an entry is.",
		UsageText: "tv mcp uninstall [--target HOSTS] [--server serve|local] [--name NAME] [--force] [--json]",
		Flags: []cli.Flag{
			targetFlag("edit"), serverFlag(""), nameFlag(),
			&cli.BoolFlag{Name: "force", Usage: "remove the entry even if it does not run tv's server"},
		},
		Action: a.h.Action(a.runMCPUninstall),
	}
}

func (a *app) mcpConfigCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "print tv's MCP server entry, for hosts tv mcp install does not edit",
		Description: "Prints {\"mcpServers\": {NAME: {\"command\": …, \"args\": […], \"env\": {\"TV_VAULT\": …}}}} with this executable's absolute path, " +
			"ready for a host's --mcp-config or config file, or with --format toml Codex's [mcp_servers.NAME] table. The output is the host's format with or " +
			"without --json (its keys are the hosts', like mcpServers).",
		UsageText: "tv mcp config [--server serve|local] [--name NAME] [--workspace W --stage S] [--vault VAULT] [--root DIR] [--format json|toml]",
		Flags: append([]cli.Flag{serverFlag(serverServe), nameFlag(),
			&cli.StringFlag{Name: "format", Value: "json", Usage: "json (mcpServers, for most hosts) or toml (Codex's config.toml)"},
		}, pinFlags()...),
		Action: a.h.Action(a.runMCPConfig),
	}
}

// entrySpec is the entry to register, from --server, --name, --workspace,
// --stage, --vault and --root.
type entrySpec struct {
	server string
	name   string
	args   []string
	env    map[string]string
	root   string // --root, absolute ("" for none)
	// vaultFromEnv: no --vault was given and TV_VAULT comes from the
	// caller's environment (a host does not have it: the entry pins it).
	vaultFromEnv bool
	ws           string
	stage        string
}

func parseEntrySpec(cmd *cli.Command, callerVault string) (entrySpec, error) {
	s := entrySpec{server: cmd.String("server")}
	ws, stage := cmd.String("workspace"), cmd.String("stage")
	for flag, v := range map[string]string{"--workspace": ws, "--stage": stage, "--vault": cmd.String("vault"), "--root": cmd.String("root")} {
		if v != "" && (strings.HasPrefix(v, "-") || strings.TrimSpace(v) != v) {
			return s, tvcmd.Usagef("%s %q: the value must not start with '-' or have surrounding spaces", flag, v)
		}
	}
	switch s.server {
	case serverServe:
		s.name, s.args = defaultServeName, []string{"mcp", serverServe}
		if (ws == "") != (stage == "") {
			return s, tvcmd.Usagef("--workspace and --stage are an all-or-nothing pair: give both to scope the entry to a stage, or neither for discovery")
		}
		if ws != "" {
			st, err := vaultmcp.StageFolder(stage)
			if err != nil {
				return s, err
			}
			s.ws, s.stage = ws, st
			s.args = append(s.args, "--workspace", ws, "--stage", st)
		}
		if cmd.String("root") != "" {
			return s, tvcmd.Usagef("--root is the launch directory of `tv mcp local`; it does not apply to --server serve")
		}
	case serverLocal:
		s.name, s.args = defaultLocalName, []string{"mcp", serverLocal}
		if ws != "" || stage != "" {
			return s, tvcmd.Usagef("--workspace and --stage scope `tv mcp serve`; they do not apply to --server local")
		}
		if r := cmd.String("root"); r != "" {
			abs, err := filepath.Abs(r)
			if err != nil {
				return s, err
			}
			abs = filepath.Clean(abs)
			if isFilesystemRoot(abs) {
				return s, tvcmd.Usagef("--root %s is the whole filesystem: name the project directory the agent works in", r)
			}
			if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
				return s, fmt.Errorf("%w: --root %s is not a directory", engine.ErrNotFound, abs)
			}
			s.root = abs
			s.args = append(s.args, "--root", abs)
		}
	default:
		return s, tvcmd.Usagef("--server %q: use serve or local", s.server)
	}
	v := cmd.String("vault")
	if v == "" && callerVault != "" {
		v, s.vaultFromEnv = callerVault, true
	}
	if v != "" {
		if !strings.Contains(v, "://") && !filepath.IsAbs(v) {
			abs, err := filepath.Abs(v)
			if err != nil {
				return s, err
			}
			v = abs
		}
		s.env = map[string]string{envVault: v}
	}
	if n := cmd.String("name"); n != "" {
		s.name = n
	}
	return s, nil
}

// envVault is the environment variable naming the vault a server opens.
const envVault = "TV_VAULT"

// withCurrentRoot is local entry e with the current directory as its
// --root, for host h, which starts servers outside any project: an entry
// without a root would serve the host's launch directory whole. The
// filesystem root and the home directory are refused (name one with
// --root).
func (a *app) withCurrentRoot(e hostconfig.Entry, h hostconfig.Host) (hostconfig.Entry, string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return e, "", err
	}
	wd = filepath.Clean(wd)
	if isFilesystemRoot(wd) || (a.io.Getenv("HOME") != "" && wd == filepath.Clean(a.io.Getenv("HOME"))) {
		return e, "", tvcmd.Usagef("%s starts servers in %s, and the current directory %s is not a project: pass --root DIR, the directory the agent works in", h, hostconfig.LaunchDir(h), wd)
	}
	e.Args = append(slices.Clone(e.Args), "--root", wd)
	return e, wd, nil
}

// isFilesystemRoot reports whether p is "/" (or a Windows volume root).
func isFilesystemRoot(p string) bool {
	return filepath.Dir(p) == p
}

// checkScope resolves the entry's --workspace and --stage in the vault
// the entry opens, so a registration never names what does not exist
// (exit 6) or what the user cannot see.
func (a *app) checkScope(ctx context.Context, s entrySpec) error {
	if s.ws == "" {
		return nil
	}
	var getenv func(string) string
	if v := s.env[envVault]; v != "" {
		getenv = func(k string) string {
			if k == envVault {
				return v
			}
			return a.io.Getenv(k)
		}
	}
	e, err := a.h.OpenEngine(getenv)
	if err != nil {
		return err
	}
	info, err := e.ResolveWorkspace(ctx, s.ws)
	if err != nil {
		return err
	}
	_, contract, _, err := e.StageContract(ctx, info.ID, s.stage)
	if err != nil {
		return err
	}
	if contract.IsZero() {
		return fmt.Errorf("%w: workspace %s has no stage %s (a folder with a CONTEXT.md) at its head version", engine.ErrNotFound, info.Name, s.stage)
	}
	return nil
}

// parseTargets reads --target: all, one host, or a comma-separated list.
// The hosts come back in hostconfig.Hosts order, each once. "" is every
// host, not named.
func parseTargets(v string) (hosts []hostconfig.Host, named bool, err error) {
	if v == "" || v == "all" {
		return slices.Clone(hostconfig.Hosts), v == "all", nil
	}
	want := map[hostconfig.Host]bool{}
	for _, s := range strings.Split(v, ",") {
		h, err := hostconfig.ParseHost(strings.TrimSpace(s))
		if err != nil {
			return nil, false, fmt.Errorf("--target: %w, or all", err)
		}
		want[h] = true
	}
	for _, h := range hostconfig.Hosts {
		if want[h] {
			hosts = append(hosts, h)
		}
	}
	return hosts, true, nil
}

// hostPresence says whether host h is installed here, and how tv knows:
// its config file, its config directory (not the home directory itself),
// or its command on PATH.
func (a *app) hostPresence(h hostconfig.Host, env hostconfig.Env) (present bool, why string) {
	path, err := hostconfig.ConfigPath(h, env)
	if err != nil {
		return false, err.Error()
	}
	if _, err := os.Stat(path); err == nil {
		return true, "config " + path
	}
	dir := filepath.Dir(path)
	if filepath.Clean(dir) != filepath.Clean(env.Home) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return true, "directory " + dir
		}
	}
	if exe := hostconfig.Executable(h); exe != "" {
		if p := lookPath(exe, a.io.Getenv("PATH")); p != "" {
			return true, "command " + p
		}
		return false, fmt.Sprintf("no %s, no %s on PATH", path, exe)
	}
	return false, "no " + path
}

// lookPath finds an executable called name on the PATH list path.
func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, ext := range executableExts() {
			p := filepath.Join(dir, name+ext)
			if isExecutable(p) == nil {
				return p
			}
		}
	}
	return ""
}

func executableExts() []string {
	if runtime.GOOS == "windows" {
		return []string{".exe", ".cmd", ".bat"}
	}
	return []string{""}
}

// isExecutable returns why p is not an executable file, or nil.
func isExecutable(p string) error {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return errors.New("not a regular file")
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return errors.New("not executable")
	}
	return nil
}

// tvExecutable returns the absolute path hosts should run: $TV_EXECUTABLE
// when set, else the tv users run (Host.Executable: not the tv-full it
// handed `tv mcp …` to).
func (a *app) tvExecutable() (string, error) {
	if p := a.io.Getenv(envExecutable); p != "" {
		if !filepath.IsAbs(p) {
			return "", tvcmd.Usagef("$%s %q is not an absolute path", envExecutable, p)
		}
		if err := isExecutable(p); err != nil {
			return "", tvcmd.Usagef("$%s %s: %v; it must name the tv executable hosts should run", envExecutable, p, err)
		}
		return filepath.Clean(p), nil
	}
	p, err := a.h.Executable() // tv, also when tv handed this command line to tv-full
	if err != nil {
		return "", fmt.Errorf("cannot find the tv executable: %w (set $%s)", err, envExecutable)
	}
	return p, nil
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
	Host hostconfig.Host `json:"host"`
	Path string          `json:"path,omitempty"`
	Name string          `json:"name,omitempty"`
	// Change: created (the file was made), added (to an existing file),
	// updated, unchanged, removed, absent, skipped (host not present) or
	// failed.
	Change string `json:"change"`
	// Root is the --root written for a host that starts servers outside
	// any project (the current directory, as no --root was given).
	Root   string    `json:"root,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Error  *errorDoc `json:"error,omitempty"`
	err    error
}

// errorDoc is an error as {"code": …, "message": …}.
type errorDoc struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func newErrorDoc(err error) *errorDoc {
	_, code := tvcmd.Classify(err)
	return &errorDoc{Code: code, Message: err.Error()}
}

// registration is the report of install and uninstall.
type registration struct {
	Server  string            `json:"server,omitempty"`
	Name    string            `json:"name,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Hosts   []hostResult      `json:"hosts"`
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
	err := a.h.Output(r, func(w io.Writer) {
		for _, h := range r.Hosts {
			what := h.Path
			if h.Name != "" && r.Name == "" {
				what = h.Name + " in " + h.Path
			}
			if h.Reason != "" {
				what = h.Reason
			}
			if h.Root != "" {
				what += fmt.Sprintf(" (--root %s: the current directory; %s starts servers in %s)", h.Root, h.Host, hostconfig.LaunchDir(h.Host))
			}
			fmt.Fprintf(w, "%-15s %-9s %s\n", h.Host, h.Change, what)
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
		return tvcmd.Silent{Err: first}
	}
	return nil
}

func (a *app) runMCPInstall(ctx context.Context, cmd *cli.Command) error {
	if err := tvcmd.ExactArgs(cmd, 0, ""); err != nil {
		return err
	}
	hosts, named, err := parseTargets(cmd.String("target"))
	if err != nil {
		return err
	}
	spec, err := parseEntrySpec(cmd, a.io.Getenv(envVault))
	if err != nil {
		return err
	}
	if spec.vaultFromEnv && !a.h.JSON() {
		fmt.Fprintf(a.io.Stderr, "tv: the entry pins TV_VAULT=%s from your environment (a host does not have it); pass --vault to name another vault\n", spec.env[envVault])
	}
	exe, err := a.tvExecutable()
	if err != nil {
		return err
	}
	e := hostconfig.Entry{Name: spec.name, Command: exe, Args: spec.args, Env: spec.env}
	if _, err := hostconfig.JSONSnippet(e); err != nil { // a bad --name, before any file
		return err
	}
	if err := a.checkScope(ctx, spec); err != nil {
		return err
	}
	a.warnTemporary(exe)
	env, err := a.hostEnv()
	if err != nil {
		return err
	}
	r := registration{Server: spec.server, Name: e.Name, Command: e.Command, Args: e.Args, Env: e.Env, Hosts: []hostResult{}}
	for _, h := range hosts {
		hr := hostResult{Host: h}
		if !named {
			if ok, why := a.hostPresence(h, env); !ok {
				hr.Path, _ = hostconfig.ConfigPath(h, env)
				hr.Change, hr.Reason = "skipped", "not present ("+why+"); name it with --target to install anyway"
				r.Hosts = append(r.Hosts, hr)
				continue
			}
		}
		he := e
		if spec.server == serverLocal && spec.root == "" && !hostconfig.StartsInProject(h) {
			he, hr.Root, hr.err = a.withCurrentRoot(e, h)
		}
		hr.Path, _ = hostconfig.ConfigPath(h, env)
		if hr.err == nil {
			_, statErr := os.Stat(hr.Path)
			var ch hostconfig.Change
			hr.Path, ch, hr.err = hostconfig.Install(h, env, he, cmd.Bool("force"))
			hr.Change = string(ch)
			if ch == hostconfig.Created && statErr == nil {
				hr.Change = "added" // to a file that was there
			}
		}
		if hr.err != nil {
			hr.Change, hr.Error = "failed", newErrorDoc(hr.err)
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

func (a *app) runMCPUninstall(_ context.Context, cmd *cli.Command) error {
	if err := tvcmd.ExactArgs(cmd, 0, ""); err != nil {
		return err
	}
	hosts, _, err := parseTargets(cmd.String("target"))
	if err != nil {
		return err
	}
	var names []string
	switch s := cmd.String("server"); s {
	case "":
		names = []string{defaultServeName, defaultLocalName}
	case serverServe:
		names = []string{defaultServeName}
	case serverLocal:
		names = []string{defaultLocalName}
	default:
		return tvcmd.Usagef("--server %q: use serve or local", s)
	}
	if n := cmd.String("name"); n != "" {
		names = []string{n}
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
	r := registration{Server: cmd.String("server"), Name: cmd.String("name"), Hosts: []hostResult{}}
	for _, h := range hosts {
		for _, name := range names {
			r.Hosts = append(r.Hosts, a.uninstallOne(h, env, name, cmd.String("server"), cmd.Bool("force")))
		}
	}
	return a.reportRegistration(r)
}

// uninstallOne removes host h's entry called name when it is tv's (of
// server kind server, when set) or force is given.
func (a *app) uninstallOne(h hostconfig.Host, env hostconfig.Env, name, server string, force bool) hostResult {
	hr := hostResult{Host: h, Name: name}
	if !force {
		e, ok, path, err := hostconfig.Lookup(h, env, name)
		hr.Path = path
		kind, tv := isTVEntry(e.Args)
		switch {
		case err != nil && !errors.Is(err, hostconfig.ErrUnexpectedEntry):
			hr.err = err
		case ok && (!tv || err != nil):
			hr.err = fmt.Errorf("%s: %w: %q runs %s, not `tv mcp serve` or `tv mcp local`; pass --force to remove it anyway",
				path, tvcmd.ErrNotTVEntry, name, describeCommand(e))
		case ok && server != "" && kind != server:
			hr.Change, hr.Reason = "kept", fmt.Sprintf("%q runs tv mcp %s, not %s", name, kind, server)
			return hr
		}
	}
	if hr.err == nil {
		var ch hostconfig.Change
		hr.Path, ch, hr.err = hostconfig.Uninstall(h, env, name)
		hr.Change = string(ch)
	}
	if hr.err != nil {
		hr.Change, hr.Error = "failed", newErrorDoc(hr.err)
	}
	return hr
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

func (a *app) runMCPConfig(ctx context.Context, cmd *cli.Command) error {
	if err := tvcmd.ExactArgs(cmd, 0, ""); err != nil {
		return err
	}
	spec, err := parseEntrySpec(cmd, a.io.Getenv(envVault))
	if err != nil {
		return err
	}
	if spec.vaultFromEnv && !a.h.JSON() {
		fmt.Fprintf(a.io.Stderr, "tv: the entry pins TV_VAULT=%s from your environment (a host does not have it); pass --vault to name another vault\n", spec.env[envVault])
	}
	exe, err := a.tvExecutable()
	if err != nil {
		return err
	}
	e := hostconfig.Entry{Name: spec.name, Command: exe, Args: spec.args, Env: spec.env}
	var b []byte
	switch f := cmd.String("format"); f {
	case "json":
		b, err = hostconfig.JSONSnippet(e)
	case "toml":
		if a.h.JSON() {
			return tvcmd.Usagef("--format toml and --json: choose one")
		}
		b, err = hostconfig.TOMLSnippet(e)
	default:
		return tvcmd.Usagef("--format %q: use json or toml", f)
	}
	if err != nil {
		return err
	}
	if err := a.checkScope(ctx, spec); err != nil {
		return err
	}
	_, err = a.io.Stdout.Write(b)
	return err
}
