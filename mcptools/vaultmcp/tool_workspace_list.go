package vaultmcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/mcptools/mcpkit"
)

func workspaceListSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "vault_workspace_list",
		Title: "List workspaces",
		Description: "Lists the workspaces you can read (all of them, or some folders: partial), by name, with each one's head version, last change and your rank on its root. " +
			fmt.Sprintf("At most %d entries (MaxListEntries), fewer when the %d-byte result cap (MaxStructuredBytes) binds; total and truncated tell. Takes no arguments.", MaxListEntries, MaxStructuredBytes),
		Input: mcpkit.Object(mcpkit.Schema{}),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"workspaces": mcpkit.Array(mcpkit.OpenObject(mcpkit.Schema{
				"id":         mcpkit.Str("workspace id (ws_…)"),
				"name":       mcpkit.Str("workspace name (a label; ids are stable)"),
				"head":       mcpkit.Str("head version (commit id)"),
				"updated_at": mcpkit.Int("when the head version was made, Unix seconds"),
				"updated_by": mcpkit.Str("who made it"),
				"reason":     mcpkit.Str("its reason"),
				"template":   mcpkit.Str("the template it was made from, if any"),
				"rank":       mcpkit.With(mcpkit.Str("your rank on the workspace root"), "enum", []string{"none", "read", "write", "manage"}),
				"partial":    mcpkit.Bool("you can read only some folders (a checkout holds just those)"),
			}, "id", "name", "head", "updated_at", "updated_by", "reason", "rank", "partial"), "workspaces by name"),
			"total":     mcpkit.Int("workspaces you can read"),
			"truncated": mcpkit.Bool("workspaces holds fewer than total"),
		}, "workspaces", "total", "truncated"),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type workspaceEntry struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Head      string `json:"head"`
	UpdatedAt int64  `json:"updated_at"`
	UpdatedBy string `json:"updated_by"`
	Reason    string `json:"reason"`
	Template  string `json:"template,omitempty"`
	Rank      string `json:"rank"`
	Partial   bool   `json:"partial"`
}

type workspaceListData struct {
	Workspaces []workspaceEntry `json:"workspaces"`
	Total      int              `json:"total"`
	Truncated  bool             `json:"truncated"`
}

func (s *Server) workspaceList(ctx context.Context, raw json.RawMessage) (*Repository, any, error) {
	if err := decode(raw, &struct{}{}); err != nil {
		return nil, nil, err
	}
	list, err := s.eng.Workspaces(ctx)
	if err != nil {
		return nil, nil, err
	}
	all := make([]workspaceEntry, len(list))
	for i, w := range list {
		all[i] = workspaceEntry{ID: w.ID, Name: w.Name, Head: w.Head.String(), UpdatedAt: w.UpdatedAt.Unix(), UpdatedBy: w.UpdatedBy, Reason: w.Reason, Template: w.Template, Rank: engine.RankNone.String()}
		if i >= MaxListEntries {
			continue
		}
		if eff, err := s.eng.EffectiveRank(ctx, w.ID, ""); err == nil {
			all[i].Rank = eff.Rank.String()
			all[i].Partial = eff.Rank < engine.RankRead
		}
	}
	build := func(n int) any {
		return workspaceListData{Workspaces: all[:n], Total: len(all), Truncated: n < len(all)}
	}
	return nil, build(fitCount(min(len(all), MaxListEntries), nil, build)), nil
}
