package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/thalix/tv/engine"
	"github.com/urfave/cli/v3"
)

func (a *app) loginCommand() *cli.Command {
	return &cli.Command{
		Name:      "login",
		Usage:     "record who you are in the credential file",
		UsageText: "tv login --user NAME [--email EMAIL] [--token-stdin] [--json]",
		Flags: []cli.Flag{
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
