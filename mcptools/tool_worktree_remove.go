package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/thalix/tv/mcptools/mcpkit"
)

func worktreeRemoveSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "worktree_remove",
		Title: "Remove a staging worktree",
		Description: "Removes a linked worktree this server created with worktree_create (git worktree remove), leaving its branch and commits. " +
			"Refuses the launch workspace, any worktree this server did not create, and a worktree with uncommitted changes unless force is true.",
		Input: mcpkit.Object(mcpkit.Schema{
			"workspace": mcpkit.Str(`the worktree's workspace ID, worktree:/abs/path (as worktree_create returned it)`),
			"force":     mcpkit.With(mcpkit.Bool("remove even with uncommitted changes, which are lost (default false)"), "default", false),
		}, "workspace"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"workspace": mcpkit.Str("workspace ID of the removed worktree"),
			"root":      mcpkit.Str("its former path"),
			"branch":    mcpkit.Str("its branch, which is kept"),
			"forced":    mcpkit.Bool("removed with force"),
		}, "workspace", "root", "branch"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: false},
	}
}

type worktreeRemoveArgs struct {
	Workspace string `json:"workspace"`
	Force     bool   `json:"force"`
}

func (l *Local) worktreeRemove(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a worktreeRemoveArgs
	if err := mcpkit.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	dir, ok := strings.CutPrefix(a.Workspace, KindWorktree+":")
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a worktree workspace (worktree:/abs/path); the launch workspace and checkouts are never removed", ErrWorktree, a.Workspace)
	}
	branch, ok := l.created.Load(dir)
	if !ok {
		return nil, fmt.Errorf("%w: %s was not created by this server's worktree_create; remove it with git yourself if it should go", ErrWorktree, dir)
	}
	w, err := l.resolve(a.Workspace)
	if err != nil {
		return nil, err
	}
	if !a.Force {
		if st, err := runGit(ctx, w.Root, "status", "--porcelain"); err != nil {
			return nil, fmt.Errorf("%w: git status in %s: %v", ErrWorktree, w.Root, err)
		} else if st != "" {
			return nil, fmt.Errorf("%w: %s has uncommitted changes (git status: %s); commit them, or pass force: true to lose them", ErrWorktree, w.Root, firstLine(st))
		}
	}
	args := []string{"worktree", "remove"}
	if a.Force {
		args = append(args, "--force")
	}
	if _, err := runGit(ctx, l.launch, append(args, "--", w.Root)...); err != nil {
		return nil, fmt.Errorf("%w: git worktree remove %s: %v", ErrWorktree, w.Root, err)
	}
	l.created.Delete(dir)
	return l.success(w, worktreeData{Workspace: w.ID, Root: w.Root, Branch: branch.(string), Forced: a.Force})
}

func firstLine(s string) string {
	line, rest, _ := strings.Cut(s, "\n")
	if rest != "" {
		line += " …"
	}
	return line
}
