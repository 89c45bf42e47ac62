package engine

import (
	"fmt"
	"testing"

	"github.com/thalix/tv/icm"
)

// TestScannedFactsLookup: facts gathered folder by folder (listing order,
// which is not byte order: "a/x.md" is listed before "a.md") are found by
// path once sorted, and a path the scan did not read is not.
func TestScannedFactsLookup(t *testing.T) {
	paths := []string{"z.md", "a/x.md", "a/b/y.md", "a.md", "a-b.md", "A.md", "stages/01/CONTEXT.md"}
	var f scannedFacts
	for i, p := range paths {
		f = append(f, pathFacts{path: p, facts: icm.MarkdownFacts{Lines: i + 1}})
	}
	f.sort()
	for i, p := range paths {
		t.Run(p, func(t *testing.T) {
			got, ok := f.Facts(-1, p)
			if !ok || got.Lines != i+1 {
				t.Fatalf("Facts(%q) = %+v, %v; want Lines %d, true", p, got, ok, i+1)
			}
		})
	}
	for _, p := range []string{"", "a", "a/x", "b.md", "stages/01/context.md", fmt.Sprint(paths)} {
		if got, ok := f.Facts(-1, p); ok {
			t.Errorf("Facts(%q) = %+v, true; the scan read no such file", p, got)
		}
	}
	var none scannedFacts
	if _, ok := none.Facts(0, "a.md"); ok {
		t.Error("an empty scannedFacts found a file")
	}
}
