package tvcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/thalix/tv/engine"
	"github.com/urfave/cli/v3"
)

func (a *app) templateCommand() *cli.Command {
	return &cli.Command{
		Name:  "template",
		Usage: "list, import and show templates (immutable workspace factories)",
		Commands: []*cli.Command{
			{
				Name: "list", Usage: "list templates, the bundled starter first",
				UsageText: "tv template list [--json]",
				Action:    a.action(a.runTemplateList),
			},
			{
				Name: "import", Usage: "make a template from a folder or .zip file",
				UsageText: "tv template import PATH|ZIP --name NAME [--json]",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "name", Usage: "template name", Required: true}},
				Action:    a.action(a.runImport(engine.KindTemplate)),
			},
			{
				Name: "show", Usage: "show a template and its files",
				UsageText: "tv template show ID|NAME [--json]",
				Action:    a.action(a.runTemplateShow),
			},
		},
	}
}

func (a *app) runTemplateList(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	list, err := e.Templates(ctx)
	if err != nil {
		return err
	}
	return a.output(map[string]any{"templates": infoDocs(list)}, func(w io.Writer) { a.printInfos(w, list, "") })
}

func (a *app) runTemplateShow(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 1, "ID|NAME"); err != nil {
		return err
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	d, err := e.ShowTemplate(ctx, cmd.Args().First())
	if err != nil {
		return err
	}
	return a.output(templateShowDoc(d), func(w io.Writer) {
		fmt.Fprintf(w, "template %s (%s)\n%s\n%s:\n", d.Name, d.ID, d.Reason, plural(len(d.Files), "file"))
		for _, f := range d.Files {
			fmt.Fprintf(w, "  %s (%d bytes)\n", f.Path, f.Size)
		}
	})
}
