package vaultmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/mcptools/mcpkit"
)

func workspaceCheckoutSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "vault_workspace_checkout",
		Title: "Check out a workspace",
		Description: "Writes the head version of a workspace (id or unambiguous name) into output_dir, an absolute path that must be absent or empty, exactly as `tv workspace checkout` does: " +
			"only the files you can read (folder grants give a partial checkout), each verified, then the manifest .thalix-workspace.json (ids and versions only, never a credential or local path); the checkout is recorded in the mount registry. " +
			"Templates are refused: they are factories, not workspaces.",
		Input: mcpkit.Object(mcpkit.Schema{
			"workspace":  mcpkit.Str("workspace id (ws_…) or unambiguous name, from vault_workspace_list"),
			"output_dir": mcpkit.Str("absolute path of a new or empty directory to write the checkout into"),
		}, "workspace", "output_dir"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"dir":            mcpkit.Str("absolute checkout directory"),
			"workspace_id":   mcpkit.Str("workspace id"),
			"workspace_name": mcpkit.Str("workspace name"),
			"baseline":       mcpkit.Str("the version checked out (commit id)"),
			"files":          mcpkit.Int("files written"),
			"bytes":          mcpkit.Int("bytes written"),
			"scope":          mcpkit.Array(mcpkit.Str(""), "the folders a partial checkout holds; empty for the whole workspace"),
		}, "dir", "workspace_id", "workspace_name", "baseline", "files", "bytes", "scope"),
		Annotations: mcpkit.Annotations{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: false},
	}
}

type workspaceCheckoutArgs struct {
	Workspace string `json:"workspace"`
	OutputDir string `json:"output_dir"`
}

type workspaceCheckoutData struct {
	*engine.CheckoutResult
	Scope []string `json:"scope"`
}

func (s *Server) workspaceCheckout(ctx context.Context, raw json.RawMessage) (*Repository, any, error) {
	var a workspaceCheckoutArgs
	if err := decode(raw, &a); err != nil {
		return nil, nil, err
	}
	if !filepath.IsAbs(a.OutputDir) {
		return nil, nil, fmt.Errorf("%w: output_dir %q must be an absolute path (the server's working directory is the host's, not yours)", engine.ErrUsage, a.OutputDir)
	}
	res, err := s.eng.Checkout(ctx, a.Workspace, filepath.Clean(a.OutputDir))
	if err != nil {
		return nil, nil, err
	}
	d := workspaceCheckoutData{CheckoutResult: res, Scope: []string{}}
	if m, err := engine.ReadManifest(res.Dir); err == nil && m.Scope != nil {
		d.Scope = m.Scope
	}
	return &Repository{ID: res.WorkspaceID, Name: res.WorkspaceName}, d, nil
}
