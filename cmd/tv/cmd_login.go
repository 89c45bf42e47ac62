package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/urfave/cli/v3"
)

func (a *app) loginCommand() *cli.Command {
	return &cli.Command{
		Name:      "login",
		Usage:     "record who you are in the credential file",
		UsageText: "tv login --user NAME [--email EMAIL] [--token-stdin] [--json]\n   tv login --vault URL --user NAME --token-stdin [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "vault", Usage: "save the token for this vault URL (used for its git server), not as your identity"},
			&cli.StringFlag{Name: "user", Usage: "user name", Required: true},
			&cli.StringFlag{Name: "email", Usage: "email for commit authorship (default NAME@tv.local)"},
			&cli.BoolFlag{Name: "token-stdin", Usage: "read a token from standard input"},
		},
		Action: a.action(a.runLogin),
	}
}

func (a *app) runLogin(_ context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	if cmd.String("vault") != "" {
		return a.runLoginVault(cmd)
	}
	c := &engine.Credentials{User: cmd.String("user"), Email: cmd.String("email")}
	if c.Email == "" {
		c.Email = engine.DefaultEmail(c.User)
	}
	if cmd.Bool("token-stdin") {
		tok, err := readToken(a.io.Stdin)
		if err != nil {
			return err
		}
		c.Token = tok
	}
	path, err := engine.CredentialsPath(a.io.Getenv)
	if err != nil {
		return err
	}
	if err := engine.SaveCredentials(path, c); err != nil {
		return err
	}
	out := map[string]any{"user": c.User, "email": c.Email, "token_saved": c.Token != "", "credentials": path}
	return a.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "Logged in as %s <%s>\n", c.User, c.Email)
	})
}

// readToken reads one token from r: at most MaxTokenBytes, surrounding
// whitespace trimmed, non-empty.
func readToken(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, engine.MaxTokenBytes+1))
	if err != nil {
		return "", fmt.Errorf("read token from stdin: %w", err)
	}
	if len(b) > engine.MaxTokenBytes {
		return "", fmt.Errorf("%w: token on stdin is over %d bytes", engine.ErrRefused, engine.MaxTokenBytes)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, "\n\r\x00") {
		return "", usagef("--token-stdin needs exactly one non-empty line on standard input")
	}
	return tok, nil
}

// runLoginVault saves a token for one vault URL in the vault token file.
func (a *app) runLoginVault(cmd *cli.Command) error {
	loc, err := gitbackend.ParseLocation(cmd.String("vault"))
	if err != nil {
		return err
	}
	if !loc.IsRemote() {
		return usagef("--vault %s is a local path; tokens are for vault URLs (https://…)", loc)
	}
	if !cmd.Bool("token-stdin") {
		return usagef("--vault needs --token-stdin (the token is read from standard input, never from the command line)")
	}
	user := cmd.String("user")
	if err := engine.ValidateUser(user); err != nil {
		return err
	}
	tok, err := readToken(a.io.Stdin)
	if err != nil {
		return err
	}
	path, err := vaultTokensPath(a.io.Getenv)
	if err != nil {
		return err
	}
	t, err := loadVaultTokens(path)
	if err != nil {
		return err
	}
	t.Vaults[loc.URL] = vaultToken{User: user, Token: tok}
	if err := saveVaultTokens(path, t); err != nil {
		return err
	}
	out := map[string]any{"vault": loc.URL, "user": user, "token_saved": true, "file": path}
	return a.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "Saved a token for %s as %s\n", loc.URL, user)
	})
}
