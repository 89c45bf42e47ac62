package tvcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/hook"

	"github.com/urfave/cli/v3"
)

// IO is everything a command sees of its process. Commands never touch
// os.Stdin/Stdout/Stderr or os.Getenv directly, so tests can drive them.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Environ lists the whole environment (for the servers tv mcp doctor
	// starts); nil means only the variables Getenv is asked for.
	Environ func() []string
	// StderrIsTerminal reports whether progress bars may be drawn.
	StderrIsTerminal bool
	// Now is the clock of `tv mcp serve`'s scope cache and evidence; nil
	// means time.Now.
	Now func() time.Time
	// Interrupt, when set (main sets signal.NotifyContext), makes a
	// command's context end on Ctrl-C or SIGTERM. Run uses it only for the
	// commands that write (readOnly): a command that only reads keeps the
	// signals' default, exit, which leaves nothing a SIGKILL would not (its
	// caches are written atomically under reserved names), and starts no
	// handler, whose goroutine blocks a thread of its own: 0.35-0.5 ms of
	// a 5 ms walk-test.
	Interrupt func(context.Context) (context.Context, context.CancelFunc)
	// Front is the tv that handed this command line to tv-full (from
	// fullexec's environment variable), "" when it was not handed over.
	Front string
}

// app carries the IO and global flags through a command run.
type app struct {
	io   *IO
	ext  Extensions
	json bool
	// cmd is the command the command line names (tv's own resolution),
	// whose help a usage error points at.
	cmd *cli.Command
}

// readOnly names the commands that write nothing but their own caches
// (atomically, under names scans skip): Ctrl-C may end them at once, so
// they run without a signal handler (IO.Interrupt). The pre-receive hook
// (answered before the command tree) is one of them.
var readOnly = map[string]bool{
	"tv": true, "tv help": true, "tv version": true, "tv check": true, "tv whoami": true,
	"tv workspace walk-test": true, "tv workspace status": true, "tv workspace diff": true,
	"tv workspace log": true, "tv workspace list": true,
	"tv template list": true, "tv template show": true, "tv access list": true, "tv vault info": true,
	"tv hook pre-receive": true,
	"tv completion":       true, "tv completion bash": true, "tv completion zsh": true, "tv completion fish": true, "tv completion pwsh": true,
}

// actionError marks an error returned by a command's own action, as opposed
// to one from argument parsing (which is a usage error).
type actionError struct{ err error }

func (e actionError) Error() string { return e.err.Error() }
func (e actionError) Unwrap() error { return e.err }

// Run executes tv with args (args[0] is the program name) and returns the
// process exit code.
func Run(ctx context.Context, args []string, stdio *IO, ext Extensions) int {
	if words, ok := hook.ShebangArgs(args[1:]); ok {
		args = append(args[:1:1], words...) // run as a hook script's interpreter
	}
	a := &app{io: stdio, ext: ext, json: wantsJSON(args[1:])}
	if userEnv, ok := preReceiveArgs(args[1:]); ok {
		if err := a.preReceive(ctx, userEnv); err != nil {
			return a.fail(actionError{err})
		}
		return ExitOK
	}
	// `tv mcp …` (what MCP hosts spawn, once per session) goes to tv-full
	// before the command tree is built: tv hands every mcp command line
	// over whatever follows, and building the tree is ~0.4 ms of the
	// server's start on the benchmark VM. When tv-full cannot be run, the
	// usual path below reports why.
	if ext.Full != nil && ext.MCP == nil && len(args) > 1 && args[1] == "mcp" {
		if code, err := ext.Full(args); err == nil {
			return code
		}
	}
	root := a.rootCommandFor(args[1:])
	r := resolveArgs(root, args[1:])
	a.cmd = r.cmd
	if a.handsToFull(r) {
		return a.runFull(args)
	}
	if !completing(args) {
		if done, err := a.preflight(r); err != nil {
			return a.fail(err)
		} else if done {
			return ExitOK
		}
	}
	if a.io.Interrupt != nil && !readOnly[fullName(r.cmd)] {
		var stop context.CancelFunc
		ctx, stop = a.io.Interrupt(ctx)
		defer stop()
	}
	err := root.Run(ctx, args)
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, errNeedsFull) {
		return a.runFull(args)
	}
	var ae actionError
	if !errors.As(err, &ae) && !errors.Is(err, errUsage) {
		err = fmt.Errorf("%w: %v", errUsage, a.explainParseError(err, args[1:]))
	}
	return a.fail(err)
}

