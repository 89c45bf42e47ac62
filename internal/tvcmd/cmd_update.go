package tvcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/thalix/tv/engine"
	"github.com/urfave/cli/v3"
)

// checkoutArg is the checkout directory argument: the first positional
// argument, "." when there is none.
// checkoutDir is the checkout a command works on: its first argument, or
// the checkout holding the current folder (found upward, and named on
// stderr).
func (a *app) checkoutDir(cmd *cli.Command) (string, error) {
	if cmd.Args().Len() == 0 {
		return a.implicitCheckout(true)
	}
	return cmd.Args().First(), nil
}

func (a *app) runUpdate(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() > 1 {
		return usagef("%s takes at most 1 argument: [DIR] (got %d)", cmd.FullName(), cmd.Args().Len())
	}
	if cmd.Args().Len() == 1 {
		engine.ReadBaseAhead(cmd.Args().First()) // read while the vault is opened
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	dir, err := a.checkoutDir(cmd)
	if err != nil {
		return err
	}
	res, err := e.Update(ctx, dir, engine.UpdateOptions{Merge: cmd.Bool("merge")})
	if err != nil {
		return err
	}
	return a.output(res, func(w io.Writer) { printUpdate(w, dir, res) })
}

func printUpdate(w io.Writer, dir string, res *engine.UpdateResult) {
	if res.UpToDate {
		fmt.Fprintf(w, "%s is up to date with %s (%s)\n", dir, res.WorkspaceName, res.To.Short())
		return
	}
	fmt.Fprintf(w, "Updated %s from %s to %s: %d file(s) from upstream, %d merged, %d with conflicts; %d local change(s) kept\n",
		dir, res.From.Short(), res.To.Short(), len(res.Updated), len(res.Merged), len(res.Conflicts), res.Kept)
	list := func(mark string, paths []string) {
		for i, p := range paths {
			if i == engine.MaxPlanEntries {
				fmt.Fprintf(w, "  … and %d more\n", len(paths)-i)
				return
			}
			fmt.Fprintf(w, "  %s %s\n", mark, p)
		}
	}
	list("U", res.Updated)
	list("M", res.Merged)
	list("C", res.Conflicts)
	if len(res.Conflicts) > 0 {
		fmt.Fprintln(w, "resolve the conflict markers in the files marked C; walk-test and commit refuse them until then")
	}
}

func (a *app) runDiff(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() > 0 {
		engine.ReadBaseAhead(cmd.Args().First()) // read while the vault is opened
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	args := cmd.Args().Slice()
	dir, err := a.checkoutDir(cmd)
	if err != nil {
		return err
	}
	var paths []string
	if len(args) > 1 {
		paths = args[1:]
	}
	res, err := e.Diff(ctx, dir, engine.DiffOptions{Head: cmd.Bool("head"), Paths: paths})
	if err != nil {
		return err
	}
	if a.json {
		return writeJSON(a.io.Stdout, res)
	}
	if err := res.WriteUnified(a.io.Stdout); err != nil {
		return err
	}
	if res.Truncated {
		fmt.Fprintf(a.io.Stderr, "tv: the diff reached its %d-byte limit (MaxDiffBytes): later files are listed without hunks; name paths to see them\n", engine.MaxDiffBytes)
	}
	return nil
}
