package engine

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzCheckPath: every path CheckPath accepts is a clean, relative,
// fs.ValidPath without "..", ".git", backslashes or control characters.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a", "a/b.md", "../x", "/abs", "a//b", "a/./b", ".git/config", "A/.GIT", `a\b`, "C:/x", "a\x00b", "stages/01-research/CONTEXT.md", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if CheckPath(p) != nil {
			return
		}
		if !fs.ValidPath(p) || path.Clean(p) != p || strings.ContainsAny(p, "\\\x00") {
			t.Fatalf("accepted unsafe path %q", p)
		}
		for _, c := range strings.Split(p, "/") {
			if c == ".." || strings.EqualFold(c, ".git") || len(c) > MaxComponentBytes || strings.HasSuffix(c, " ") {
				t.Fatalf("accepted %q with component %q", p, c)
			}
		}
	})
}

// FuzzStatCache: the stat cache decoder never panics on damaged input and
// never yields more entries than the bytes could hold.
func FuzzStatCache(f *testing.F) {
	f.Add([]byte(statCacheMagic))
	f.Add([]byte("garbage"))
	// A real cache: files and folder listings.
	dir := f.TempDir()
	b := &base{
		header: Manifest{Format: ManifestFormat, VaultID: "vault_0123456789abcdef", WorkspaceID: "ws_abcdefghijklmnopqrst", WorkspaceName: "demo", Baseline: Hash{1}, Scope: []string{"a"}},
		files:  []cacheEntry{{path: "a/b.md", mode: ModeFile, stamp: fileStamp{Size: 3, Mtime: 5}}, {path: "a/c", mode: ModeExecutable}},
		dirs:   map[string]*cachedDir{".": {entries: []dirent{{name: "a", typ: fs.ModeDir}}}, "a": {stamp: fileStamp{Ino: 9}, entries: []dirent{{name: "b.md"}, {name: "c"}}}},
	}
	if err := writeManifest(dir, b); err != nil {
		f.Fatal(err)
	}
	if err := writeStatCache(dir, b, time.Now().UnixNano()); err != nil {
		f.Fatal(err)
	}
	if real, err := os.ReadFile(filepath.Join(dir, StatCacheName)); err == nil {
		f.Add(real)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeStatCache(b)
		if err != nil {
			return
		}
		const minEntry = 2 + 36 + 20 + 32 + 4
		if len(c.files)*minEntry > len(b) {
			t.Fatalf("%d entries from %d bytes", len(c.files), len(b))
		}
		for rel, d := range c.dirs {
			for _, e := range d.entries {
				if !oneElem(e.name) {
					t.Fatalf("listing of %q holds %q", rel, e.name)
				}
			}
		}
	})
}

// FuzzTrailers: trailer parsing never panics and finds what commitMessage
// wrote.
func FuzzTrailers(f *testing.F) {
	f.Add("reason", "demo")
	f.Fuzz(func(t *testing.T, reason, name string) {
		if ValidateReason(reason) != nil || ValidateName(name) != nil {
			return
		}
		tr := parseTrailers(commitMessage(reason, trailerName, name))
		if tr[trailerName] != name {
			t.Fatalf("name %q round-tripped as %q", name, tr[trailerName])
		}
	})
}
