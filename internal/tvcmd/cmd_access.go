package tvcmd

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/thalix/tv/engine"
	"github.com/urfave/cli/v3"
)

func (a *app) accessCommand() *cli.Command {
	return &cli.Command{
		Name:  "access",
		Usage: "grant, revoke and list access ranks (read < write < manage)",
		Description: "Targets: @vault (the whole vault), WORKSPACE (id or name), or WORKSPACE:FOLDER.\n" +
			"Ranks are inherited down the tree. Changing grants needs manage on the target.",
		Commands: []*cli.Command{
			{
				Name: "grant", Usage: "give USER a rank on a target",
				UsageText: "tv access grant USER read|write|manage @vault|WORKSPACE[:FOLDER] [--json]",
				Action:    a.action(a.runGrant),
			},
			{
				Name: "revoke", Usage: "remove USER's grant on exactly a target",
				UsageText: "tv access revoke USER @vault|WORKSPACE[:FOLDER] [--json]",
				Action:    a.action(a.runRevoke),
			},
			{
				Name: "list", Usage: "list the grants on a workspace and the vault (all grants without an argument)",
				UsageText: "tv access list [WORKSPACE] [--json]",
				Action:    a.action(a.runAccessList),
			},
		},
	}
}

func (a *app) runGrant(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 3, "USER RANK TARGET"); err != nil {
		return err
	}
	rank, err := engine.ParseRank(cmd.Args().Get(1))
	if err != nil {
		return err
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	g, err := e.GrantAccess(ctx, cmd.Args().Get(0), rank, cmd.Args().Get(2))
	if err != nil {
		return err
	}
	return a.output(newGrantDoc(*g, accessNames(ctx, e)), func(w io.Writer) {
		fmt.Fprintf(w, "Granted %s %s on %s\n", g.User, g.Rank, g.Target())
	})
}

func (a *app) runRevoke(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 2, "USER TARGET"); err != nil {
		return err
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	user, target := cmd.Args().Get(0), cmd.Args().Get(1)
	if err := e.RevokeAccess(ctx, user, target); err != nil {
		return err
	}
	return a.output(newGrantDoc(revokedGrant(user, target, accessNames(ctx, e)), accessNames(ctx, e)), func(w io.Writer) {
		fmt.Fprintf(w, "Revoked %s on %s\n", user, target)
	})
}

func (a *app) runAccessList(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() > 1 {
		return usagef("tv access list takes at most one argument: WORKSPACE")
	}
	e, err := a.openEngine()
	if err != nil {
		return err
	}
	l, err := e.ListAccess(ctx, cmd.Args().First())
	if err != nil {
		return err
	}
	names := accessNames(ctx, e)
	grants := make([]grantDoc, 0, len(l.Grants))
	for _, g := range l.Grants {
		grants = append(grants, newGrantDoc(g, names))
	}
	doc := map[string]any{"grants": grants}
	setIf(doc, "access_version", jsonHash(l.Version))
	return a.output(doc, func(w io.Writer) {
		if len(l.Grants) == 0 {
			fmt.Fprintln(w, "No grants yet: the first user to write to this vault becomes its manager.")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "USER\tRANK\tTARGET")
		for _, g := range l.Grants {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", g.User, g.Rank, g.Target())
		}
		tw.Flush()
	})
}
