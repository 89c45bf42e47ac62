package icm

import (
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// countingFS counts the files opened through it.
type countingFS struct {
	fs.FS
	opened map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.opened[name]++
	return c.FS.Open(name)
}

// mapFacts is a FactCache keyed by path, as a caller keying by content
// would see an unchanged tree.
type mapFacts map[string]MarkdownFacts

func (m mapFacts) Facts(_ int, p string) (MarkdownFacts, bool) { f, ok := m[p]; return f, ok }
func (m mapFacts) Learned(_ int, p string, _ []byte, f MarkdownFacts) {
	m[p] = f
}

// TestValidateEntriesCached: with a FactCache the findings are those of
// ValidateEntries; a second validation through a warm cache opens only
// the contracts; facts are what the file's content says.
func TestValidateEntriesCached(t *testing.T) {
	full, _ := benchTree(t)
	full["stages/01-research/references/ph.md"] = &fstest.MapFile{Data: []byte("a\n{{X}} {{Y}}\nb {{Z}}\n"), Mode: 0o644}
	long := "# Context\n"
	for i := range MaxContextLines + 5 {
		long += fmt.Sprintf("line %d\n", i)
	}
	full["stages/01-research/references/CONTEXT.md"] = &fstest.MapFile{Data: []byte(long), Mode: 0o644}
	entries := entriesOf(t, full)
	want, err := ValidateEntries(full, entries, KnownTools())
	if err != nil {
		t.Fatal(err)
	}
	cache := mapFacts{}
	for round := range 2 {
		cfs := &countingFS{FS: full, opened: map[string]int{}}
		got, err := ValidateEntriesCached(cfs, entries, KnownTools(), cache)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: findings differ:\n%v\nwant\n%v", round, got, want)
		}
		if round == 1 {
			for p := range cfs.opened {
				if !(p == "CONTEXT.md" || p == "CLAUDE.md" || p == "AGENTS.md" || reStageContext(p)) {
					t.Errorf("warm cache: opened %s", p)
				}
			}
		}
	}
	tests := []struct {
		path string
		want MarkdownFacts
	}{
		{"stages/01-research/references/ph.md", MarkdownFacts{Lines: 3, Placeholders: []Placeholder{{2, `"{{X}}"`, 1}, {3, `"{{Z}}"`, 0}}}},
		{"stages/01-research/references/CONTEXT.md", MarkdownFacts{Lines: MaxContextLines + 6}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := cache[tt.path]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("facts = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// reStageContext reports whether p is a stage's CONTEXT.md.
func reStageContext(p string) bool {
	return strings.HasPrefix(p, "stages/") && strings.HasSuffix(p, "/CONTEXT.md") && strings.Count(p, "/") == 2
}

// entriesOf is fsys's listing in walk order.
func entriesOf(t *testing.T, fsys fs.FS) []Entry {
	t.Helper()
	var out []Entry
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		out = append(out, Entry{Path: p, Type: d.Type()})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
