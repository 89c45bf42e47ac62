package main

import (
	"context"

	"github.com/urfave/cli/v3"
)

// jsonFlag is the global --json flag; every command accepts it after its
// positional arguments too.
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print exactly one JSON document on stdout", Local: false}

// rootCommand assembles the command tree. Only commands that work are listed.
func (a *app) rootCommand() *cli.Command {
	root := &cli.Command{
		Name:      "tv",
		Usage:     "embedded-git workspace engine with MCP servers",
		Reader:    a.io.Stdin,
		Writer:    a.io.Stdout,
		ErrWriter: a.io.Stderr,
		Flags:     []cli.Flag{jsonFlag},
		// Errors are reported by Run, once, with the project's exit codes.
		ExitErrHandler:  func(context.Context, *cli.Command, error) {},
		HideHelpCommand: true,
		Commands: []*cli.Command{
			a.loginCommand(),
			a.whoamiCommand(),
			a.vaultCommand(),
			a.workspaceCommand(),
			a.checkCommand(),
			a.templateCommand(),
			a.accessCommand(),
			a.mcpCommand(),
			a.hookCommand(),
		},
	}
	forEachCommand(root, func(c *cli.Command) {
		// Parse errors at any depth are usage errors, reported once by Run
		// (as the JSON error document with --json), without a help dump.
		c.OnUsageError = onUsageError
		if len(c.Commands) > 0 && c.Action == nil {
			c.Action = groupAction
		}
	})
	return root
}

func onUsageError(_ context.Context, _ *cli.Command, err error, _ bool) error {
	return usagef("%v", err)
}

// groupAction runs for a command group given no known subcommand: help
// when bare, a usage error naming the unknown word otherwise.
func groupAction(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() == 0 {
		return cli.ShowSubcommandHelp(cmd)
	}
	return actionError{usagef("unknown command %q for %q; see `%s --help`", cmd.Args().First(), cmd.FullName(), cmd.FullName())}
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
