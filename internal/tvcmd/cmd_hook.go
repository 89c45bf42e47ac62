package tvcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/thalix/tv/hook"
	"github.com/urfave/cli/v3"
)

// userEnvFlag is --user-env of tv hook pre-receive and install (a new one
// per command, as jsonFlag).
func userEnvFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "user-env", Usage: "an extra environment variable that names the pusher, read before " + fmt.Sprint(hook.IdentityVars)}
}

func (a *app) hookCommand() *cli.Command {
	return &cli.Command{
		Name:  "hook",
		Usage: "server-side enforcement: tv's rules as a git pre-receive hook",
		Commands: []*cli.Command{{
			Name:      "pre-receive",
			Usage:     "judge a push (run by the git server; reads \"old new ref\" lines on stdin)",
			UsageText: "tv hook pre-receive [--user-env VAR]",
			Flags:     []cli.Flag{userEnvFlag()},
			Action:    a.action(a.runHookPreReceive),
		}, {
			Name:      "install",
			Usage:     "install the pre-receive hook into a bare repository and mark it enforced",
			UsageText: "tv hook install PATH.git [--user-env VAR] [--hook-file pre-receive] [--tv PATH] [--marker-only]",
			Flags: []cli.Flag{
				userEnvFlag(),
				&cli.StringFlag{Name: "hook-file", Value: "pre-receive", Usage: "the script's path inside the hooks directory (Gitea/Forgejo: pre-receive.d/tv)"},
				&cli.StringFlag{Name: "tv", Usage: "the tv binary the hook runs (default: this one)"},
				&cli.BoolFlag{Name: "marker-only", Usage: "only create refs/tv/enforced (the server installs the script its own way)"},
			},
			Action: a.action(a.runHookInstall),
		}},
	}
}

func (a *app) runHookPreReceive(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments (git passes the push on stdin)"); err != nil {
		return err
	}
	return a.preReceive(ctx, cmd.String("user-env"))
}

// preReceive judges the push on stdin.
func (a *app) preReceive(ctx context.Context, userEnv string) error {
	err := hook.PreReceive(ctx, a.io.Stdin, hook.Options{Getenv: a.io.Getenv, UserEnv: userEnv, Stderr: a.io.Stderr})
	if errors.Is(err, hook.ErrPushRefused) {
		return Silent{err} // the refusal lines are the report
	}
	return err
}

// preReceiveArgs recognises the command lines `tv hook install` writes
// into a hook script — hook pre-receive, optionally with --user-env VAR
// or --user-env=VAR — and returns VAR. Run answers them without building
// the command tree: a git server starts tv on every push, and the tree
// is about a tenth of the hook's own cost. Any other spelling (help,
// a typo, an extra argument) goes through the command tree as usual.
func preReceiveArgs(args []string) (userEnv string, ok bool) {
	if len(args) < 2 || args[0] != "hook" || args[1] != "pre-receive" {
		return "", false
	}
	switch rest := args[2:]; {
	case len(rest) == 0:
		return "", true
	case len(rest) == 1 && strings.HasPrefix(rest[0], "--user-env="):
		userEnv = strings.TrimPrefix(rest[0], "--user-env=")
	case len(rest) == 2 && rest[0] == "--user-env":
		userEnv = rest[1]
	default:
		return "", false
	}
	if userEnv == "" || strings.HasPrefix(userEnv, "-") {
		return "", false
	}
	return userEnv, true
}

func (a *app) runHookInstall(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 1, "PATH.git"); err != nil {
		return err
	}
	tv := cmd.String("tv")
	if tv == "" {
		exe, err := a.frontExecutable() // tv, not the tv-full it may have handed to
		if err != nil {
			return fmt.Errorf("locate the tv binary: %w (pass --tv PATH)", err)
		}
		tv = exe
	}
	out, err := hook.Install(ctx, cmd.Args().First(), hook.InstallOptions{Tv: tv, UserEnv: cmd.String("user-env"), HookFile: cmd.String("hook-file"), MarkerOnly: cmd.Bool("marker-only")})
	if err != nil {
		return err
	}
	return a.output(out, func(w io.Writer) {
		if out.Hook != "" {
			state := "installed"
			if !out.HookChanged {
				state = "already installed"
			}
			fmt.Fprintf(w, "hook     %s (%s)\n", out.Hook, state)
		}
		marker := "created"
		if !out.MarkerCreated {
			marker = "already there"
		}
		fmt.Fprintf(w, "enforced %s at %s (%s)\n", hook.EnforcedRef, out.Enforced, marker)
	})
}
