package tvcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/internal/fullexec"
	"github.com/urfave/cli/v3"
)

// Extensions are what the complete binary, tv-full, links beyond tv's own
// commands: the MCP servers (the MCP SDK) and the network transports of
// remote vaults (net/http, ssh). tv itself leaves them out and hands a
// command line that needs them to tv-full; initialising them is most of a
// tv process's start-up (see cmd/tv's package doc for the measurement).
type Extensions struct {
	// MCP builds `tv mcp` and its subcommands (package mcpcmd). Nil: the
	// command line goes to Full.
	MCP func(Host) *cli.Command
	// Transport reaches vaults on git servers. Nil: a command line whose
	// vault is remote goes to Full.
	Transport gitbackend.Transport
	// Full runs tv-full with args (args[0] is the program name) in place
	// of this process, and returns only when it could not: tv-full is not
	// installed, or the platform cannot replace a process (then code is
	// the child's exit code and err nil). Nil in tv-full itself.
	Full func(args []string) (code int, err error)
}

// MCPUsage is `tv mcp`'s one-line usage, the same in tv and tv-full.
const MCPUsage = "MCP servers over stdio, and their registration with MCP hosts"

// mcpCommand is `tv mcp`: the extension's, or in tv a stand-in that hands
// the command line to tv-full (Run does, before parsing it).
func (a *app) mcpCommand() *cli.Command {
	if a.ext.MCP != nil {
		return a.ext.MCP(a)
	}
	return &cli.Command{Name: "mcp", Usage: MCPUsage, SkipFlagParsing: true, Action: func(context.Context, *cli.Command) error { return errNeedsFull }}
}

// isMCPStandIn reports whether c is tv's stand-in for `tv mcp`.
func (a *app) isMCPStandIn(c *cli.Command) bool {
	return a.ext.MCP == nil && c.Name == "mcp" && parentOf(c) != nil && parentOf(parentOf(c)) == nil
}

// noVault names the commands that never open the current vault: they run
// in tv even when it is a URL (a remote vault's other commands go to
// tv-full), so that checking a tree, logging in, or pointing tv back at a
// local vault never needs tv-full.
var noVault = map[string]bool{
	"tv": true, "tv help": true, "tv version": true, "tv check": true, "tv login": true,
	"tv vault use": true, "tv vault init": true, "tv vault doctor": true,
	"tv hook": true, "tv hook install": true, "tv hook pre-receive": true,
	"tv workspace forget": true,
	"tv completion":       true, "tv completion bash": true, "tv completion zsh": true, "tv completion fish": true, "tv completion pwsh": true,
}

// handsToFull reports whether the command line r resolved to needs tv-full:
// it names `tv mcp` (or a subcommand, which tv does not know), or it opens
// the current vault, that vault is on a git server and this binary has no
// transport. The decision is made before anything is parsed, read or
// written. (openVault refuses a remote vault without a transport too.)
func (a *app) handsToFull(r resolved) bool {
	if a.ext.Full == nil {
		return false
	}
	if a.isMCPStandIn(r.cmd) {
		return true
	}
	if a.ext.Transport != nil || noVault[fullName(r.cmd)] {
		return false
	}
	loc, err := a.vaultLocation()
	return err == nil && loc.IsRemote()
}

// errNeedsFull is returned by a command that needs an extension this
// binary lacks, before it has done anything; Run hands the whole command
// line to tv-full.
var errNeedsFull = errors.New("this command needs tv-full")

// runFull hands args to tv-full, or reports why it cannot.
func (a *app) runFull(args []string) int {
	if a.ext.Full == nil {
		return a.fail(fmt.Errorf("%w: this tv binary was built without the MCP servers and remote-vault transports, and knows no tv-full to run", engine.ErrNotFound))
	}
	code, err := a.ext.Full(args)
	if err != nil {
		return a.fail(err)
	}
	return code
}

// needsTransport returns errNeedsFull when loc is on a git server and this
// binary has no transport.
func (a *app) needsTransport(loc gitbackend.Location) error {
	if loc.IsRemote() && a.ext.Transport == nil {
		return errNeedsFull
	}
	return nil
}

// Host is what the `tv mcp` commands (package mcpcmd, linked only into
// tv-full) use of the command runner: its IO, output conventions, login
// and vault.
type Host interface {
	// IO is the process's input, output and environment.
	IO() *IO
	// JSON reports whether --json was given.
	JSON() bool
	// Action wraps a command body the way every tv command's is wrapped
	// (--json recorded, errors marked as the action's).
	Action(body func(ctx context.Context, cmd *cli.Command) error) cli.ActionFunc
	// Output prints v as the JSON document with --json, else calls human.
	Output(v any, human func(w io.Writer)) error
	// Credentials is the logged-in identity, nil when there is none.
	Credentials() (*engine.Credentials, error)
	// OpenVault opens the current vault, local or remote.
	OpenVault() (engine.Vault, error)
	// Executable is the program users run for this one: tv, also when
	// tv handed the command line to tv-full.
	Executable() (string, error)
	// OpenEngine opens an engine acting as the logged-in user on the
	// vault getenv names (TV_VAULT and the rest of tv's environment; nil
	// is the process's own).
	OpenEngine(getenv func(string) string) (*engine.Engine, error)
}

// IO implements Host.
func (a *app) IO() *IO { return a.io }

// JSON implements Host.
func (a *app) JSON() bool { return a.json }

// Action implements Host.
func (a *app) Action(body func(ctx context.Context, cmd *cli.Command) error) cli.ActionFunc {
	return a.action(body)
}

// Output implements Host.
func (a *app) Output(v any, human func(w io.Writer)) error { return a.output(v, human) }

// Credentials implements Host.
func (a *app) Credentials() (*engine.Credentials, error) { return a.credentials() }

// OpenVault implements Host.
func (a *app) OpenVault() (engine.Vault, error) { return a.openVault() }

// Executable implements Host.
func (a *app) Executable() (string, error) { return a.frontExecutable() }

// frontExecutable is the absolute path of the tv users run: the one that
// handed this command line over (IO.Front), else the running executable
// with symlinks resolved, or the tv beside it when that is tv-full.
func (a *app) frontExecutable() (string, error) {
	if a.io.Front != "" {
		return a.io.Front, nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Abs(fullexec.Front(p))
}

// OpenEngine implements Host.
func (a *app) OpenEngine(getenv func(string) string) (*engine.Engine, error) {
	if getenv == nil {
		return a.openEngine()
	}
	sub := *a
	io := *a.io
	io.Getenv = getenv
	sub.io = &io
	return sub.openEngine()
}

// Usagef returns a usage error (exit 2).
func Usagef(format string, args ...any) error { return usagef(format, args...) }

// ExactArgs checks a command's positional argument count; names says what
// they are ("ID|NAME").
func ExactArgs(cmd *cli.Command, n int, names string) error { return exactArgs(cmd, n, names) }

// Plural is "1 file", "2 files".
func Plural(n int, word string) string { return plural(n, word) }

// Classify returns the exit code and code name of err, from the one table
// of the project (exitcode.go).
func Classify(err error) (int, string) { return classify(err) }

// Version is the module version of the running binary ("(devel)" for a
// build from a checkout), as tv version and the MCP servers report it.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
