package mcpcmd

import (
	"context"
	"fmt"
	"github.com/thalix/tv/internal/tvcmd"
	"os"

	"github.com/thalix/tv/internal/hugeheap"
	"github.com/thalix/tv/internal/statcache"
	"github.com/thalix/tv/mcptools"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/urfave/cli/v3"
)

// mcpLocalCommand is `tv mcp local`: the local workspace tools over stdio.
func (a *app) mcpLocalCommand() *cli.Command {
	return &cli.Command{
		Name:  "local",
		Usage: "serve local workspace tools (files, grep, edit, bash) over stdio MCP",
		Description: "Serves the launch directory (or --root) as workspace \"launch\", the other git worktrees of its repository " +
			"and the mounted tv checkouts (TV_WORKSPACE_PATHS replaces the mount registry when set), resolved at every call. " +
			"stdout carries JSON-RPC only; diagnostics go to stderr. The server exits when stdin closes.",
		UsageText: "tv mcp local [--root DIR] [--require-branch GLOB] [--stdio]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "root", Usage: "launch workspace directory (default: the working directory, which may not be / or your home directory)"},
			&cli.StringFlag{Name: "require-branch", Usage: "write_file, edit_tool and execute_bash need the workspace's branch to match this glob"},
			stdioFlag(),
		},
		Action: a.h.Action(a.runMCPLocal),
	}
}

func (a *app) runMCPLocal(ctx context.Context, cmd *cli.Command) error {
	if err := tvcmd.ExactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	if err := checkStdio(cmd); err != nil {
		return err
	}
	root := cmd.String("root")
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
		root = wd
		if err := mcptools.CheckImplicitRoot(root, a.io.Getenv("HOME")); err != nil {
			return tvcmd.Usagef("%v", err)
		}
	}
	srv, err := mcptools.New(mcptools.Config{
		LaunchDir:     root,
		RequireBranch: cmd.String("require-branch"),
		Getenv:        a.io.Getenv,
		Version:       tvcmd.Version(),
	})
	if err != nil {
		return tvcmd.Usagef("%v", err)
	}
	mcpkit.TuneGC(a.io.Getenv)
	statcache.RetainMappings(false) // a server loads caches for as long as it runs
	hugeheap.Advise(false)          // and returns memory it no longer uses
	mcpkit.TuneProcs(a.io.Getenv)
	return srv.Serve(ctx, a.io.Stdin, a.io.Stdout, a.io.Stderr)
}

// stdioFlag is --stdio, which hosts commonly pass: stdio is the only
// transport, so it changes nothing.
func stdioFlag() cli.Flag {
	return &cli.BoolFlag{Name: "stdio", Usage: "serve over stdio (the only transport; accepted because hosts pass it)"}
}

// checkStdio refuses --stdio=false: stdio is the only transport.
func checkStdio(cmd *cli.Command) error {
	if cmd.IsSet("stdio") && !cmd.Bool("stdio") {
		return tvcmd.Usagef("--stdio=false: stdio is the only transport tv's MCP servers have")
	}
	return nil
}
