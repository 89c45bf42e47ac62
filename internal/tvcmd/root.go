package tvcmd

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v3"
)

// jsonFlag is the global --json flag; every command accepts it after its
// positional arguments too. A new one per command tree: urfave/cli keeps
// parse state in its flags, and tests run command trees side by side.
func jsonFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "json", Usage: "print exactly one JSON document on stdout", Local: false}
}

// noJSON names the commands whose output is not a JSON document, and why:
// they refuse --json (a usage error, as the JSON error document) rather
// than ignore it.
var noJSON = map[string]string{
	"tv":                  "it prints help",
	"tv help":             "it prints help",
	"tv mcp serve":        "its stdout carries MCP JSON-RPC",
	"tv mcp local":        "its stdout carries MCP JSON-RPC",
	"tv completion":       "it prints a shell script",
	"tv completion bash":  "it prints a shell script",
	"tv completion zsh":   "it prints a shell script",
	"tv completion fish":  "it prints a shell script",
	"tv completion pwsh":  "it prints a shell script",
	"tv hook pre-receive": "git runs it; its refusals are git's hook lines on stderr",
}

// rootCommand assembles the command tree. Only commands that work are listed.
func (a *app) rootCommand() *cli.Command { return a.rootCommandOnly("") }

// rootCommandFor is the command tree for the command line args (without
// the program name). A command line that names a top-level command and
// asks for no help, version or completion gets that command's whole
// subtree and, for the others, stubs that only name them: building every
// command with its flags touched ~55 KB of fresh heap and the code of
// every builder, 1.0-1.8 ms of a tv process's start on the benchmark VM
// (timed from Run to the command's action), for commands it never runs.
// Any other command line gets the whole tree.
func (a *app) rootCommandFor(args []string) *cli.Command {
	first := ""
	for _, arg := range args {
		switch {
		case arg == "--" || arg == "-h" || arg == "-help" || arg == "--help" || arg == "--version" || arg == "help" || completing([]string{arg}):
			return a.rootCommand()
		case first == "" && !strings.HasPrefix(arg, "-"):
			first = arg
		}
	}
	if !slices.ContainsFunc(topLevel, func(c topLevelCommand) bool { return c.name == first }) {
		return a.rootCommand()
	}
	return a.rootCommandOnly(first)
}

// topLevelCommand is a top-level command's name and builder.
type topLevelCommand struct {
	name  string
	build func(*app) *cli.Command
}

// topLevel lists the top-level commands rootCommandOnly builds, in their
// order (completion, which urfave/cli adds, aside).
var topLevel = []topLevelCommand{
	{"login", (*app).loginCommand}, {"whoami", (*app).whoamiCommand}, {"vault", (*app).vaultCommand},
	{"workspace", (*app).workspaceCommand}, {"check", (*app).checkCommand}, {"template", (*app).templateCommand},
	{"access", (*app).accessCommand}, {"mcp", (*app).mcpCommand}, {"version", (*app).versionCommand},
	{"help", (*app).helpCommand}, {"hook", (*app).hookCommand},
}

// rootCommandOnly builds the command tree; when only names a top-level
// command, the other top-level commands are stubs (their name alone).
func (a *app) rootCommandOnly(only string) *cli.Command {
	commands := make([]*cli.Command, 0, len(topLevel)+1)
	for _, c := range topLevel {
		if only == "" || c.name == only {
			commands = append(commands, c.build(a))
		} else {
			commands = append(commands, &cli.Command{Name: c.name})
		}
	}
	root := &cli.Command{
		Name:      "tv",
		Usage:     "embedded-git workspace engine with MCP servers",
		UsageText: "tv COMMAND [flags]",
		Reader:    a.io.Stdin,
		Writer:    a.io.Stdout,
		ErrWriter: a.io.Stderr,
		Flags:     []cli.Flag{jsonFlag(), versionFlag()},
		// Errors are reported by Run, once, with the project's exit codes.
		ExitErrHandler:        func(context.Context, *cli.Command, error) {},
		HideHelpCommand:       true,
		EnableShellCompletion: true,
		ConfigureShellCompletionCommand: func(c *cli.Command) {
			c.Hidden = false
			c.Usage = "print a shell completion script: bash, zsh, fish or pwsh"
			c.UsageText = "tv completion bash|zsh|fish|pwsh"
			c.Description = "Prints a script that makes the shell complete tv's commands and flags. Load it from the shell's start-up file (see the examples)."
			a.prepareCommand(c)
			root := c.Root()
			root.Commands = slices.DeleteFunc(root.Commands, func(o *cli.Command) bool { return o.Name == c.Name && o != c })
			setParents(root)
		},
		ArgValidator: a.checkRequiredArgs,
		Commands:     commands,
	}
	if ws := subcommand(root, "workspace"); ws != nil && len(ws.Commands) > 0 {
		ws.Commands = append(ws.Commands, a.workspaceForgetCommand())
	}
	a.prepareCommand(root)
	// The completion command urfave/cli adds at run time; listed now so
	// help and suggestions know it.
	root.Commands = append(root.Commands, completionPlaceholder())
	setParents(root)
	return root
}

// completionPlaceholder stands for `tv completion` in the tree until
// urfave/cli replaces it with the real one when it runs; its subcommands
// name the shells.
func completionPlaceholder() *cli.Command {
	c := &cli.Command{Name: "completion", Usage: "print a shell completion script: bash, zsh, fish or pwsh", UsageText: "tv completion bash|zsh|fish|pwsh"}
	for _, sh := range []string{"bash", "zsh", "fish", "pwsh"} {
		c.Commands = append(c.Commands, &cli.Command{Name: sh, Usage: "print the " + sh + " completion script"})
	}
	return c
}

