package engine

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestEncodeManifest: the hand-written manifest encoder yields the same
// JSON value as encoding/json, and ReadManifest's decoding reads it back.
func TestEncodeManifest(t *testing.T) {
	header := Manifest{Format: ManifestFormat, VaultID: "vault_0123456789abcdef", WorkspaceID: "ws_abcdefghijklmnopqrst", WorkspaceName: "demo", Baseline: Hash{1, 2, 3}}
	entry := func(p string, size int64, mode FileMode) cacheEntry {
		e := cacheEntry{path: p, id: Hash{byte(size)}, mode: mode, stamp: fileStamp{Size: size, Mtime: 99}}
		e.sha256[0], e.sha256[31] = 0xab, byte(size)
		return e
	}
	tests := []struct {
		name  string
		scope []string
		files []cacheEntry
	}{
		{name: "empty"},
		{name: "plain", files: []cacheEntry{entry("AGENTS.md", 10, ModeFile), entry("stages/01-a/run.sh", 0, ModeExecutable)}},
		{name: "scoped", scope: []string{"stages/01-a", "_config"}, files: []cacheEntry{entry("_config/x.md", 1, ModeFile)}},
		{name: "needs escaping", files: []cacheEntry{
			entry("<tag>&amp.md", 6, ModeFile),
			entry(`a "quoted" name.md`, 3, ModeFile),
			entry("café/naïve ü.md", 4, ModeFile),
			entry("日本/語.txt", 5, ModeFile),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &base{header: header, files: tt.files}
			b.header.Scope = tt.scope
			got := encodeManifest(b)
			want, err := json.Marshal(b.manifest())
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
			for i := range back.files {
				if e, f := back.files[i], tt.files[i]; e.path != f.path || e.id != f.id || e.sha256 != f.sha256 || e.mode != f.mode || e.stamp.Size != f.stamp.Size {
					t.Fatalf("entry %d read back as %+v, wrote %+v", i, e, f)
				}
			}
		})
	}
}

// TestStatCacheOrder: a cache whose entries are out of order (or
// duplicated) is refused, so lookups and the manifest stay sorted.
func TestStatCacheOrder(t *testing.T) {
	dir := t.TempDir()
	header := Manifest{Format: ManifestFormat, VaultID: "vault_0123456789abcdef", WorkspaceID: "ws_abcdefghijklmnopqrst", WorkspaceName: "demo", Baseline: Hash{1}}
	tests := []struct {
		name  string
		paths []string
		ok    bool
	}{
		{"sorted", []string{"a", "a/b", "b"}, true},
		{"unsorted", []string{"b", "a"}, false},
		{"duplicate", []string{"a", "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &base{header: header}
			for _, p := range tt.paths {
				b.files = append(b.files, cacheEntry{path: p, mode: ModeFile})
			}
			if err := writeManifest(dir, b); err != nil {
				t.Fatal(err)
			}
			if err := writeStatCache(dir, b, time.Now().UnixNano()); err != nil {
				t.Fatal(err)
			}
			got := loadStatCache(dir)
			if (got != nil) != tt.ok {
				t.Fatalf("loadStatCache = %v, want ok=%v", got != nil, tt.ok)
			}
			if got != nil && (len(got.files) != len(tt.paths) || got.lookup("a/b") != 1) {
				t.Fatalf("loaded %+v", got.files)
			}
		})
	}
}

// TestStatCacheListings: cached folder listings round-trip, and a listing
// whose names are not single elements (or not sorted) refuses the whole
// cache: the scan stats those names relative to their folder.
func TestStatCacheListings(t *testing.T) {
	header := Manifest{Format: ManifestFormat, VaultID: "vault_0123456789abcdef", WorkspaceID: "ws_abcdefghijklmnopqrst", WorkspaceName: "demo", Baseline: Hash{1}}
	tests := []struct {
		name  string
		names []string
		ok    bool
	}{
		{"plain", []string{"a.md", "b", "c d.txt"}, true},
		{"parent", []string{"..", "a"}, false},
		{"dot", []string{"."}, false},
		{"slash", []string{"../../etc/passwd"}, false},
		{"nul", []string{"a\x00b"}, false},
		{"empty", []string{""}, false},
		{"unsorted", []string{"b", "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cd := &cachedDir{stamp: fileStamp{Mtime: 1, Ino: 7}}
			for _, n := range tt.names {
				cd.entries = append(cd.entries, dirent{name: n})
			}
			b := &base{header: header, dirs: map[string]*cachedDir{".": cd}}
			if err := writeManifest(dir, b); err != nil {
				t.Fatal(err)
			}
			if err := writeStatCache(dir, b, time.Now().UnixNano()); err != nil {
				t.Fatal(err)
			}
			got := loadStatCache(dir)
			if (got != nil) != tt.ok {
				t.Fatalf("loadStatCache = %v, want ok=%v", got != nil, tt.ok)
			}
			if got != nil && !reflect.DeepEqual(got.dirs, b.dirs) {
				t.Fatalf("listings read back as %+v", got.dirs["."])
			}
		})
	}
}

// BenchmarkDecodeStatCacheTails decodes a cache of 10,000 files followed
// by the records of 1,800 one-file commits (up to the size at which a
// walk-test folds them into a new snapshot): the records are merged into
// the snapshot once, not one by one.
func BenchmarkDecodeStatCacheTails(b *testing.B) {
	dir := b.TempDir()
	base := &base{header: Manifest{Format: ManifestFormat, VaultID: "vault_0123456789abcdef", WorkspaceID: "ws_abcdefghijklmnopqrst", WorkspaceName: "demo", Baseline: Hash{1}}}
	for i := range 10000 {
		base.files = append(base.files, cacheEntry{path: fmt.Sprintf("stages/%03d/references/file-%06d.md", i/100, i), mode: ModeFile, stamp: fileStamp{Size: 3, Mtime: 5, Ctime: 5, Ino: uint64(i)}})
	}
	if err := writeManifest(dir, base); err != nil {
		b.Fatal(err)
	}
	if err := writeStatCache(dir, base, time.Now().UnixNano()); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, StatCacheName)
	for i := range 1800 {
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		rec := &tailRecord{baseline: Hash{byte(i)}, set: []cacheEntry{{path: fmt.Sprintf("stages/out/new-%06d.md", i), mode: ModeFile, stamp: fileStamp{Size: 3, Mtime: 5, Ctime: 5, Ino: 1}}}}
		if err := appendStatCache(dir, rec, logStamp{Ino: inodeOf(fi), Size: fi.Size()}, time.Now().UnixNano()); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c, err := decodeStatCache(data)
		if err != nil || len(c.files) != 11800 {
			b.Fatalf("decoded %v files: %v", len(c.files), err)
		}
	}
}

// manifest returns the manifest the base stands for (encodeManifest's
// reference, through encoding/json).
func (b *base) manifest() *Manifest {
	m := b.header
	m.Files = make([]ManifestFile, len(b.files))
	for i := range b.files {
		e := &b.files[i]
		m.Files[i] = ManifestFile{Path: e.path, Version: e.id, SHA256: hex.EncodeToString(e.sha256[:]), Size: e.stamp.Size, Mode: modeText(e.mode)}
	}
	return &m
}
