package icm

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/thalix/tv/starter"
)

// gosrcDir is where the benchmark tree keeps its bulk: a copy of a source
// tree under the first stage's references.
const gosrcDir = "stages/01-research/references/gosrc"

// benchDoc is the content of the benchmark tree's bulk Markdown files.
var benchDoc = func() string {
	var b strings.Builder
	b.WriteString("# Package notes\n\nNotes on a package of the reference tree.\n\n")
	for i := range 12 {
		fmt.Fprintf(&b, "## Section %d\n\nSome prose about section %d, with `code` and a [link](https://go.dev/).\n\n", i, i)
		b.WriteString("| Name | Kind | Notes |\n|---|---|---|\n| Reader | interface | reads |\n| Writer | interface | writes |\n\n")
		b.WriteString("```go\nfunc f(x int) int { return x * 2 }\n```\n\n")
	}
	return b.String()
}()

// benchTree returns the benchmark workspace: the starter plus gosrcDir
// holding 11,500 files in 1,333 folders, of which 30 are .md files. full
// holds every entry; md only the starter and the .md files (enough for
// ValidateEntries, which opens nothing else).
func benchTree(tb testing.TB) (full, md fstest.MapFS) {
	tb.Helper()
	full, md = fstest.MapFS{}, fstest.MapFS{}
	err := fs.WalkDir(starter.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(starter.FS(), p)
		if err != nil {
			return err
		}
		full[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		md[p] = full[p]
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	// 1 + 12 + 120 + 1,200 = 1,333 folders.
	dirs := []string{gosrcDir}
	for i := range 12 {
		top := fmt.Sprintf("%s/pkg%02d", gosrcDir, i)
		dirs = append(dirs, top)
		for j := range 10 {
			mid := fmt.Sprintf("%s/sub%02d", top, j)
			dirs = append(dirs, mid)
			for k := range 10 {
				dirs = append(dirs, fmt.Sprintf("%s/leaf_%02d", mid, k))
			}
		}
	}
	code := &fstest.MapFile{Data: []byte("package x\n"), Mode: 0o644}
	doc := &fstest.MapFile{Data: []byte(benchDoc), Mode: 0o644}
	for f := range 11500 {
		dir := dirs[f%len(dirs)]
		if f%383 == 0 {
			p := fmt.Sprintf("%s/doc%05d.md", dir, f)
			full[p], md[p] = doc, doc
			continue
		}
		full[fmt.Sprintf("%s/f%05d.go", dir, f)] = code
	}
	return full, md
}

// indexFS is a MapFS with precomputed, cloned-on-read directory listings,
// like the engine's scan snapshot: a walk costs what the validator costs,
// not MapFS.ReadDir's scan of the whole map per folder.
type indexFS struct {
	fstest.MapFS
	dirs map[string][]fs.DirEntry
}

func newIndexFS(tb testing.TB, m fstest.MapFS) indexFS {
	tb.Helper()
	x := indexFS{MapFS: m, dirs: map[string][]fs.DirEntry{".": nil}}
	var addDir func(p string)
	addDir = func(p string) {
		if _, ok := x.dirs[p]; ok || p == "." {
			return
		}
		x.dirs[p] = nil
		addDir(path.Dir(p))
		x.dirs[path.Dir(p)] = append(x.dirs[path.Dir(p)], dirEntry{path.Base(p), fs.ModeDir})
	}
	for p, f := range m {
		if f.Mode.IsDir() {
			addDir(p)
			continue
		}
		addDir(path.Dir(p))
		x.dirs[path.Dir(p)] = append(x.dirs[path.Dir(p)], dirEntry{path.Base(p), f.Mode.Type()})
	}
	for _, list := range x.dirs {
		slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	return x
}

// dirEntry is an fs.DirEntry of an indexFS.
type dirEntry struct {
	name string
	typ  fs.FileMode
}

func (d dirEntry) Name() string               { return d.name }
func (d dirEntry) IsDir() bool                { return d.typ.IsDir() }
func (d dirEntry) Type() fs.FileMode          { return d.typ }
func (d dirEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrInvalid }

func (x indexFS) ReadDir(name string) ([]fs.DirEntry, error) {
	list, ok := x.dirs[name]
	if !ok {
		return x.MapFS.ReadDir(name)
	}
	return slices.Clone(list), nil
}

// writeTree writes m to a new temporary folder and returns it.
func writeTree(tb testing.TB, m fstest.MapFS) string {
	tb.Helper()
	dir := tb.TempDir()
	made := map[string]bool{}
	for p, f := range m {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if f.Mode.IsDir() {
			if err := os.MkdirAll(full, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if d := path.Dir(p); !made[d] {
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				tb.Fatal(err)
			}
			made[d] = true
		}
		if err := os.WriteFile(full, f.Data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// BenchmarkValidateEntries validates a 12,800-entry tree (the starter plus
// 11,500 files in 1,333 folders under a stage's references/), side by
// side:
//
//   - entries: ValidateEntries on a ready listing, reading the .md files
//     from a MapFS that holds only them, or from disk;
//   - tools: ValidateTools today, a walk into a listing, then
//     ValidateEntries;
//
// the last over an indexFS (precomputed listings, as the engine's scan
// serves them), os.DirFS and a plain MapFS (whose ReadDir scans the whole
// map per folder, so that a walk costs 0.6 s).
func BenchmarkValidateEntries(b *testing.B) {
	full, md := benchTree(b)
	index := newIndexFS(b, full)
	entries := walkListing(b, index)
	known := KnownTools()
	want, err := ValidateTools(index, known)
	if err != nil {
		b.Fatal(err)
	}
	var disk fs.FS
	setupDisk := func(*testing.B) fs.FS {
		if disk == nil {
			disk = os.DirFS(writeTree(b, full)) // b's: kept for every sub-benchmark
		}
		return disk
	}
	check := func(b *testing.B, got []Finding, err error) {
		if err != nil || len(got) != len(want) {
			b.Fatalf("%d findings, %v; want %d", len(got), err, len(want))
		}
	}
	entriesRun := func(fsys func(*testing.B) fs.FS) func(*testing.B) {
		return func(b *testing.B) {
			fsys := fsys(b)
			b.ReportAllocs()
			for b.Loop() {
				got, err := ValidateEntries(fsys, entries, known)
				check(b, got, err)
			}
		}
	}
	toolsRun := func(validate func(fs.FS, []string) ([]Finding, error), fsys func(*testing.B) fs.FS) func(*testing.B) {
		return func(b *testing.B) {
			fsys := fsys(b)
			b.ReportAllocs()
			for b.Loop() {
				got, err := validate(fsys, known)
				check(b, got, err)
			}
		}
	}
	mdFS := func(*testing.B) fs.FS { return md }
	indexed := func(*testing.B) fs.FS { return index }
	mapFS := func(*testing.B) fs.FS { return full }
	b.Logf("%d entries, %d findings", len(entries), len(want))
	b.Run("entries/MapFS", entriesRun(mdFS))
	b.Run("entries/DirFS", entriesRun(setupDisk))
	b.Run("tools/indexFS", toolsRun(ValidateTools, indexed))
	b.Run("tools/DirFS", toolsRun(ValidateTools, setupDisk))
	b.Run("tools/MapFS", toolsRun(ValidateTools, mapFS))
}
