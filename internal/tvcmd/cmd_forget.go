package tvcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/thalix/tv/mounts"
	"github.com/urfave/cli/v3"
)

// workspaceForgetCommand is `tv workspace forget DIR`: it removes a
// checkout's mount record, so `tv mcp local` stops serving it.
func (a *app) workspaceForgetCommand() *cli.Command {
	return &cli.Command{
		Name:  "forget",
		Usage: "remove a checkout's mount record (tv mcp local stops serving it); the directory stays",
		Description: "`tv workspace checkout` records each checkout in the mount registry ($XDG_STATE_HOME/tv/mounts.json), " +
			"and `tv mcp local` serves every recorded checkout. forget removes the record of DIR (which may already be gone); " +
			"the files are left alone. A record marked \"mounted\": false by hand is kept but not served.",
		UsageText: "tv workspace forget DIR [--json]",
		Action:    a.action(a.runForget),
	}
}

// forgetDoc is the --json document of workspace forget.
type forgetDoc struct {
	Dir           string `json:"dir"`
	WorkspaceID   string `json:"workspace_id,omitempty"`
	WorkspaceName string `json:"workspace_name,omitempty"`
	Forgotten     bool   `json:"forgotten"`
}

func (a *app) runForget(_ context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 1, "DIR"); err != nil {
		return err
	}
	reg, err := mounts.DefaultPath(a.io.Getenv)
	if err != nil {
		return err
	}
	m, err := mounts.Forget(reg, cmd.Args().First())
	if err != nil {
		return err
	}
	doc := forgetDoc{Dir: m.Path, WorkspaceID: m.WorkspaceID, WorkspaceName: m.WorkspaceName, Forgotten: true}
	return a.output(doc, func(w io.Writer) {
		fmt.Fprintf(w, "Forgot %s (workspace %s); its files are still there\n", m.Path, m.WorkspaceName)
	})
}
