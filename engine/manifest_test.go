package engine

import (
	"encoding/hex"
	"encoding/json"
	"reflect"
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
