package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"
)

func (a *app) vaultCommand() *cli.Command {
	return &cli.Command{
		Name:  "vault",
		Usage: "inspect the vault",
		Commands: []*cli.Command{{
			Name:      "info",
			Usage:     "path, id, number of workspaces and templates, size on disk",
			UsageText: "tv vault info [--json]",
			Action:    a.action(a.runVaultInfo),
		}},
	}
}

// vaultInfo is the document of `tv vault info --json`.
type vaultInfo struct {
	Path       string `json:"vault"`
	ID         string `json:"vault_id"`
	Workspaces int    `json:"workspaces"`
	Templates  int    `json:"templates"`
	DiskBytes  int64  `json:"disk_bytes"`
}

func (a *app) runVaultInfo(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	v, err := a.openVault()
	if err != nil {
		return err
	}
	st, err := v.Stats(ctx)
	if err != nil {
		return err
	}
	out := vaultInfo{Path: v.Path(), ID: v.ID(), Workspaces: st.Workspaces, Templates: st.Templates, DiskBytes: st.DiskBytes}
	return a.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "vault      %s\nid         %s\nworkspaces %d\ntemplates  %d\nsize       %s\n", out.Path, out.ID, out.Workspaces, out.Templates, humanBytes(out.DiskBytes))
	})
}

// humanBytes renders a byte count with a binary unit.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
