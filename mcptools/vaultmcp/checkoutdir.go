package vaultmcp

import (
	"fmt"
	"path/filepath"

	"github.com/thalix/tv/engine"
)

// scopedCheckout checks that dir is an absolute path holding a checkout
// of the scoped workspace from this vault, and returns it cleaned.
func (s *Server) scopedCheckout(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%w: checkout_dir %q must be an absolute path (the server's working directory is the host's, not yours)", engine.ErrUsage, dir)
	}
	dir = filepath.Clean(dir)
	m, err := engine.ReadManifest(dir)
	if err != nil {
		return "", err
	}
	if m.WorkspaceID != s.ws.ID {
		return "", fmt.Errorf("%w: %s is a checkout of workspace %s (%s), not of the scoped workspace %s (%s); this server works on %s only",
			engine.ErrRefused, dir, m.WorkspaceID, m.WorkspaceName, s.ws.ID, s.ws.Name, s.ws.ID)
	}
	if m.VaultID != s.eng.Vault().ID() {
		return "", fmt.Errorf("%w: %s is a checkout from vault %s, but this server uses vault %s", engine.ErrRefused, dir, m.VaultID, s.eng.Vault().ID())
	}
	return dir, nil
}
