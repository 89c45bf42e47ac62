package gitbackend

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend/nettransport"
)

// TestMirroredFileChecked: the list of mirrored refs, written without an
// fsync, is trusted only whole: a copy a crash cut short (or an older
// tv's, without the checksum) reads as empty, so every ref is compared
// with the cache again, and the next mirror writes it whole.
func TestMirroredFileChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRemoteFixture(t)
	a := f.mustOpen(t)
	head := writeFileCommit(t, a, engine.ZeroHash, "a.md", "a\n")
	if err := a.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_a", New: head}); err != nil {
		t.Fatal(err)
	}
	loc, err := ParseLocation(f.url)
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	open := func() *Remote {
		r, err := OpenRemote(ctx, loc, RemoteOptions{Transport: nettransport.New(), CacheDir: cacheDir, Credentials: staticCreds{"alice", "s3cr3t-token"}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := open()
	if _, err := r.ListRefs(ctx, "refs/tv/workspaces/"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.cache.path, mirroredFile)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.readMirrored(); got["refs/tv/workspaces/ws_a"] != head || got[VaultIDRef].IsZero() {
		t.Fatalf("the whole file reads as %v", got)
	}
	for _, cut := range []int{1, 10, len(whole) - 1} {
		if err := os.WriteFile(path, whole[:len(whole)-cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if got := r.readMirrored(); len(got) != 0 {
			t.Fatalf("cut by %d bytes, the file still reads as %v", cut, got)
		}
	}
	r = open()
	if _, err := r.ListRefs(ctx, "refs/tv/workspaces/"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(whole) {
		t.Fatalf("the next mirror wrote %q, want %q (%v)", got, whole, err)
	}
}
