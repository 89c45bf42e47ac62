package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/thalix/tv/engine"
)

// TestLogCounts: each version's added, modified and deleted file counts,
// found by walking tree objects (whole folders added or deleted are
// counted, not listed): the first version counts every file of the
// template.
func TestLogCounts(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	ws := must[*engine.Created](t)(e.InitWorkspace(ctx, "demo", ""))
	d := filepath.Join(t.TempDir(), "co")
	must[*engine.CheckoutResult](t)(e.Checkout(ctx, "demo", d))
	deep := "stages/01-research/references/a"
	steps := []struct {
		name          string
		change        func(t *testing.T)
		add, mod, del int
	}{
		{"add a nested folder", func(t *testing.T) {
			for i := range 7 {
				write(t, filepath.Join(d, deep, fmt.Sprintf("b%d/c/f%d.md", i%3, i)), "x\n")
			}
		}, 7, 0, 0},
		{"edit one, add one", func(t *testing.T) {
			write(t, filepath.Join(d, deep, "b0/c/f0.md"), "y\n")
			write(t, filepath.Join(d, deep, "b1/new.md"), "n\n")
		}, 1, 1, 0},
		{"a file replaces a folder", func(t *testing.T) {
			if err := os.RemoveAll(filepath.Join(d, deep, "b2")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(d, deep, "b2"), "now a file\n")
		}, 0, 1, 1},
		{"delete a folder whole", func(t *testing.T) {
			if err := os.RemoveAll(filepath.Join(d, deep)); err != nil {
				t.Fatal(err)
			}
		}, 0, 0, 7},
	}
	for _, s := range steps {
		s.change(t)
		must[*engine.CommitResult](t)(e.Commit(ctx, d, s.name))
	}
	log := must[*engine.LogResult](t)(e.Log(ctx, d, 100))
	if len(log.Versions) != len(steps)+1 {
		t.Fatalf("%d versions, want %d", len(log.Versions), len(steps)+1)
	}
	for i, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			v := log.Versions[len(steps)-1-i]
			if v.Added != s.add || v.Modified != s.mod || v.Deleted != s.del {
				t.Errorf("+%d ~%d -%d, want +%d ~%d -%d", v.Added, v.Modified, v.Deleted, s.add, s.mod, s.del)
			}
		})
	}
	if first := log.Versions[len(steps)]; first.Added != ws.Files || first.Modified+first.Deleted != 0 {
		t.Errorf("first version: +%d ~%d -%d, want +%d (every file of the template)", first.Added, first.Modified, first.Deleted, ws.Files)
	}
}

// TestBuildTreeIsApplyChanges: an import's trees, built from its sorted
// files, are those applyChanges writes on an empty base.
func TestBuildTreeIsApplyChanges(t *testing.T) {
	ctx := context.Background()
	id := engine.Hash{1}
	tests := []struct {
		name  string
		paths []string
	}{
		{"one file", []string{"a"}},
		{"siblings sharing a prefix", []string{"a-b", "a/b", "a/c/d", "a.c", "a0", "b/a"}},
		{"deep", []string{"x/y/z/1", "x/y/z/2", "x/y/3", "x/4", "5"}},
		{"many", func() []string {
			var ps []string
			for i := range 300 {
				ps = append(ps, fmt.Sprintf("s%d/t%d/f%d.md", i%7, i%13, i))
			}
			return ps
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]engine.Hash{}
			for _, p := range tt.paths {
				files[p] = id
			}
			built, applied, err := engine.TreesForTest(ctx, backends()[1].open(t), files)
			if err != nil {
				t.Fatal(err)
			}
			if built != applied {
				t.Errorf("buildTree %s, applyChanges %s", built, applied)
			}
		})
	}
}
