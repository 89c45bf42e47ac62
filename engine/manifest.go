package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/thalix/tv/atomicfile"
)

// ManifestFormat is the manifest format version tv writes and reads.
const ManifestFormat = 1

// Manifest is the identity of a checkout: which vault and workspace it
// came from, the version it is based on, and per file its version. It holds
// no token, credential, storage key, URL or absolute local path.
type Manifest struct {
	Format        int    `json:"format"`
	VaultID       string `json:"vault_id"`
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	Baseline      Hash   `json:"baseline"`
	// Scope lists the folders this checkout holds when the checker-out
	// could read only those (folder grants); empty means the whole tree.
	Scope []string       `json:"scope,omitempty"`
	Files []ManifestFile `json:"files"`
}

// ManifestFile is one file of a checkout as it was written.
type ManifestFile struct {
	Path    string `json:"path"`
	Version Hash   `json:"version"` // git blob id
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
	Mode    string `json:"mode"` // "100644" or "100755"
}

func modeString(m FileMode) string { return strconv.FormatUint(uint64(m), 8) }

func parseMode(s string) (FileMode, error) {
	switch s {
	case "100644":
		return ModeFile, nil
	case "100755":
		return ModeExecutable, nil
	}
	return 0, fmt.Errorf("file mode %q is not 100644 or 100755", s)
}

// ReadManifest reads the manifest of checkout dir. A directory without one
// yields ErrNotFound with advice; a damaged one ErrRefused.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := readRegular(filepath.Join(dir, ManifestName), MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s has no %s: it is not a tv checkout, or its checkout was interrupted (check out again into an empty directory)", ErrNotFound, dir, ManifestName)
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: %s in %s is damaged (%v); check out again", ErrRefused, ManifestName, dir, err)
	}
	if err := m.checkIdentity(); err != nil {
		return nil, fmt.Errorf("%s in %s: %w", ManifestName, dir, err)
	}
	for _, f := range m.Files {
		if err := CheckPath(f.Path); err != nil {
			return nil, fmt.Errorf("%s in %s: %w", ManifestName, dir, err)
		}
		if _, err := parseMode(f.Mode); err != nil {
			return nil, fmt.Errorf("%w: %s in %s: %s: %v", ErrRefused, ManifestName, dir, f.Path, err)
		}
	}
	return &m, nil
}

// writeManifest replaces the manifest of dir atomically.
func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ManifestName), append(b, '\n'), 0o644)
}

// checkIdentity validates the manifest's identity fields, which a user or
// agent may have edited: they must name a workspace by id and name, never
// carry text that could reach a commit message.
func (m *Manifest) checkIdentity() error {
	switch {
	case m.Format != ManifestFormat:
		return fmt.Errorf("%w: format %d is not %d; check out again with this tv", ErrRefused, m.Format, ManifestFormat)
	case !isID(m.WorkspaceID) || !strings.HasPrefix(m.WorkspaceID, idPrefix(KindWorkspace)):
		return fmt.Errorf("%w: workspace_id %q is not a workspace id; check out again", ErrRefused, m.WorkspaceID)
	case ValidateName(m.WorkspaceName) != nil:
		return fmt.Errorf("%w: workspace_name %q is not a valid name; check out again", ErrRefused, m.WorkspaceName)
	case m.Baseline.IsZero():
		return fmt.Errorf("%w: no baseline version; check out again", ErrRefused)
	}
	for _, f := range m.Scope {
		if err := CheckPath(f); err != nil {
			return err
		}
	}
	return nil
}

// readRegular reads a regular file of at most max bytes without following
// a symlink or blocking on a FIFO.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrRefused, path)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d", ErrRefused, path, fi.Size(), max)
	}
	return io.ReadAll(io.LimitReader(f, max+1))
}
