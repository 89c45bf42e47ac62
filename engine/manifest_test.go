package engine

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/statcache"
)

// TestEncodeManifest: the hand-written manifest encoder yields the same
// JSON value as encoding/json, and ReadManifest's decoding reads it back.
func TestEncodeManifest(t *testing.T) {
	header := Manifest{Format: ManifestFormat, VaultID: "vault_0123456789abcdef", WorkspaceID: "ws_abcdefghijklmnopqrst", WorkspaceName: "demo", Baseline: Hash{1, 2, 3}}
	entry := func(p string, size int64, mode FileMode) statcache.Entry {
		e := statcache.Entry{Path: p, ID: Hash{byte(size)}, Mode: uint32(mode), Stamp: fastio.Stamp{Size: size, Mtime: 99}}
		e.SHA256[0], e.SHA256[31] = 0xab, byte(size)
		return e
	}
	tests := []struct {
		name  string
		scope []string
		files []statcache.Entry
	}{
		{name: "empty"},
		{name: "plain", files: []statcache.Entry{entry("AGENTS.md", 10, ModeFile), entry("stages/01-a/run.sh", 0, ModeExecutable)}},
		{name: "scoped", scope: []string{"stages/01-a", "_config"}, files: []statcache.Entry{entry("_config/x.md", 1, ModeFile)}},
		{name: "needs escaping", files: []statcache.Entry{
			entry("<tag>&amp.md", 6, ModeFile),
			entry(`a "quoted" name.md`, 3, ModeFile),
			entry("café/naïve ü.md", 4, ModeFile),
			entry("日本/語.txt", 5, ModeFile),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &statcache.Cache{Header: headerOf(&header), Files: tt.files}
			b.Header.Scope = tt.scope
			got := encodeManifest(b)
			want, err := json.Marshal(manifestOfBase(b))
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, got)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("encodeManifest:\n%s\nencoding/json:\n%s", got, want)
			}
			var m Manifest
			if err := json.Unmarshal(got, &m); err != nil {
				t.Fatal(err)
			}
			back, err := baseOfManifest(&m)
			if err != nil {
				t.Fatal(err)
			}
			for i := range back.Files {
				if e, f := back.Files[i], tt.files[i]; e.Path != f.Path || e.ID != f.ID || e.SHA256 != f.SHA256 || e.Mode != f.Mode || e.Stamp.Size != f.Stamp.Size {
					t.Fatalf("entry %d read back as %+v, wrote %+v", i, e, f)
				}
			}
		})
	}
}

// manifestOfBase returns the manifest base b stands for (encodeManifest's
// reference, through encoding/json).
func manifestOfBase(b *statcache.Cache) *Manifest {
	m := identityOf(&b.Header)
	m.Files = make([]ManifestFile, len(b.Files))
	for i := range b.Files {
		e := &b.Files[i]
		m.Files[i] = ManifestFile{Path: e.Path, Version: e.ID, SHA256: hex.EncodeToString(e.SHA256[:]), Size: e.Stamp.Size, Mode: modeText(FileMode(e.Mode))}
	}
	return m
}

// TestReadManifestIdentity: the identity read without the file list
// equals ReadManifest's, whatever the list's place in the object; a
// damaged or missing manifest is refused as ReadManifest refuses it.
func TestReadManifestIdentity(t *testing.T) {
	const id, vault = `"workspace_id": "ws_abcdefghijklmnopqrst"`, `"vault_id": "vault_0123456789abcdef"`
	files := `"files": [{"path": "a.md", "version": "0102030000000000000000000000000000000000", "sha256": "` + strings.Repeat("ab", 32) + `", "size": 1, "mode": "100644"}]`
	head := `"format": 1, ` + vault + `, ` + id + `, "workspace_name": "demo", "baseline": "0102030000000000000000000000000000000000"`
	tests := []struct {
		name, manifest string
		err            error // nil: the identity equals ReadManifest's
	}{
		{"as tv writes it", `{` + head + `, ` + files + `}`, nil},
		{"files first", `{` + files + `, ` + head + `}`, nil},
		{"unknown members", `{"note": {"x": [1, 2]}, ` + head + `, "scope": ["stages"], ` + files + `}`, nil},
		{"not an object", `[1, 2]`, ErrRefused},
		{"damaged", `{` + head + `, "files": [`, nil}, // the list is never read: the identity stands
		{"damaged identity", `{"format": 1, "workspace_id": 5}`, ErrRefused},
		{"no workspace id", `{"format": 1, ` + vault + `, "workspace_name": "demo", "baseline": "0102030000000000000000000000000000000000", ` + files + `}`, ErrRefused},
		{"wrong format", `{"format": 2, ` + vault + `, ` + id + `, "workspace_name": "demo", "baseline": "0102030000000000000000000000000000000000", ` + files + `}`, ErrRefused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(tc.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readManifestIdentity(dir)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := ReadManifest(dir)
			if err != nil {
				if tc.name == "damaged" {
					want = &Manifest{Format: 1, VaultID: "vault_0123456789abcdef", WorkspaceID: "ws_abcdefghijklmnopqrst", WorkspaceName: "demo", Baseline: Hash{1, 2, 3}}
				} else {
					t.Fatal(err)
				}
			}
			want.Files = nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("identity %+v, ReadManifest's %+v", got, want)
			}
		})
	}
	if _, err := readManifestIdentity(t.TempDir()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no manifest: err = %v, want ErrNotFound", err)
	}
}
