package gitbackend

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/thalix/tv/engine"
)

// A verify-only step takes no lock: a commit binds itself to the access
// ref's value even while another writer holds that ref's lock, and a
// stale value still refuses the whole transaction.
func TestVerifyTakesNoLock(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	c1 := mustCommit(t, v, "one\n", engine.ZeroHash)
	c2 := mustCommit(t, v, "two\n", c1)
	const ws, access = "refs/tv/workspaces/ws_a", "refs/tv/access"
	mustUpdate(t, v, engine.RefUpdate{Name: ws, New: c1}, engine.RefUpdate{Name: access, New: c1})
	lock := v.refPath(access) + ".lock"
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, v, engine.RefUpdate{Name: ws, Old: c1, New: c2}, engine.RefUpdate{Name: access, Old: c1, Verify: true})
	wantRef(t, v, ws, c2)
	err := v.UpdateRefs(ctx, engine.RefUpdate{Name: ws, Old: c2, New: c1}, engine.RefUpdate{Name: access, Old: c2, Verify: true})
	if !errors.Is(err, engine.ErrRefStale) {
		t.Fatalf("stale verify under a held lock: %v, want ErrRefStale", err)
	}
	wantRef(t, v, ws, c2)
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("the other writer's lock was touched: %v", err)
	}
	// After pack-refs the verified value comes from packed-refs.
	os.Remove(lock)
	git(t, v.Path(), "", "pack-refs", "--all")
	mustUpdate(t, v, engine.RefUpdate{Name: ws, Old: c2, New: c1}, engine.RefUpdate{Name: access, Old: c1, Verify: true})
	fsckClean(t, v.Path())
}
