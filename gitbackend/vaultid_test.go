package gitbackend

import (
	"os"
	"path/filepath"
	"testing"
)

// A mirror made by stock git (clone --mirror) is the same vault: the id
// travels in refs, not in git config.
func TestVaultIDTravelsWithMirror(t *testing.T) {
	v := newDiskVault(t)
	mirror := filepath.Join(t.TempDir(), "mirror.git")
	git(t, v.Path(), "", "clone", "--quiet", "--mirror", v.Path(), mirror)
	m, err := Open(mirror)
	if err != nil {
		t.Fatalf("Open(mirror): %v", err)
	}
	if m.ID() != v.ID() {
		t.Fatalf("mirror id %q, vault id %q", m.ID(), v.ID())
	}
	fsckClean(t, v.Path())
}

// A vault made before VaultIDRef (id only in config tv.vaultid) still
// opens, and is migrated so its mirrors keep the id.
func TestVaultIDLegacyConfigMigrated(t *testing.T) {
	requireGit(t)
	path := filepath.Join(t.TempDir(), "old.git")
	git(t, path, "", "init", "--quiet", "--bare", path)
	git(t, path, "", "config", "tv.vaultid", "vault_0123456789abcdef")
	v, err := Open(path)
	if err != nil {
		t.Fatalf("Open(legacy): %v", err)
	}
	if v.ID() != "vault_0123456789abcdef" {
		t.Fatalf("id %q", v.ID())
	}
	if got := git(t, path, "", "cat-file", "blob", VaultIDRef); got != "tv vault\nTv-Vault-Id: "+v.ID() {
		t.Fatalf("migrated trailer %q", got)
	}
	mirror := filepath.Join(t.TempDir(), "mirror.git")
	git(t, path, "", "clone", "--quiet", "--mirror", path, mirror)
	if m, err := Open(mirror); err != nil || m.ID() != v.ID() {
		t.Fatalf("mirror of migrated vault: %v, %v", m, err)
	}
	fsckClean(t, path)
}

func TestVaultIDRefused(t *testing.T) {
	requireGit(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
	}{
		{"plain bare repository", func(*testing.T, string) {}},
		{"id ref without trailer", func(t *testing.T, path string) {
			b := git(t, path, "not a vault\n", "hash-object", "-w", "--stdin")
			git(t, path, "", "update-ref", VaultIDRef, b)
		}},
		{"id ref at a tree", func(t *testing.T, path string) {
			tree := git(t, path, "", "hash-object", "-t", "tree", "-w", "--stdin")
			git(t, path, "", "update-ref", VaultIDRef, tree)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.git")
			git(t, path, "", "init", "--quiet", "--bare", path)
			tt.setup(t, path)
			if _, err := Open(path); err == nil {
				t.Fatal("Open accepted a repository without a vault id")
			} else if _, statErr := os.Stat(path); statErr != nil {
				t.Fatal(statErr)
			}
		})
	}
}