// preflight answers what tv decides before urfave/cli parses: an unknown
// command (named, with a suggestion, before any flag complaint), --help
// at any depth, the root's --version, and --json given to a command that
// does not print JSON. done reports that it answered the command line.
func (a *app) preflight(r resolved) (done bool, err error) {
	switch {
	case r.unknown != "":
		return true, unknownCommandError(r.cmd, r.unknown)
	case r.help:
		writeHelp(a.io.Stdout, r.cmd)
		return true, nil
	case r.version && parentOf(r.cmd) == nil:
		return true, a.printVersion()
	}
	if !a.json {
		return false, nil
	}
	if why, ok := noJSON[fullName(r.cmd)]; ok {
		return true, usagef("%s does not print JSON (%s); drop --json", fullName(r.cmd), why)
	}
	if len(r.cmd.Commands) > 0 {
		return true, usagef("%s is a group of commands; --json applies to its commands (see `%s --help`)", fullName(r.cmd), fullName(r.cmd))
	}
	return false, nil
}

// fail reports err on stderr (or as the JSON error document on stdout with
// --json) and returns its exit code.
func (a *app) fail(err error) int {
	code, name := classify(err)
	if errors.As(err, new(Silent)) {
		return code // the command already printed its report
	}
	msg := err.Error()
	if code == ExitUsage {
		msg = strings.TrimPrefix(msg, "usage: ")
	}
	if a.json {
		doc := map[string]any{"code": name, "exit_code": code, "message": msg}
		addErrorDetails(doc, err)
		writeJSON(a.io.Stdout, map[string]any{"error": doc})
	} else {
		fmt.Fprintf(a.io.Stderr, "tv: %s\n", msg)
		if code == ExitUsage {
			fmt.Fprintf(a.io.Stderr, "Run `%s --help` for usage.\n", fullName(a.cmd))
		}
	}
	return code
}

// action wraps a command body: it records --json and marks the body's
// errors as action errors.
func (a *app) action(body func(ctx context.Context, cmd *cli.Command) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		a.json = cmd.Bool("json")
		if err := body(ctx, cmd); err != nil {
			return actionError{err}
		}
		return nil
	}
}

// output prints v as the JSON document with --json, else calls human.
func (a *app) output(v any, human func(w io.Writer)) error {
	if a.json {
		return writeJSON(a.io.Stdout, v)
	}
	// Buffered: a table of a thousand rows is one write, not one per cell.
	bw := bufio.NewWriterSize(a.io.Stdout, 64<<10)
	human(bw)
	return bw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// usagef returns a usage error (exit 2).
func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// exactArgs checks the positional argument count; names says what they
// are ("ID|NAME").
func exactArgs(cmd *cli.Command, n int, names string) error {
	got := cmd.Args().Len()
	switch {
	case got == n:
		return nil
	case n == 0:
		return usagef("%s takes no arguments (got %s: %q)", cmd.FullName(), plural(got, "argument"), cmd.Args().First())
	case got < n:
		return usagef("missing %s: %s takes %s: %s", strings.Join(strings.Fields(names)[got:], " "), cmd.FullName(), plural(n, "argument"), names)
	}
	return usagef("%s takes %s: %s (got %d)", cmd.FullName(), plural(n, "argument"), names, got)
}

// plural is "1 file", "2 files".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// addErrorDetails adds the structured detail of known errors to a JSON
// error document: ICM findings, conflicting paths.
func addErrorDetails(doc map[string]any, err error) {
	if inv, ok := asInvalid(err); ok {
		doc["findings"] = findingDocs(inv.Findings)
	}
	var id invalidDoc
	if errors.As(err, &id) {
		doc[id.key] = id.doc
	}
	var ce *engine.ConflictError
	if errors.As(err, &ce) {
		doc["paths"] = ce.Paths
	}
	var uc *engine.UpdateConflictError
	if errors.As(err, &uc) {
		doc["paths"] = nonNil(uc.Paths)
		doc["unmergeable"] = uc.Unmergeable
	}
}
