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
	return &cli.Command{
		Name:      "tv",
		Usage:     "embedded-git workspace engine with MCP servers",
		Reader:    a.io.Stdin,
		Writer:    a.io.Stdout,
		ErrWriter: a.io.Stderr,
		Flags:     []cli.Flag{jsonFlag},
		// Errors are reported by Run, once, with the project's exit codes.
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		OnUsageError: func(_ context.Context, _ *cli.Command, err error, _ bool) error {
			return usagef("%v", err)
		},
		HideHelpCommand: true,
		Commands: []*cli.Command{
			a.loginCommand(),
			a.whoamiCommand(),
			a.vaultCommand(),
			a.workspaceCommand(),
			a.templateCommand(),
			a.accessCommand(),
			a.mcpCommand(),
		},
	}
}
