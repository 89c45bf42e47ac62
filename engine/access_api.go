package engine

import (
	"context"
	"fmt"
	"strings"
)

// parseTarget resolves "@vault", "WS" or "WS:folder" (WS an id or name
// the actor can see) into a workspace id and folder.
func (e *Engine) parseTarget(ctx context.Context, a *access, t string) (ws, folder string, err error) {
	if t == VaultTarget {
		return "", "", nil
	}
	name, folder, _ := strings.Cut(t, ":")
	folder = strings.TrimSuffix(folder, "/")
	if strings.Contains(t, ":") {
		if err := CheckPath(folder); err != nil {
			return "", "", err
		}
	}
	info, err := e.resolveVisible(ctx, a, KindWorkspace, name)
	if err != nil {
		return "", "", err
	}
	return info.ID, folder, nil
}

// GrantAccess gives user rank on target ("@vault", "WS" or "WS:folder"),
// replacing any grant the user had on exactly that target. It needs
// manage on the target.
func (e *Engine) GrantAccess(ctx context.Context, user string, rank Rank, target string) (*Grant, error) {
	if err := ValidateUser(user); err != nil {
		return nil, err
	}
	if rank < RankRead || rank > RankManage {
		return nil, fmt.Errorf("%w: rank must be read, write or manage", ErrUsage)
	}
	g := Grant{User: user, Rank: rank}
	err := e.changeAccess(ctx, target, func(a *access, ws, folder string) ([]Grant, string, error) {
		g.Workspace, g.Folder = ws, folder
		return append(a.grants, g), fmt.Sprintf("grant %s %s on %s", user, rank, g.Target()), nil
	})
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// RevokeAccess removes user's grant on exactly target. It needs manage on
// the target, and refuses to remove the vault's last manager.
func (e *Engine) RevokeAccess(ctx context.Context, user, target string) error {
	return e.changeAccess(ctx, target, func(a *access, ws, folder string) ([]Grant, string, error) {
		var kept []Grant
		found, managers := false, 0
		for _, g := range a.grants {
			if g.User == user && g.Workspace == ws && g.Folder == folder {
				found = true
				continue
			}
			if g.Workspace == "" && g.Rank == RankManage {
				managers++
			}
			kept = append(kept, g)
		}
		if !found {
			return nil, "", fmt.Errorf("%w: %s has no grant on %s", ErrNotFound, user, target)
		}
		if managers == 0 {
			return nil, "", fmt.Errorf("%w: that would leave the vault without a manager; grant manage on %s to someone else first", ErrConflict, VaultTarget)
		}
		return kept, fmt.Sprintf("revoke %s on %s", user, Grant{Workspace: ws, Folder: folder}.Target()), nil
	})
}

// changeAccess applies edit to the grants under manage-on-target, in one
// compare-and-swap of AccessRef, retrying when another change raced it.
func (e *Engine) changeAccess(ctx context.Context, tgt string, edit func(a *access, ws, folder string) ([]Grant, string, error)) error {
	if _, err := e.actor(); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		a, err := e.loadAccess(ctx)
		if err != nil {
			return err
		}
		ws, folder, err := e.parseTarget(ctx, a, tgt)
		if err != nil {
			return err
		}
		if err := e.require(a, RankManage, ws, folder); err != nil {
			return err
		}
		if a.open() {
			user, _ := e.actor()
			a.grants = append(a.grants, Grant{User: user.User, Rank: RankManage})
		}
		grants, reason, err := edit(a, ws, folder)
		if err != nil {
			return err
		}
		w, err := e.vault.NewObjectWriter(ctx)
		if err != nil {
			return err
		}
		up, err := e.writeAccess(ctx, w, a, grants, reason)
		if err == nil {
			err = w.Finish()
		}
		if err == nil {
			err = e.vault.UpdateRefs(ctx, *up)
		}
		w.Abort()
		if isStale(err) && attempt < MaxCommitRetries {
			continue
		}
		return err
	}
}

// AccessList is the grants that apply to a workspace (or the whole vault).
type AccessList struct {
	Version Hash    `json:"version"`
	Grants  []Grant `json:"grants"`
}

// ListAccess returns the grants on workspace (id or name) and the vault,
// or every grant when workspace is "". It needs read on the target.
func (e *Engine) ListAccess(ctx context.Context, workspace string) (*AccessList, error) {
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	ws := ""
	if workspace != "" {
		info, err := e.resolveVisible(ctx, a, KindWorkspace, workspace)
		if err != nil {
			return nil, err
		}
		ws = info.ID
	}
	if ws == "" {
		if err := e.require(a, RankRead, "", ""); err != nil {
			return nil, err
		}
	}
	out := &AccessList{Version: a.version, Grants: []Grant{}}
	for _, g := range a.grants {
		if ws == "" || g.Workspace == "" || g.Workspace == ws {
			out.Grants = append(out.Grants, g)
		}
	}
	return out, nil
}

// Effective is a caller's effective rank on a folder of a workspace, and
// the versions it was computed from.
type Effective struct {
	User          string `json:"user"`
	Rank          Rank   `json:"rank"`
	AccessVersion Hash   `json:"access_version"`
}

// EffectiveRank returns the actor's rank on folder of workspace (id), the
// highest grant on it or any ancestor. An open vault (no grants yet) gives
// a logged-in actor manage.
func (e *Engine) EffectiveRank(ctx context.Context, workspaceID, folder string) (*Effective, error) {
	user, err := e.actor()
	if err != nil {
		return nil, err
	}
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	r := a.rank(user.User, workspaceID, folder)
	if a.open() {
		r = RankManage
	}
	return &Effective{User: user.User, Rank: r, AccessVersion: a.version}, nil
}
