package tvcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/thalix/tv/engine"
	"github.com/urfave/cli/v3"
)

func (a *app) whoamiCommand() *cli.Command {
	return &cli.Command{
		Name:      "whoami",
		Usage:     "print who you are logged in as, and the vault",
		UsageText: "tv whoami [--json]",
		Action:    a.action(a.runWhoami),
	}
}

// whoami is the identity document of `tv whoami --json`.
type whoami struct {
	User    string `json:"user"`
	Email   string `json:"email"`
	Vault   string `json:"vault"`
	VaultID string `json:"vault_id"`
}

func (a *app) runWhoami(_ context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	c, err := a.credentials()
	if err != nil {
		return err
	}
	if c == nil {
		return engine.ErrNotLoggedIn
	}
	v, err := a.openVault()
	if err != nil {
		return err
	}
	out := whoami{User: c.User, Email: c.Email, Vault: v.Path(), VaultID: v.ID()}
	return a.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "%s <%s>\nvault %s (%s)\n", out.User, out.Email, out.Vault, out.VaultID)
	})
}
