package tvcmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/gitwork"
	"github.com/urfave/cli/v3"
)

func (a *app) loginCommand() *cli.Command {
	return &cli.Command{
		Name:      "login",
		Usage:     "record who you are in the credential file",
		UsageText: "tv login [--user NAME] [--email EMAIL] [--token-stdin] [--json]   (defaults: git config user.name, user.email)\n   tv login --vault URL --user NAME --token-stdin [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "vault", Usage: "save the token for this vault URL (used for its git server), not as your identity"},
			&cli.StringFlag{Name: "user", Usage: "user name (default: git config user.name)"},
			&cli.StringFlag{Name: "email", Usage: "email for commit authorship (default: git config user.email, else NAME@tv.local)"},
			&cli.BoolFlag{Name: "token-stdin", Usage: "read a token from standard input"},
		},
		Action: a.action(a.runLogin),
	}
}

func (a *app) runLogin(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	if cmd.String("vault") != "" {
		return a.runLoginVault(cmd)
	}
	c := &engine.Credentials{User: cmd.String("user"), Email: cmd.String("email")}
	var fromGit []string
	if c.User == "" {
		gitName := gitwork.Config(ctx, ".", "user.name")
		if gitName == "" {
			return usagef("give --user NAME (git config user.name is not set either)")
		}
		if c.User = userName(gitName); engine.ValidateUser(c.User) != nil {
			return usagef("git config user.name %q makes no tv user name; give --user NAME", gitName)
		}
		fromGit = append(fromGit, "user.name")
		if c.User != gitName {
			fromGit[0] = fmt.Sprintf("user.name %q", gitName)
		}
	}
	if c.Email == "" && !cmd.IsSet("user") {
		if c.Email = gitwork.Config(ctx, ".", "user.email"); c.Email != "" {
			fromGit = append(fromGit, "user.email")
		}
	}
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
	out := map[string]any{"user": c.User, "email": c.Email, "token_saved": c.Token != "", "credentials": path, "from_git_config": nonNil(fromGit)}
	return a.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "Logged in as %s <%s>", c.User, c.Email)
		if len(fromGit) > 0 {
			fmt.Fprintf(w, " (from git config %s)", strings.Join(fromGit, " and "))
		}
		fmt.Fprintln(w)
	})
}

// userName makes a tv user name of a git user.name: every run of
// characters a tv name does not allow ("Alice Liddell") becomes one '.'
// ("Alice.Liddell"), and it starts with a letter or digit.
func userName(gitName string) string {
	var b strings.Builder
	dot := false
	for _, r := range gitName {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-@", r) {
			if dot && b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteRune(r)
			dot = false
			continue
		}
		dot = true
	}
	name := strings.TrimLeft(b.String(), "_-@")
	if len(name) > engine.MaxUserBytes {
		name = strings.TrimRight(name[:engine.MaxUserBytes], ".")
	}
	return name
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
	if user == "" {
		return usagef("--vault needs --user NAME (the user name the git server knows you by)")
	}
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
