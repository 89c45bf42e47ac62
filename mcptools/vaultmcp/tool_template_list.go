package vaultmcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/thalix/tv/mcptools/mcpkit"
)

func templateListSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "vault_template_list",
		Title: "List templates",
		Description: "Lists the templates you can see: the bundled ICM starter first, then the vault's templates by name. Templates are immutable factories; a workspace is made from one with `tv workspace init --template`. " +
			fmt.Sprintf("At most %d entries (MaxListEntries), fewer when the %d-byte result cap (MaxStructuredBytes) binds; total and truncated tell. Takes no arguments.", MaxListEntries, MaxStructuredBytes),
		Input: mcpkit.Object(mcpkit.Schema{}),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"templates": mcpkit.Array(mcpkit.OpenObject(mcpkit.Schema{
				"id":         mcpkit.Str("template id (tpl_…, or the starter's id)"),
				"name":       mcpkit.Str("template name"),
				"builtin":    mcpkit.Bool("the bundled starter (compiled into tv)"),
				"updated_at": mcpkit.Int("when its version was made, Unix seconds (0 for the starter)"),
				"updated_by": mcpkit.Str("who made it"),
				"reason":     mcpkit.Str("its description or creation reason"),
			}, "id", "name", "builtin", "updated_at", "updated_by", "reason"), "templates, starter first"),
			"total":     mcpkit.Int("templates you can see"),
			"truncated": mcpkit.Bool("templates holds fewer than total"),
		}, "templates", "total", "truncated"),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type templateEntry struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Builtin   bool   `json:"builtin"`
	UpdatedAt int64  `json:"updated_at"`
	UpdatedBy string `json:"updated_by"`
	Reason    string `json:"reason"`
}

type templateListData struct {
	Templates []templateEntry `json:"templates"`
	Total     int             `json:"total"`
	Truncated bool            `json:"truncated"`
}

func (s *Server) templateList(ctx context.Context, raw json.RawMessage) (*Repository, any, error) {
	if err := decode(raw, &struct{}{}); err != nil {
		return nil, nil, err
	}
	list, err := s.eng.Templates(ctx)
	if err != nil {
		return nil, nil, err
	}
	all := make([]templateEntry, len(list))
	for i, t := range list {
		all[i] = templateEntry{ID: t.ID, Name: t.Name, Builtin: t.Builtin, UpdatedBy: t.UpdatedBy, Reason: t.Reason}
		if !t.UpdatedAt.IsZero() {
			all[i].UpdatedAt = t.UpdatedAt.Unix()
		}
	}
	build := func(n int) any {
		return templateListData{Templates: all[:n], Total: len(all), Truncated: n < len(all)}
	}
	return nil, build(fitCount(min(len(all), MaxListEntries), nil, build)), nil
}
