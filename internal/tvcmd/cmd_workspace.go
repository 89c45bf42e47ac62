package tvcmd

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
	"github.com/urfave/cli/v3"
)

func (a *app) workspaceCommand() *cli.Command {
	name := &cli.StringFlag{Name: "name", Usage: "workspace name (a label; ids are generated)", Required: true}
	return &cli.Command{
		Name:  "workspace",
		Usage: "make, check out, test and commit workspaces",
		Commands: []*cli.Command{
			{
				Name: "init", Usage: "make a workspace from the bundled ICM starter or a template",
				UsageText: "tv workspace init --name NAME [--template ID|NAME] [--json]",
				Flags:     []cli.Flag{name, &cli.StringFlag{Name: "template", Usage: "template id or name (default: the bundled starter)"}},
				Action:    a.action(a.runWorkspaceInit),
			},
			{
				Name: "import", Usage: "make a workspace from a folder or .zip file",
				UsageText: "tv workspace import PATH|ZIP --name NAME [--rev REV] [--json]\n\n" +
					"A folder in a git work tree is imported as git would commit it (.git and\n" +
					"ignored files left out); --rev imports the folder's part of a committed tree.",
				Flags:  []cli.Flag{name, &cli.StringFlag{Name: "rev", Usage: "import the tree of this git commit (of the repository holding PATH) instead of the disk"}},
				Action: a.action(a.runImport(engine.KindWorkspace)),
			},
			{
				Name: "list", Usage: "list workspaces",
				UsageText: "tv workspace list [--json]",
				Action:    a.action(a.runWorkspaceList),
			},
			{
				Name: "checkout", Usage: "write a workspace's head version into a new directory",
				UsageText: "tv workspace checkout ID|NAME --output DIR [--json]",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "directory to create (absent or empty)", Required: true}},
				Action:    a.action(a.runCheckout),
			},
			{
				Name: "walk-test", Usage: "validate a checkout and print the exact change plan; writes nothing",
				UsageText: "tv workspace walk-test [DIR] [--json]   (DIR: default the checkout holding the current folder)",
				Action:    a.action(a.runWalkTest),
			},
			{
				Name: "status", Usage: "walk-test under the name a git user types: changes, findings, and how far behind the head",
				UsageText: "tv workspace status [DIR] [--json]   (DIR: default the checkout holding the current folder)",
				Action:    a.action(a.runWalkTest),
			},
			{
				Name: "update", Usage: "bring a checkout to its workspace's head, keeping local changes; atomic",
				UsageText: "tv workspace update [DIR] [--merge] [--json]",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "merge", Usage: "merge files changed here and upstream as text (conflict markers where both changed the same lines)"}},
				Action:    a.action(a.runUpdate),
			},
			{
				Name: "diff", Usage: "show a checkout's changes as a unified diff against its baseline (or the head)",
				UsageText: "tv workspace diff [DIR] [PATH...] [--head] [--json]",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "head", Usage: "compare with the workspace's current head instead of the baseline"}},
				Action:    a.action(a.runDiff),
			},
			{
				Name: "commit", Usage: "commit a checkout's changes as a new version, atomically",
				UsageText: "tv workspace commit [DIR] --reason TEXT [--json]   (DIR: default the checkout holding the current folder)",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "reason", Aliases: []string{"m"}, Usage: "why (becomes the version's message)", Required: true}},
				Action:    a.action(a.runCommit),
			},
			{
				Name: "log", Usage: "list a workspace's versions, newest first",
				UsageText: "tv workspace log [ID|NAME|DIR] [--limit N] [--json]   (default: the checkout holding the current folder)",
				Flags:     []cli.Flag{&cli.IntFlag{Name: "limit", Value: engine.DefaultLogLimit, Usage: "most versions to show"}},
				Action:    a.action(a.runLog),
			},
		},
	}
}

func (a *app) runWorkspaceInit(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	res, err := e.InitWorkspace(ctx, cmd.String("name"), cmd.String("template"))
	if err != nil {
		return err
	}
	return a.output(createdDoc(res), func(w io.Writer) {
		fmt.Fprintf(w, "Created workspace %s (%s) with %s, version %s\n", res.Name, res.ID, plural(res.Files, "file"), res.Head.Short())
	})
}

func (a *app) runImport(k engine.Kind) func(context.Context, *cli.Command) error {
	return func(ctx context.Context, cmd *cli.Command) error {
		if err := exactArgs(cmd, 1, "PATH|ZIP"); err != nil {
			return err
		}
		e, err := a.openEngine()
		if err != nil {
			return err
		}
		importer := e.ImportWorkspace
		switch {
		case k == engine.KindTemplate:
			importer = e.ImportTemplate
		case cmd.IsSet("rev"):
			importer = func(ctx context.Context, path, name string) (*engine.Created, error) {
				return e.ImportWorkspaceRevision(ctx, path, cmd.String("rev"), name)
			}
		}
		res, err := importer(ctx, cmd.Args().First(), cmd.String("name"))
		if err != nil {
			return a.withFindings(err)
		}
		return a.output(createdDoc(res), func(w io.Writer) {
			fmt.Fprintf(w, "Imported %s %s (%s): %s, %s, version %s\n", k, res.Name, res.ID, plural(res.Files, "file"), humanBytes(res.Bytes), res.Head.Short())
			printFindings(w, res.Findings)
		})
	}
}

