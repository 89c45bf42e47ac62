package mcpcmd

import (
	"context"
	"github.com/thalix/tv/internal/tvcmd"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/hugeheap"
	"github.com/thalix/tv/internal/statcache"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/mcptools/vaultmcp"
	"github.com/thalix/tv/mounts"
	"github.com/urfave/cli/v3"
)

// mcpServeCommand is `tv mcp serve`: the vault tools over stdio, unscoped
// (discovery) or scoped to one stage by its CONTEXT.md policy.
func (a *app) mcpServeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the vault's tools over stdio MCP: discovery, or one stage's tools (--workspace with --stage)",
		Description: "Without flags: vault_whoami, vault_template_list, vault_workspace_list and vault_workspace_checkout. " +
			"With --workspace and --stage (both or neither): the tools the stage's CONTEXT.md policy declares that your rank on the stage allows, " +
			"re-checked against the vault before every listing and call (fail closed); each resolution is recorded in " +
			"$XDG_STATE_HOME/tv/" + vaultmcp.EvidenceFileName + ". Acts as the `tv login` user; creates no credential. " +
			"stdout carries JSON-RPC only; diagnostics go to stderr. The server exits when stdin closes.",
		UsageText: "tv mcp serve [--workspace ID|NAME --stage stages/NN-slug] [--stdio]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "workspace", Usage: "workspace id or unambiguous name to scope to (needs --stage)"},
			&cli.StringFlag{Name: "stage", Usage: "direct stage folder to scope to: stages/NN-slug or NN-slug (needs --workspace)"},
			stdioFlag(),
		},
		Action: a.h.Action(a.runMCPServe),
	}
}

func (a *app) runMCPServe(ctx context.Context, cmd *cli.Command) error {
	if err := tvcmd.ExactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	if err := checkStdio(cmd); err != nil {
		return err
	}
	ws, stage := cmd.String("workspace"), cmd.String("stage")
	if (ws == "") != (stage == "") {
		return tvcmd.Usagef("--workspace and --stage are an all-or-nothing pair: give both to serve a stage's tools, or neither for discovery")
	}
	v, err := a.h.OpenVault()
	if err != nil {
		return err
	}
	creds, err := a.h.Credentials()
	if err != nil {
		return err
	}
	mpath, err := mounts.DefaultPath(a.io.Getenv)
	if err != nil {
		return err
	}
	evidence, err := vaultmcp.EvidencePath(a.io.Getenv)
	if err != nil {
		return err
	}
	// No progress output: stderr is the host's log.
	eng := engine.New(v, engine.Options{Actor: creds, MountsPath: mpath})
	srv, err := vaultmcp.New(ctx, vaultmcp.Config{
		Engine:       eng,
		Workspace:    ws,
		Stage:        stage,
		EvidencePath: evidence,
		Version:      tvcmd.Version(),
		Log:          a.io.Stderr,
		Now:          a.io.Now,
	})
	if err != nil {
		return err
	}
	mcpkit.TuneGC(a.io.Getenv)
	statcache.RetainMappings(false) // a server loads caches for as long as it runs
	hugeheap.Advise(false)          // and returns memory it no longer uses
	return srv.Serve(ctx, a.io.Stdin, a.io.Stdout, a.io.Stderr)
}
