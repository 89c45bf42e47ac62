package mounts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/thalix/tv/atomicfile"
	"github.com/thalix/tv/internal/regfile"
)

// ManifestName is the file a checkout directory holds; a registry entry
// whose directory lacks it is stale.
const ManifestName = ".thalix-workspace.json"

// Mount is one recorded checkout.
type Mount struct {
	Path          string    `json:"path"` // absolute, cleaned
	WorkspaceID   string    `json:"workspace_id"`
	WorkspaceName string    `json:"workspace_name"`
	CheckedOutAt  time.Time `json:"checked_out_at"`
	// Mounted false (written by hand or another tool) keeps the record but
	// stops serving it; absent means mounted.
	Mounted *bool `json:"mounted,omitempty"`
}

// ErrNotMounted: Forget found no record for the directory.
var ErrNotMounted = errors.New("no mount record for this directory")

type file struct {
	Mounts []Mount `json:"mounts"`
}

// DefaultPath returns the registry path for an environment lookup:
// $XDG_STATE_HOME/tv/mounts.json, else ~/.local/state/tv/mounts.json.
func DefaultPath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "tv", "mounts.json"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("cannot locate the mount registry: neither XDG_STATE_HOME nor HOME is set")
	}
	return filepath.Join(home, ".local", "state", "tv", "mounts.json"), nil
}

// Read returns the live mounts of the registry at path, sorted by path.
// An absent registry is empty. Entries whose directory no longer holds a
// manifest are left out (Add drops them from the file), and so are those
// marked "mounted": false.
func Read(path string) ([]Mount, error) {
	all, err := readAll(path)
	if err != nil {
		return nil, err
	}
	out := live(all)[:0:0]
	for _, m := range live(all) {
		if m.Mounted == nil || *m.Mounted {
			out = append(out, m)
		}
	}
	return out, nil
}

// Forget removes the record of the checkout at dir (which need not exist
// any more) and returns it; ErrNotMounted when there is none.
func Forget(path, dir string) (Mount, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Mount{}, err
	}
	abs = filepath.Clean(abs)
	unlock, err := lockRegistry(path)
	if err != nil {
		return Mount{}, err
	}
	defer unlock()
	all, err := readAll(path)
	if err != nil {
		return Mount{}, err
	}
	var kept []Mount
	var gone *Mount
	for i, m := range all {
		if m.Path == abs && gone == nil {
			gone = &all[i]
			continue
		}
		kept = append(kept, m)
	}
	if gone == nil {
		return Mount{}, fmt.Errorf("%w: %s (see the registry %s)", ErrNotMounted, abs, path)
	}
	return *gone, write(path, kept)
}

// Add records a checkout at dir (replacing any entry for the same path)
// and drops stale entries, rewriting the registry atomically.
func Add(path string, m Mount) error {
	abs, err := filepath.Abs(m.Path)
	if err != nil {
		return err
	}
	m.Path = filepath.Clean(abs)
	unlock, err := lockRegistry(path)
	if err != nil {
		return err
	}
	defer unlock()
	all, err := readAll(path)
	if err != nil {
		return err
	}
	kept := []Mount{m}
	for _, old := range live(all) {
		if old.Path != m.Path {
			kept = append(kept, old)
		}
	}
	return write(path, kept)
}

func live(all []Mount) []Mount {
	out := make([]Mount, 0, len(all))
	for _, m := range all {
		if fi, err := os.Lstat(filepath.Join(m.Path, ManifestName)); err == nil && fi.Mode().IsRegular() {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func readAll(path string) ([]Mount, error) {
	b, err := regfile.Read(path, MaxRegistryBytes, RegistryReadTimeout)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read mount registry: %w", err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("mount registry %s is not valid JSON (%v); remove it to start afresh", path, err)
	}
	return f.Mounts, nil
}

func write(path string, ms []Mount) error {
	sort.Slice(ms, func(i, j int) bool { return ms[i].Path < ms[j].Path })
	b, err := json.MarshalIndent(file{Mounts: ms}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}
