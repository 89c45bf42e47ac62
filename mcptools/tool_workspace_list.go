package mcptools

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/thalix/tv/mcptools/mcpkit"
)

func workspaceListSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "workspace_list",
		Title: "List workspaces",
		Description: "Lists the workspaces this server can work in, resolved now: the launch directory (launch), the other git worktrees of its repository (worktree:/abs/path) and the mounted tv checkouts (checkout:/abs/path; TV_WORKSPACE_PATHS replaces the mount registry when set). " +
			"Each has its root, kind, git branch and HEAD, dirty flag and whether root guidance (AGENTS.md, else CLAUDE.md) exists. Takes no arguments.",
		Input: mcpkit.Object(mcpkit.Schema{}),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"workspaces":      mcpkit.Array(workspaceEntrySchema(), "every current workspace, launch first"),
			"missing":         mcpkit.Array(mcpkit.OpenObject(mcpkit.Schema{"path": mcpkit.Str("entry"), "error": mcpkit.Str("why it is not a workspace")}, "path", "error"), "TV_WORKSPACE_PATHS entries that are not directories"),
			"problems":        mcpkit.Array(mcpkit.Str(""), "non-fatal problems reading the mount registry"),
			"checkout_source": mcpkit.Str(`where checkouts came from: "registry" or "TV_WORKSPACE_PATHS"`),
		}, "workspaces", "missing", "problems", "checkout_source"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type workspaceListArgs struct{}

type workspaceListData struct {
	Workspaces     []WorkspaceEntry `json:"workspaces"`
	Missing        []missingEntry   `json:"missing"`
	Problems       []string         `json:"problems"`
	CheckoutSource string           `json:"checkout_source"`
}

func (l *Local) workspaceList(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	if err := mcpkit.DecodeArgs(raw, &workspaceListArgs{}); err != nil {
		return nil, err
	}
	c := l.catalog()
	d := workspaceListData{Workspaces: c.entries(ctx), Missing: c.missing, Problems: c.problems, CheckoutSource: c.source}
	if d.Missing == nil {
		d.Missing = []missingEntry{}
	}
	if d.Problems == nil {
		d.Problems = []string{}
	}
	return l.success(c.list[0], d)
}
