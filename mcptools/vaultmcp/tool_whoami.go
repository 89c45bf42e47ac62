package vaultmcp

import (
	"context"
	"encoding/json"

	"github.com/thalix/tv/mcptools/mcpkit"
)

func whoamiSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "vault_whoami",
		Title: "Who am I",
		Description: "Returns who this server acts as — the user of the tv credential file (`tv login`); the token is never shown — and the id of the vault. " +
			"Not logged in is an error that says how to log in. Takes no arguments.",
		Input: mcpkit.Object(mcpkit.Schema{}),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"user":     mcpkit.Str("user name"),
			"email":    mcpkit.Str("email used for commit authorship"),
			"vault_id": mcpkit.Str("the vault's stable id"),
		}, "user", "email", "vault_id"),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type whoamiData struct {
	User    string `json:"user"`
	Email   string `json:"email"`
	VaultID string `json:"vault_id"`
}

func (s *Server) whoami(_ context.Context, raw json.RawMessage) (*Repository, any, error) {
	if err := decode(raw, &struct{}{}); err != nil {
		return nil, nil, err
	}
	id, err := s.eng.Identity()
	if err != nil {
		return nil, nil, err
	}
	return nil, whoamiData{User: id.User, Email: id.Email, VaultID: s.eng.Vault().ID()}, nil
}
