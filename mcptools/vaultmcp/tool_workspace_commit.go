package vaultmcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/mcptools/mcpkit"
)

func commitSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "vault_workspace_commit",
		Title: "Commit a checkout",
		Description: "Records the changes of a checkout of the scoped workspace (checkout_dir, absolute) as one new immutable version, as `tv workspace commit` does: reason is required; " +
			"it re-checks live write access on every changed path and that every baseline version is still current, validates the ICM tree, then makes one compare-and-swap of the workspace. " +
			"Only paths inside the scoped stage folder may change: a checkout that changes any other path is refused, naming them. " +
			"Any refusal (permission, outside the stage, conflict, invalid tree) leaves the vault unchanged. A checkout of another workspace or vault is refused. " +
			fmt.Sprintf("reason is at most %d bytes.", engine.MaxReasonBytes),
		Input: mcpkit.Object(mcpkit.Schema{
			"checkout_dir": mcpkit.Str("absolute path of a checkout of the scoped workspace"),
			"reason":       mcpkit.Str("why: the new version's message, e.g. \"research: what limits battery life in cold weather\""),
		}, "checkout_dir", "reason"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"workspace_id":      mcpkit.Str("workspace id"),
			"workspace_name":    mcpkit.Str("workspace name"),
			"version":           mcpkit.Str("the new version (commit id); empty when nothing was committed"),
			"parent":            mcpkit.Str("the version it follows"),
			"added":             mcpkit.Int("files added"),
			"modified":          mcpkit.Int("files modified"),
			"deleted":           mcpkit.Int("files deleted"),
			"nothing_to_commit": mcpkit.Bool("the checkout matched its baseline (or its changes were already there)"),
			"on_top_of":         mcpkit.Str("set when the head had moved and the commit was applied on top of it"),
		}, "workspace_id", "workspace_name", "version", "parent", "added", "modified", "deleted", "nothing_to_commit"),
		Annotations: mcpkit.Annotations{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: false},
	}
}

type commitArgs struct {
	CheckoutDir string `json:"checkout_dir"`
	Reason      string `json:"reason"`
}

func (s *Server) commit(ctx context.Context, raw json.RawMessage) (*Repository, any, error) {
	var a commitArgs
	if err := decode(raw, &a); err != nil {
		return nil, nil, err
	}
	dir, err := s.scopedCheckout(a.CheckoutDir)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.eng.CommitWithin(ctx, s.ws.ID, s.stage, dir, a.Reason)
	if err != nil {
		return nil, nil, err
	}
	return s.ws, res, nil
}
