package engine

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/thalix/tv/icm"
)

// naivePathFindings is pathRuleFindings without its shortcut: every path
// checked and folded from its first byte.
func naivePathFindings(paths []string) []string {
	var out []string
	for _, p := range paths {
		if err := CheckPath(p); err != nil {
			out = append(out, p+": "+ruleText(err))
		}
	}
	sorted := slices.Sorted(slices.Values(paths))
	fold := foldSet{}
	for _, p := range sorted {
		if err := fold.add(p); err != nil {
			out = append(out, p+": "+ruleText(err))
		}
	}
	return out
}

func fastPathFindings(paths []string) []string {
	var out []string
	for _, f := range pathRuleFindings(paths, paths, len(paths), 0) {
		out = append(out, f.Path+": "+f.Message)
	}
	return out
}

// TestPathRuleFindingsSkipSharedFolders: checking each path only past
// the folders it shares with the last accepted one finds exactly what
// checking every path whole finds.
func TestPathRuleFindingsSkipSharedFolders(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
	}{
		{"clean tree", []string{"CONTEXT.md", "a/b/c.md", "a/b/d.md", "a/e/f.md", "b/c.md"}},
		{"bad folder repeated", []string{"a/CON./x.md", "a/CON./y.md", "a/ok.md"}},
		{"bad file between good", []string{"a/b/x.md", "a/b/bad\x01.md", "a/b/y.md"}},
		{"folder case collision", []string{"a/B/x.md", "a/B/y.md", "a/b/z.md", "a/b/w.md"}},
		{"file case collision", []string{"s/Readme.md", "s/README.md", "s/t/u.md"}},
		{"unicode forms", []string{"caf\u00e9/a.md", "cafe\u0301/b.md", "caf\u00e9/c.md"}},
		{"dot components", []string{"a/./b.md", "a/../b.md", "a/b.md"}},
		{"trailing slash after a good folder", []string{"a/b.md", "a/"}},
		{"too deep", []string{strings.Repeat("d/", MaxDepth) + "f.md", strings.Repeat("d/", MaxDepth-1) + "f.md"}},
		{"git look-alikes", []string{"x/.GIT/config", "x/.git~1/y", "x/ok"}},
		{"prefix not at a slash", []string{"ab/c.md", "a/c.md", "abc/d.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, got := naivePathFindings(tt.paths), fastPathFindings(tt.paths)
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("findings differ\n got %q\nwant %q", got, want)
			}
		})
	}
}

func FuzzPathRuleFindings(f *testing.F) {
	f.Add("a/b/c.md\na/B/d.md\na/b/e.md")
	f.Add("x/CON./y\nx/CON./z\nx/ok")
	f.Add("caf\u00e9/a\ncafe\u0301/b")
	f.Fuzz(func(t *testing.T, list string) {
		paths := strings.Split(list, "\n")
		want, got := naivePathFindings(paths), fastPathFindings(paths)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("findings differ for %q\n got %q\nwant %q", paths, got, want)
		}
	})
}

// TestFullFoldersMatchesParents: the stack over a walk listing finds the
// folders that hold a file exactly as collecting every file's parents.
func TestFullFoldersMatchesParents(t *testing.T) {
	tests := []struct {
		name    string
		listing []icm.Entry
	}{
		{"empty", nil},
		{"nested empty folders", []icm.Entry{dir("a"), dir("a/b"), dir("a/b/c"), file("a/b.md"), dir("d"), dir("d/e")}},
		{"name prefixes", []icm.Entry{dir("a"), dir("a/b"), file("a/b/x"), dir("a/bc"), dir("ab"), file("ab/y")}},
		{"irregular file keeps its folder", []icm.Entry{dir("s"), {Path: "s/link", Type: fs.ModeSymlink}, dir("t")}},
		{"deep file", []icm.Entry{dir("a"), dir("a/b"), dir("a/b/c"), dir("a/b/c/d"), file("a/b/c/d/e"), dir("a/b/z")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parents := map[string]bool{}
			for _, e := range tt.listing {
				if !e.Type.IsDir() {
					addParents(parents, e.Path)
				}
			}
			got := fullFolders(tt.listing)
			for i, e := range tt.listing {
				if want := e.Type.IsDir() && parents[e.Path]; got[i] != want {
					t.Errorf("%s: full = %v, want %v", e.Path, got[i], want)
				}
			}
		})
	}
}

func dir(p string) icm.Entry  { return icm.Entry{Path: p, Type: fs.ModeDir} }
func file(p string) icm.Entry { return icm.Entry{Path: p} }

// BenchmarkPathRuleFindings10k: tv check's path rules over a 10k-file
// tree, as its scan lists it (sorted). It ran after the validation had
// finished (~3 ms, a clone and sort of every path and a concatenation per
// name) before the paths came sorted and names were folded one by one.
func BenchmarkPathRuleFindings10k(b *testing.B) {
	var paths []string
	for i := range 10000 {
		paths = append(paths, fmt.Sprintf("stages/01-research/references/gen/d%d/f%d.md", i/100, i))
	}
	slices.Sort(paths)
	b.ReportAllocs()
	for b.Loop() {
		pathRuleFindings(paths, paths, len(paths), 1<<20)
	}
}