// prepareCommand applies tv's conventions to c and every command below it.
func (a *app) prepareCommand(c *cli.Command) {
	forEachCommand(c, func(c *cli.Command) {
		// Parse errors at any depth are usage errors, reported once by Run
		// (as the JSON error document with --json), without a help dump;
		// help is answered by tv itself (resolveArgs).
		c.OnUsageError = onUsageError
		c.HideHelp = true
		c.ShellComplete = completeCommand
		if len(c.Commands) > 0 && c.Action == nil {
			c.Action = groupAction
		}
	})
}

// completing reports whether args are a shell completion request.
func completing(args []string) bool {
	return slices.Contains(args, "--generate-shell-completion")
}

// completeCommand prints the candidates for the word being completed:
// flags when it starts with "-", else subcommands, as "word:description".
func completeCommand(_ context.Context, cmd *cli.Command) {
	w := cmd.Root().Writer
	args := cmd.Args().Slice()
	last := ""
	if len(args) > 0 {
		last = args[len(args)-1]
	}
	if strings.HasPrefix(last, "-") {
		for _, f := range append(cmdFlags(cmd), helpFlag) {
			usage := ""
			if d, ok := f.(cli.DocGenerationFlag); ok {
				usage = d.GetUsage()
			}
			for _, n := range f.Names() {
				if len(n) > 1 && strings.HasPrefix("--"+n, last) {
					fmt.Fprintf(w, "--%s:%s\n", n, usage)
				}
			}
		}
		return
	}
	for _, c := range visibleCommands(cmd) {
		fmt.Fprintf(w, "%s:%s\n", c.Name, c.Usage)
	}
}

// parseError is an error of urfave/cli's parsing, explained by Run.
type parseError struct{ err error }

func (e parseError) Error() string { return e.err.Error() }

func onUsageError(_ context.Context, _ *cli.Command, err error, _ bool) error {
	return parseError{err}
}

// groupAction runs for a command group given no known subcommand: help
// when bare, a usage error naming the unknown word otherwise.
func groupAction(_ context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() == 0 {
		writeHelp(cmd.Root().Writer, cmd)
		return nil
	}
	return actionError{unknownCommandError(cmd, cmd.Args().First())}
}

// forEachCommand calls f for c and every command below it.
func forEachCommand(c *cli.Command, f func(*cli.Command)) {
	f(c)
	for _, sub := range c.Commands {
		forEachCommand(sub, f)
	}
}

// wantsJSON reports whether args ask for --json (before any "--").
func wantsJSON(args []string) bool {
	for _, arg := range args {
		switch arg {
		case "--":
			return false
		case "--json", "-json", "--json=true":
			return true
		}
	}
	return false
}

// requiredArgs are the positional arguments cmd's usage line names before
// its first flag or optional part: "tv workspace checkout ID|NAME --output
// DIR" requires ID|NAME.
func requiredArgs(cmd *cli.Command) []string {
	words := strings.Fields(strings.TrimPrefix(cmd.UsageText, fullName(cmd)))
	if !strings.HasPrefix(cmd.UsageText, fullName(cmd)+" ") {
		return nil
	}
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") || strings.HasSuffix(w, "…") || strings.HasSuffix(w, "...") {
			break
		}
		out = append(out, w)
	}
	return out
}

// checkRequiredArgs names a missing positional argument before urfave/cli
// complains about missing required flags.
func (a *app) checkRequiredArgs(_ context.Context, cmd *cli.Command) error {
	if len(cmd.Commands) > 0 {
		return nil
	}
	req := requiredArgs(cmd)
	if got := cmd.Args().Len(); got < len(req) {
		return actionError{usagef("missing %s: %s takes %s: %s", req[got], fullName(cmd), plural(len(req), "argument"), strings.Join(req, " "))}
	}
	return nil
}

var (
	undefinedFlag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^flag provided but not defined: -+(.+)$`) })
	requiredFlags = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Required flags? "(.+)" not set$`) })
	invalidValue  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid value "(.*)" for flag -([^:]+): (.*)$`) })
)

// explainParseError rewrites urfave/cli's parse errors in tv's words:
// flags with the dashes the user typed, a suggestion for an unknown flag,
// required flags as flags.
func (a *app) explainParseError(err error, args []string) error {
	var pe parseError
	if errors.As(err, &pe) {
		err = pe.err
	}
	msg := err.Error()
	if m := undefinedFlag().FindStringSubmatch(msg); m != nil {
		out := fmt.Sprintf("unknown flag %s for %q", typed(m[1], args), fullName(a.cmd))
		if s := suggestion(m[1], flagNames(a.cmd)); s != "" {
			out += fmt.Sprintf("; did you mean --%s?", s)
		}
		return errors.New(out)
	}
	if m := requiredFlags().FindStringSubmatch(msg); m != nil {
		names := strings.Split(m[1], ", ")
		for i, n := range names {
			names[i] = "--" + n
		}
		return fmt.Errorf("missing required %s %s for %q", map[bool]string{true: "flag", false: "flags"}[len(names) == 1], strings.Join(names, ", "), fullName(a.cmd))
	}
	if m := invalidValue().FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("invalid value %q for %s: %s", m[1], typed(m[2], args), m[3])
	}
	return err
}

// typed is flag name as the user typed it (its dashes), else --name.
func typed(name string, args []string) string {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if strings.HasPrefix(arg, "-") && flagName(arg) == name {
			if i := strings.IndexByte(arg, '='); i >= 0 {
				return arg[:i]
			}
			return arg
		}
	}
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
