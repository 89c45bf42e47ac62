//go:build unix

package icm

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestValidateDirFS runs Validate over a real directory through os.DirFS,
// whose walk reports symlinks and FIFOs by their own type: Validate flags
// them and never follows or opens them.
func TestValidateDirFS(t *testing.T) {
	dir := t.TempDir()
	for p, f := range baseFS() {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Validate(os.DirFS(dir))
	if err != nil || len(got) != 0 {
		t.Fatalf("clean tree: %v\n%s", err, dump(got))
	}

	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("{{SECRET}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A symlinked folder pointing outside, a symlinked stage contract, a FIFO.
	if err := os.Symlink(outside, filepath.Join(dir, "shared")); err != nil {
		t.Fatal(err)
	}
	ctx := filepath.Join(dir, "stages", "02-draft", "CONTEXT.md")
	if err := os.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "stages", "01-research", "CONTEXT.md"), ctx); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "_config", "pipe.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got, err = Validate(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	var gotW []want
	for _, f := range got {
		gotW = append(gotW, want{f.Rule, f.Path, f.Line})
	}
	wantW := []want{
		{RuleFileType, "_config/pipe.md", 0},
		{RuleFileType, "shared", 0},
		{RuleFileType, c2, 0},
		{RuleStageFiles, c2, 0},
	}
	if !slices.Equal(gotW, wantW) {
		t.Fatalf("findings:\n%s\nwant %v", dump(got), wantW)
	}
}
