package mcptools

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func workspaceListSpec() Spec {
	return Spec{
		Name:  "workspace_list",
		Title: "List workspaces",
		Description: "Lists the workspaces this server can work in, resolved now: the launch directory (launch), the other git worktrees of its repository (worktree:/abs/path) and the mounted tv checkouts (checkout:/abs/path; TV_WORKSPACE_PATHS replaces the mount registry when set). " +
			"Each has its root, kind, git branch and HEAD, dirty flag and whether root guidance (AGENTS.md, else CLAUDE.md) exists. Takes no arguments.",
		Input: Object(Schema{}),
		Data: OpenObject(Schema{
			"workspaces":      Array(workspaceEntrySchema(), "every current workspace, launch first"),
			"missing":         Array(OpenObject(Schema{"path": Str("entry"), "error": Str("why it is not a workspace")}, "path", "error"), "TV_WORKSPACE_PATHS entries that are not directories"),
			"problems":        Array(Str(""), "non-fatal problems reading the mount registry"),
			"checkout_source": Str(`where checkouts came from: "registry" or "TV_WORKSPACE_PATHS"`),
		}, "workspaces", "missing", "problems", "checkout_source"),
		Workspace:   workspaceRefSchema(),
		Annotations: Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
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
	if err := DecodeArgs(raw, &workspaceListArgs{}); err != nil {
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
