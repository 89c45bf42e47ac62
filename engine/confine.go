package engine

import (
	"context"
	"fmt"
	"strings"
)

// OutsideFolderError is a commit refused because the checkout changes
// paths outside the one folder its caller is confined to (a stage-scoped
// `tv mcp serve`). Nothing was written. It matches ErrPermission.
type OutsideFolderError struct {
	Folder string   // the folder the commit was confined to
	Paths  []string // the changed paths outside it, sorted
}

func (e *OutsideFolderError) Error() string {
	shown := e.Paths[:min(len(e.Paths), MaxPlanEntries)]
	more := ""
	if n := len(e.Paths) - len(shown); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("%s: this commit may only change paths inside %s, but the checkout changes %d outside it: %s%s; undo those changes (or commit them with a tool scoped to their folder) — nothing was committed",
		ErrPermission, e.Folder, len(e.Paths), strings.Join(shown, ", "), more)
}

// Unwrap makes the error match ErrPermission.
func (e *OutsideFolderError) Unwrap() error { return ErrPermission }

// CommitWithin is CommitWorkspace for a caller confined to one folder of
// the workspace (a slash path such as "stages/01-research"): when the
// checkout adds, modifies or deletes any path outside folder, the commit is
// refused with an *OutsideFolderError naming those paths, before anything
// is written to the vault. Changes made upstream by others are not the
// caller's and do not count.
func (e *Engine) CommitWithin(ctx context.Context, workspaceID, folder, dir, reason string) (*CommitResult, error) {
	if err := CheckPath(folder); err != nil {
		return nil, err
	}
	return e.commitCheckout(ctx, workspaceID, folder, dir, reason)
}

// changedOutside lists the plan's added, modified and deleted paths that
// are not folder or below it, sorted; none when folder is "".
func (p *Plan) changedOutside(folder string) []string {
	if folder == "" {
		return nil
	}
	var out []string
	for _, c := range p.changes() {
		if !underAny(c.Path, []string{folder}) {
			out = append(out, c.Path)
		}
	}
	return out
}
