package tvcmd

import (
	"fmt"
	"os"

	"github.com/thalix/tv/engine"
	"github.com/urfave/cli/v3"
)

// checkoutArg returns the command's one positional argument (named
// names), or, when there is none, the checkout holding the current folder.
func (a *app) checkoutArg(cmd *cli.Command, names string) (string, error) {
	if cmd.Args().Len() > 1 {
		return "", usagef("%s takes at most 1 argument: %s (got %d)", cmd.FullName(), names, cmd.Args().Len())
	}
	if cmd.Args().Len() == 1 {
		return cmd.Args().First(), nil
	}
	return a.implicitCheckout(true)
}

// implicitCheckout finds the checkout a command given no DIR works on:
// the nearest of the current folder and its parents holding a manifest,
// as git finds its work tree. It says on stderr which one it used. With
// required, no checkout is an error (exit 6); else the current folder
// is used.
func (a *app) implicitCheckout(required bool) (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	dir, err := engine.FindCheckout(cwd)
	if err != nil {
		if required {
			return "", err
		}
		return ".", nil
	}
	if !a.json {
		fmt.Fprintf(a.io.Stderr, "tv: using checkout %s\n", dir)
	}
	return dir, nil
}
