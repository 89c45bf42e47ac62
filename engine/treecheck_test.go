package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/thalix/tv/icm"
)

// TestWalkListing: the listing built from a version's file paths is what
// fs.WalkDir reports for the same files on disk.
func TestWalkListing(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
	}{
		{"one", []string{"a.md"}},
		{"folder before its prefix siblings", []string{"a-b/x", "a.md", "a/b", "a/c/d", "a0", "b"}},
		{"deep", []string{"s/01-a/CONTEXT.md", "s/01-a/output/.gitkeep", "s/02-b/references/r.md", "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var files []FileEntry
			for _, p := range tt.paths {
				files = append(files, FileEntry{Path: p})
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var want []icm.Entry
			err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
				if err == nil && p != "." {
					want = append(want, icm.Entry{Path: p, Type: d.Type()})
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := walkListing(files); !reflect.DeepEqual(got, want) {
				t.Fatalf("walkListing = %v\nWalkDir     = %v", got, want)
			}
		})
	}
}