// withFindings prints the ICM findings of an invalid tree (in text mode;
// --json carries them in the error document) and returns err.
func (a *app) withFindings(err error) error {
	if inv, ok := asInvalid(err); ok && !a.json {
		printFindings(a.io.Stderr, inv.Findings)
	}
	return err
}

func (a *app) runWorkspaceList(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	list, err := e.Workspaces(ctx)
	if err != nil {
		return err
	}
	return a.output(map[string]any{"workspaces": infoDocs(list)}, func(w io.Writer) {
		a.printInfos(w, list, "No workspaces yet. Make one with `tv workspace init --name NAME`.")
	})
}

func (a *app) printInfos(w io.Writer, list []engine.Info, empty string) {
	if len(list) == 0 {
		fmt.Fprintln(w, empty)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tHEAD\tCHANGED\tBY\tREASON")
	for _, i := range list {
		head, when := "-", "-"
		if !i.Head.IsZero() {
			head, when = i.Head.Short(), a.humanTime(i.UpdatedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", i.ID, i.Name, head, when, i.UpdatedBy, i.Reason)
	}
	tw.Flush()
}

func (a *app) runCheckout(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 1, "ID|NAME"); err != nil {
		return err
	}
	var readAhead []string
	if ws := cmd.Args().First(); engine.IsID(ws) {
		readAhead = append(readAhead, engine.WorkspaceRefPrefix+ws)
	}
	e, err := a.openEngine(readAhead...)
	if err != nil {
		return err
	}
	res, err := e.Checkout(ctx, cmd.Args().First(), cmd.String("output"))
	if err != nil {
		return err
	}
	return a.output(res, func(w io.Writer) {
		fmt.Fprintf(w, "Checked out %s (%s) version %s into %s: %s, %s\n", res.WorkspaceName, res.WorkspaceID, res.Baseline.Short(), res.Dir, plural(res.Files, "file"), humanBytes(res.Bytes))
	})
}

func (a *app) runWalkTest(ctx context.Context, cmd *cli.Command) error {
	dir, err := a.checkoutArg(cmd, "DIR")
	if err != nil {
		return err
	}
	engine.ReadBaseAhead(dir) // read while the vault is opened
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	p, err := e.WalkTest(ctx, dir)
	if err != nil {
		return err
	}
	if !p.Valid {
		// An invalid tree is an error (exit 3): with --json the error
		// document carries the findings and the plan.
		if !a.json {
			printPlan(a.io.Stdout, p)
		}
		doc := newPlanDoc(p)
		return invalidDoc{InvalidTreeError: &engine.InvalidTreeError{Findings: p.Findings}, key: "plan", doc: &doc}
	}
	return a.output(newPlanDoc(p), func(w io.Writer) { printPlan(w, p) })
}

func (a *app) runCommit(ctx context.Context, cmd *cli.Command) error {
	dir, err := a.checkoutArg(cmd, "DIR")
	if err != nil {
		return err
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	res, err := e.Commit(ctx, dir, cmd.String("reason"))
	if err != nil {
		return a.withFindings(err)
	}
	return a.output(newCommitDoc(res), func(w io.Writer) {
		if res.NothingToCommit {
			fmt.Fprintln(w, "nothing to commit")
			return
		}
		fmt.Fprintf(w, "Committed version %s of %s: %d added, %d modified, %d deleted\n", res.Version.Short(), res.WorkspaceName, res.Added, res.Modified, res.Deleted)
		if !res.OnTopOf.IsZero() {
			fmt.Fprintf(w, "(applied on top of %s: the workspace had moved, no file of this commit had)\n", res.OnTopOf.Short())
		}
		if res.Behind {
			fmt.Fprintf(w, "this checkout lacks files others changed upstream: run `tv workspace update %s`\n", cmd.Args().First())
		}
	})
}

func (a *app) runLog(ctx context.Context, cmd *cli.Command) error {
	target, err := a.checkoutArg(cmd, "ID|NAME|DIR")
	if err != nil {
		return err
	}
	limit := int(cmd.Int("limit"))
	if limit < 1 || limit > engine.MaxLogLimit {
		return usagef("--limit must be 1 to %d", engine.MaxLogLimit)
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	res, err := e.Log(ctx, target, limit)
	if err != nil {
		return err
	}
	return a.output(logDoc(res), func(w io.Writer) {
		for _, v := range res.Versions {
			fmt.Fprintf(w, "%s  %s  %s  +%d ~%d -%d  %s\n", v.ID.Short(), a.humanTime(v.Time), v.Author, v.Added, v.Modified, v.Deleted, v.Reason)
		}
		if res.More {
			fmt.Fprintf(w, "… more versions (use --limit)\n")
		}
	})
}

// printFindings prints ICM findings, bounded.
func printFindings(w io.Writer, fs []icm.Finding) {
	for i, f := range fs {
		if i == engine.MaxFindingsShown {
			fmt.Fprintf(w, "  … and %d more findings\n", len(fs)-i)
			return
		}
		loc := f.Path
		if loc == "" {
			loc = "."
		}
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, f.Line)
		}
		fmt.Fprintf(w, "  %-7s %-15s %s: %s\n", f.Severity, f.Rule, loc, f.Message)
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
