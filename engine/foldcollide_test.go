package engine

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// foldFindings is pathRuleFindings' collision pass alone, with every
// prefix kept (foldSet): what mayFoldCollide stands guard for.
func foldFindings(paths []string) []string {
	var out []string
	fold := foldSet{}
	good := ""
	for _, path := range paths {
		if err := fold.addFrom(path, sharedFolders(good, path)); err != nil {
			out = append(out, path)
			continue
		}
		good = path
	}
	return out
}

// TestMayFoldCollide: whenever the full collision pass finds a collision,
// mayFoldCollide says one may exist — over hand-picked trees and random
// ones whose names come in case, accent and normalisation variants — so
// skipping the pass when it says none loses no finding.
func TestMayFoldCollide(t *testing.T) {
	tests := []struct {
		paths []string
		want  bool
	}{
		{[]string{"a/b.md", "a/c.md", "d/e.md"}, false},
		{[]string{"CONTEXT.md", "stages/01/CONTEXT.md", "stages/01/notes/n.md"}, false},
		{[]string{"README.md", "readme.md"}, true},
		{[]string{"Docs/a.md", "docs/b.md"}, true}, // folders collide
		{[]string{"docs/a.md", "x/Docs.md", "x/docs.md"}, true},
		{[]string{"a/Docs", "docs/x"}, false},             // different folders
		{[]string{"caf\u00e9.md", "cafe\u0301.md"}, true}, // NFC and NFD
		{[]string{"Caf\u00e9/x", "cafe\u0301/y"}, true},
		{[]string{"A-b/x", "a/y", "a-b/z"}, true}, // a-b sorts between a and a/
		{[]string{"A", "a/b"}, true},              // a file and a folder
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.paths, ","), func(t *testing.T) {
			paths := slices.Sorted(slices.Values(tt.paths))
			got, found := mayFoldCollide(paths), foldFindings(paths) != nil
			if got != tt.want || found && !got {
				t.Fatalf("mayFoldCollide = %v, want %v (the full pass found a collision: %v)", got, tt.want, found)
			}
		})
	}
	names := []string{"a", "A", "b", "B", "caf\u00e9", "cafe\u0301", "CAF\u00c9", "note.md", "Note.md", "x-y", "X-y", "stages"}
	rng := rand.New(rand.NewPCG(1, 2))
	colliding := 0
	for round := range 3000 {
		seen := map[string]bool{}
		var paths []string
		for range 1 + rng.IntN(6) {
			var parts []string
			for range 1 + rng.IntN(3) {
				parts = append(parts, names[rng.IntN(len(names))])
			}
			p := strings.Join(parts, "/")
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
		slices.Sort(paths)
		if foldFindings(paths) == nil {
			continue
		}
		colliding++
		if !mayFoldCollide(paths) {
			t.Fatalf("round %d: %q collide, mayFoldCollide says they cannot", round, paths)
		}
	}
	t.Logf("%d of 3000 random trees collide", colliding)
	if colliding < 300 {
		t.Fatalf("only %d of the random trees collide: the property is barely exercised", colliding)
	}
}
