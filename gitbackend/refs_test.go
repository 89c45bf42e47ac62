package gitbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
)

func mustRef(t *testing.T, v *Vault, name string) engine.Hash {
	t.Helper()
	h, err := v.Ref(context.Background(), name)
	if err != nil {
		t.Fatalf("Ref(%s): %v", name, err)
	}
	return h
}

func wantRef(t *testing.T, v *Vault, name string, want engine.Hash) {
	t.Helper()
	h, err := v.Ref(context.Background(), name)
	if want.IsZero() {
		if !errors.Is(err, engine.ErrRefNotFound) || !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("Ref(%s) = %s, %v; want ErrRefNotFound", name, h, err)
		}
		return
	}
	if err != nil || h != want {
		t.Fatalf("Ref(%s) = %s, %v; want %s", name, h, err, want)
	}
}

func TestRefTransactions(t *testing.T) {
	ctx := context.Background()
	const (
		refA = "refs/tv/workspaces/ws_a"
		refB = "refs/tv/workspaces/ws_b"
		refC = "refs/tv/templates/tpl_c"
	)
	tests := []struct {
		name     string
		diskOnly bool
		run      func(t *testing.T, v *Vault, c1, c2, c3 engine.Hash)
	}{
		{"create-if-absent refuses an existing ref", false, func(t *testing.T, v *Vault, c1, c2, _ engine.Hash) {
			if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: refA, New: c1}); err != nil {
				t.Fatal(err)
			}
			wantRef(t, v, refA, c1)
			err := v.UpdateRefs(ctx, engine.RefUpdate{Name: refA, New: c2})
			if !errors.Is(err, engine.ErrRefStale) || !errors.Is(err, engine.ErrConflict) {
				t.Fatalf("second create: %v, want ErrRefStale", err)
			}
			for _, s := range []string{refA, c1.String(), "absent"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			wantRef(t, v, refA, c1)
		}},
		{"compare-and-swap refuses a stale old value", false, func(t *testing.T, v *Vault, c1, c2, c3 engine.Hash) {
			mustUpdate(t, v, engine.RefUpdate{Name: refA, New: c1})
			mustUpdate(t, v, engine.RefUpdate{Name: refA, Old: c1, New: c2})
			err := v.UpdateRefs(ctx, engine.RefUpdate{Name: refA, Old: c1, New: c3})
			if !errors.Is(err, engine.ErrRefStale) {
				t.Fatalf("stale CAS: %v, want ErrRefStale", err)
			}
			for _, s := range []string{refA, c1.String(), c2.String()} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			wantRef(t, v, refA, c2)
		}},
		{"update of a missing ref is stale", false, func(t *testing.T, v *Vault, c1, c2, _ engine.Hash) {
			err := v.UpdateRefs(ctx, engine.RefUpdate{Name: refA, Old: c1, New: c2})
			if !errors.Is(err, engine.ErrRefStale) {
				t.Fatalf("got %v, want ErrRefStale", err)
			}
			wantRef(t, v, refA, engine.ZeroHash)
		}},
		{"multi-ref transaction with one stale ref updates none", false, func(t *testing.T, v *Vault, c1, c2, c3 engine.Hash) {
			mustUpdate(t, v,
				engine.RefUpdate{Name: refA, New: c1},
				engine.RefUpdate{Name: refB, New: c1},
				engine.RefUpdate{Name: refC, New: c1})
			err := v.UpdateRefs(ctx,
				engine.RefUpdate{Name: refC, Old: c1, New: c2},
				engine.RefUpdate{Name: refB, Old: c3, New: c2}, // stale
				engine.RefUpdate{Name: refA, Old: c1, New: c2},
				engine.RefUpdate{Name: "refs/tv/workspaces/ws_new", New: c2})
			if !errors.Is(err, engine.ErrRefStale) || !strings.Contains(err.Error(), refB) {
				t.Fatalf("got %v, want ErrRefStale naming %s", err, refB)
			}
			wantRef(t, v, refA, c1)
			wantRef(t, v, refB, c1)
			wantRef(t, v, refC, c1)
			wantRef(t, v, "refs/tv/workspaces/ws_new", engine.ZeroHash)
			// The same transaction with the right old value applies fully.
			mustUpdate(t, v,
				engine.RefUpdate{Name: refC, Old: c1, New: c2},
				engine.RefUpdate{Name: refB, Old: c1, New: c3},
				engine.RefUpdate{Name: refA, Old: c1, New: engine.ZeroHash})
			wantRef(t, v, refA, engine.ZeroHash)
			wantRef(t, v, refB, c3)
			wantRef(t, v, refC, c2)
		}},
		{"verify steps check without writing", false, func(t *testing.T, v *Vault, c1, c2, c3 engine.Hash) {
			mustUpdate(t, v, engine.RefUpdate{Name: refA, New: c1}, engine.RefUpdate{Name: refB, New: c1})
			// A stale verify stops the whole transaction.
			err := v.UpdateRefs(ctx,
				engine.RefUpdate{Name: refA, Old: c1, New: c2},
				engine.RefUpdate{Name: refB, Old: c2, Verify: true})
			if !errors.Is(err, engine.ErrRefStale) || !strings.Contains(err.Error(), refB) {
				t.Fatalf("stale verify: %v", err)
			}
			wantRef(t, v, refA, c1)
			// A verify of an absent ref expects it absent; New is ignored.
			mustUpdate(t, v,
				engine.RefUpdate{Name: refA, Old: c1, New: c2},
				engine.RefUpdate{Name: refB, Old: c1, New: c3, Verify: true},
				engine.RefUpdate{Name: refC, Verify: true})
			wantRef(t, v, refA, c2)
			wantRef(t, v, refB, c1)
			wantRef(t, v, refC, engine.ZeroHash)
			if _, err := os.Stat(filepath.Join(v.Path(), refB+".lock")); v.Path() != "" && err == nil {
				t.Fatal("verify left its lock file")
			}
		}},
		{"delete a loose ref", false, func(t *testing.T, v *Vault, c1, c2, _ engine.Hash) {
			mustUpdate(t, v, engine.RefUpdate{Name: refA, New: c1}, engine.RefUpdate{Name: refB, New: c1})
			if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: refA, Old: c2}); !errors.Is(err, engine.ErrRefStale) {
				t.Fatalf("stale delete: %v, want ErrRefStale", err)
			}
			wantRef(t, v, refA, c1)
			mustUpdate(t, v, engine.RefUpdate{Name: refA, Old: c1})
			wantRef(t, v, refA, engine.ZeroHash)
			wantRef(t, v, refB, c1)
			refs, err := v.ListRefs(ctx, "refs/tv/workspaces/")
			if err != nil || len(refs) != 1 || refs[0].Name != refB {
				t.Fatalf("ListRefs after delete = %v, %v", refs, err)
			}
			// Re-create after delete.
			mustUpdate(t, v, engine.RefUpdate{Name: refA, New: c2})
			wantRef(t, v, refA, c2)
		}},
		{"delete a packed ref", true, func(t *testing.T, v *Vault, c1, c2, _ engine.Hash) {
			mustUpdate(t, v, engine.RefUpdate{Name: refA, New: c1}, engine.RefUpdate{Name: refB, New: c2}, engine.RefUpdate{Name: refC, New: c1})
			git(t, v.Path(), "", "pack-refs", "--all")
			if _, err := os.Stat(v.refPath(refA)); !os.IsNotExist(err) {
				t.Fatalf("after pack-refs the loose ref still exists: %v", err)
			}
			wantRef(t, v, refA, c1)
			// Packed-only delete; and a ref both packed and loose.
			mustUpdate(t, v, engine.RefUpdate{Name: refB, Old: c2, New: c1})
			mustUpdate(t, v, engine.RefUpdate{Name: refA, Old: c1}, engine.RefUpdate{Name: refB, Old: c1})
			wantRef(t, v, refA, engine.ZeroHash)
			wantRef(t, v, refB, engine.ZeroHash)
			wantRef(t, v, refC, c1)
			if out := git(t, v.Path(), "", "for-each-ref", "--format=%(refname)", "refs/tv/workspaces", "refs/tv/templates"); out != refC {
				t.Fatalf("git for-each-ref after delete: %q", out)
			}
			packed, _ := os.ReadFile(filepath.Join(v.Path(), "packed-refs"))
			if strings.Contains(string(packed), refA) || !strings.HasPrefix(string(packed), "# pack-refs with:") {
				t.Fatalf("packed-refs after delete:\n%s", packed)
			}
			if _, err := os.Stat(filepath.Join(v.Path(), "packed-refs.lock")); !os.IsNotExist(err) {
				t.Fatalf("packed-refs.lock left behind: %v", err)
			}
			fsckClean(t, v.Path())
		}},
		{"a pre-existing lock file is ErrRefLocked and stays", true, func(t *testing.T, v *Vault, c1, c2, _ engine.Hash) {
			mustUpdate(t, v, engine.RefUpdate{Name: refA, New: c1}, engine.RefUpdate{Name: refB, New: c1})
			lock := v.refPath(refB) + ".lock"
			if err := os.WriteFile(lock, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			// refA sorts first: its lock is taken, then refB's fails.
			err := v.UpdateRefs(ctx, engine.RefUpdate{Name: refA, Old: c1, New: c2}, engine.RefUpdate{Name: refB, Old: c1, New: c2})
			if !errors.Is(err, engine.ErrRefLocked) || !errors.Is(err, engine.ErrConflict) {
				t.Fatalf("got %v, want ErrRefLocked", err)
			}
			if !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), "File exists") {
				t.Errorf("error %q does not name the lock file %s", err, lock)
			}
			if _, err := os.Stat(lock); err != nil {
				t.Fatalf("the foreign lock file was removed: %v", err)
			}
			if _, err := os.Stat(v.refPath(refA) + ".lock"); !os.IsNotExist(err) {
				t.Fatalf("our own lock on %s was left behind: %v", refA, err)
			}
			wantRef(t, v, refA, c1)
			wantRef(t, v, refB, c1)
			// Reads are not blocked by a lock.
			if refs, err := v.ListRefs(ctx, "refs/tv/workspaces/"); err != nil || len(refs) != 2 {
				t.Fatalf("ListRefs with a lock present = %v, %v", refs, err)
			}
			os.Remove(lock)
			mustUpdate(t, v, engine.RefUpdate{Name: refB, Old: c1, New: c2})
			wantRef(t, v, refB, c2)
		}},
		{"a held packed-refs.lock blocks deleting a packed ref", true, func(t *testing.T, v *Vault, c1, _, _ engine.Hash) {
			mustUpdate(t, v, engine.RefUpdate{Name: refA, New: c1})
			git(t, v.Path(), "", "pack-refs", "--all")
			lock := filepath.Join(v.Path(), "packed-refs.lock")
			if err := os.WriteFile(lock, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			err := v.UpdateRefs(ctx, engine.RefUpdate{Name: refA, Old: c1})
			if !errors.Is(err, engine.ErrRefLocked) || !strings.Contains(err.Error(), lock) {
				t.Fatalf("got %v, want ErrRefLocked naming %s", err, lock)
			}
			if _, err := os.Stat(lock); err != nil {
				t.Fatal("packed-refs.lock was removed")
			}
			wantRef(t, v, refA, c1)
		}},
		{"invalid ref names are refused", false, func(t *testing.T, v *Vault, c1, _, _ engine.Hash) {
			bad := []string{"", "HEAD", "refs/", "refs", "tv/ws", "refs/tv/", "refs//x", "refs/tv/a..b", "refs/tv/.hidden",
				"refs/tv/x.lock", "refs/tv/a.lock/b", "refs/tv/x.", "refs/tv/a b", "refs/tv/a~1", "refs/tv/a^", "refs/tv/a:b",
				"refs/tv/a?", "refs/tv/a*", "refs/tv/a[", "refs/tv/a\\b", "refs/tv/a@{1}", "refs/tv/a\x01", "refs/tv/a\x7f"}
			for _, name := range bad {
				err := v.UpdateRefs(ctx, engine.RefUpdate{Name: name, New: c1})
				if !errors.Is(err, engine.ErrUsage) {
					t.Errorf("UpdateRefs(%q) = %v, want ErrUsage", name, err)
				}
				if _, err := v.Ref(ctx, name); !errors.Is(err, engine.ErrUsage) {
					t.Errorf("Ref(%q) = %v, want ErrUsage", name, err)
				}
			}
			for _, name := range []string{"refs/tv/workspaces/ws_0123abcd", "refs/heads/main", "refs/tv/a-b_c.d", "refs/tv/@", "refs/tv/ünïcode"} {
				mustUpdate(t, v, engine.RefUpdate{Name: name, New: c1})
				wantRef(t, v, name, c1)
			}
			if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: refA, New: c1}, engine.RefUpdate{Name: refA, New: c1}); !errors.Is(err, engine.ErrUsage) {
				t.Errorf("duplicate ref in one transaction: %v, want ErrUsage", err)
			}
		}},
		{"a ref and a ref below it cannot both exist", false, func(t *testing.T, v *Vault, c1, _, _ engine.Hash) {
			mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/x", New: c1})
			if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/x/y", New: c1}); !errors.Is(err, engine.ErrConflict) {
				t.Errorf("create refs/tv/x/y below refs/tv/x: %v, want ErrConflict", err)
			}
			mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/p/q", New: c1})
			if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/p", New: c1}); !errors.Is(err, engine.ErrConflict) {
				t.Errorf("create refs/tv/p above refs/tv/p/q: %v, want ErrConflict", err)
			}
			wantRef(t, v, "refs/tv/x", c1)
			wantRef(t, v, "refs/tv/p/q", c1)
			wantRef(t, v, "refs/tv/x/y", engine.ZeroHash)
			// After deleting refs/tv/p/q, refs/tv/p can be created.
			mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/p/q", Old: c1})
			mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/p", New: c1})
			wantRef(t, v, "refs/tv/p", c1)
		}},
		{"list refs: sorted, prefix-filtered, loose over packed", false, func(t *testing.T, v *Vault, c1, c2, _ engine.Hash) {
			names := []string{"refs/tv/workspaces/ws_b", "refs/tv/templates/tpl_1", "refs/tv/workspaces/ws_a", "refs/tv/workspacesX", "refs/heads/main"}
			for _, n := range names {
				mustUpdate(t, v, engine.RefUpdate{Name: n, New: c1})
			}
			if v.Path() != "" {
				git(t, v.Path(), "", "pack-refs", "--all")
				// Loose value newer than the packed one wins.
				mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_b", Old: c1, New: c2})
				mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_c", New: c2})
			} else {
				mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_b", Old: c1, New: c2})
				mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_c", New: c2})
			}
			got, err := v.ListRefs(ctx, "refs/tv/workspaces/")
			if err != nil {
				t.Fatal(err)
			}
			want := []engine.Ref{{Name: "refs/tv/workspaces/ws_a", Hash: c1}, {Name: "refs/tv/workspaces/ws_b", Hash: c2}, {Name: "refs/tv/workspaces/ws_c", Hash: c2}}
			if !equalRefs(got, want) {
				t.Fatalf("ListRefs(workspaces/) = %v, want %v", got, want)
			}
			got, _ = v.ListRefs(ctx, "refs/tv/workspaces")
			if len(got) != 4 || got[3].Name != "refs/tv/workspacesX" {
				t.Fatalf("ListRefs(refs/tv/workspaces) = %v", got)
			}
			got, _ = v.ListRefs(ctx, "")
			got = slices.DeleteFunc(got, func(r engine.Ref) bool { return r.Name == VaultIDRef })
			if len(got) != 6 || got[0].Name != "refs/heads/main" {
				t.Fatalf("ListRefs(\"\") = %v", got)
			}
			got, err = v.ListRefs(ctx, "refs/tv/nothing/")
			if err != nil || got == nil || len(got) != 0 {
				t.Fatalf("ListRefs with no match = %#v, %v; want an empty slice", got, err)
			}
		}},
		{"a ref cannot point at a missing object", false, func(t *testing.T, v *Vault, c1, _, _ engine.Hash) {
			missing := engine.Hash{0xba, 0xd1}
			err := v.UpdateRefs(ctx, engine.RefUpdate{Name: refA, New: c1}, engine.RefUpdate{Name: refB, New: missing})
			if !errors.Is(err, engine.ErrObjectNotFound) || !strings.Contains(err.Error(), missing.String()) {
				t.Fatalf("got %v, want ErrObjectNotFound naming %s", err, missing)
			}
			wantRef(t, v, refA, engine.ZeroHash)
			wantRef(t, v, refB, engine.ZeroHash)
		}},
		{"missing ref is ErrRefNotFound", false, func(t *testing.T, v *Vault, _, _, _ engine.Hash) {
			wantRef(t, v, refA, engine.ZeroHash)
		}},
	}
	for _, kind := range vaultKinds {
		t.Run(kind.name, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					v := kind.new(t)
					if tc.diskOnly && v.Path() == "" {
						t.Skip("lock files and packed-refs exist only on disk")
					}
					c1 := mustCommit(t, v, "one\n", engine.ZeroHash)
					c2 := mustCommit(t, v, "two\n", c1)
					c3 := mustCommit(t, v, "three\n", c2)
					tc.run(t, v, c1, c2, c3)
					if v.Path() != "" {
						locks, _ := filepath.Glob(filepath.Join(v.Path(), "refs", "*", "*", "*.lock"))
						if len(locks) > 0 && !strings.Contains(tc.name, "lock") {
							t.Errorf("lock files left behind: %v", locks)
						}
					}
				})
			}
		})
	}
}

func mustUpdate(t *testing.T, v *Vault, ups ...engine.RefUpdate) {
	t.Helper()
	if err := v.UpdateRefs(context.Background(), ups...); err != nil {
		t.Fatalf("UpdateRefs(%v): %v", ups, err)
	}
}

func equalRefs(a, b []engine.Ref) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRefsInteropWithGit: refs written by tv are what git reads and the
// other way round, including packed and symbolic refs.
func TestRefsInteropWithGit(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	c1 := mustCommit(t, v, "one\n", engine.ZeroHash)
	c2 := mustCommit(t, v, "two\n", c1)
	mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_x", New: c1})
	if got := git(t, v.Path(), "", "rev-parse", "refs/tv/workspaces/ws_x"); got != c1.String() {
		t.Fatalf("git rev-parse = %s, want %s", got, c1)
	}
	git(t, v.Path(), "", "update-ref", "refs/tv/workspaces/ws_x", c2.String(), c1.String())
	wantRef(t, v, "refs/tv/workspaces/ws_x", c2)
	git(t, v.Path(), "", "update-ref", "refs/heads/main", c1.String())
	wantRef(t, v, "refs/heads/main", c1)
	git(t, v.Path(), "", "symbolic-ref", "refs/tv/alias", "refs/heads/main")
	wantRef(t, v, "refs/tv/alias", c1)
	if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/alias", Old: c1, New: c2}); !errors.Is(err, engine.ErrUsage) {
		t.Fatalf("update through a symbolic ref: %v, want ErrUsage", err)
	}
	if got := git(t, v.Path(), "", "symbolic-ref", "refs/tv/alias"); got != "refs/heads/main" {
		t.Fatalf("symbolic ref changed: %q", got)
	}
	wantRef(t, v, "refs/heads/main", c1)
	if got := git(t, v.Path(), "", "log", "--all", "--topo-order", "--format=%s"); got != "two\none" {
		t.Fatalf("git log --all = %q", got)
	}
	// Loose file content is exactly git's: hex + newline.
	data, err := os.ReadFile(v.refPath("refs/tv/workspaces/ws_x"))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != c2.String()+"\n" {
		t.Fatalf("ref file = %q", data)
	}
	mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_x", Old: c2, New: c1})
	if got := git(t, v.Path(), "", "rev-parse", "refs/tv/workspaces/ws_x"); got != c1.String() {
		t.Fatalf("git rev-parse after tv update = %s, want %s", got, c1)
	}
	// A corrupt ref file is an error, never "missing".
	if err := os.WriteFile(v.refPath("refs/tv/workspaces/ws_bad"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Ref(ctx, "refs/tv/workspaces/ws_bad"); err == nil || errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("empty ref file: %v, want a corruption error", err)
	}
	fsckCleanIgnoring(t, v.Path(), "ws_bad")
}

// fsckCleanIgnoring removes a deliberately broken ref before fsck.
func fsckCleanIgnoring(t *testing.T, gitDir, ref string) {
	t.Helper()
	os.Remove(filepath.Join(gitDir, "refs", "tv", "workspaces", ref))
	fsckClean(t, gitDir)
}

// TestListLooseRefs: listing walks nested folders, follows a symbolic
// ref, skips lock files and names git would refuse, merges packed-refs
// under loose ones, and reports a loose ref over MaxLooseRefBytes as
// corrupt, naming it and the limit.
func TestListLooseRefs(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	c1 := mustCommit(t, v, "one\n", engine.ZeroHash)
	c2 := mustCommit(t, v, "two\n", c1)
	mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_a", New: c1})
	mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/deep/er/ws_b", New: c2})
	git(t, v.Path(), "", "symbolic-ref", "refs/tv/alias", "refs/tv/workspaces/ws_a")
	for name, content := range map[string]string{
		"refs/tv/workspaces/ws_c.lock": c2.String() + "\n",
		"refs/tv/workspaces/bad..name": c2.String() + "\n",
	} {
		if err := os.WriteFile(filepath.Join(v.Path(), filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(v.Path(), "packed-refs"), []byte(c2.String()+" refs/tv/packed/ws_p\n"+c2.String()+" refs/tv/workspaces/ws_a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refs, err := v.ListRefs(ctx, "refs/tv/")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range refs {
		if r.Name != "refs/tv/vault" { // the vault's id, written at creation
			got = append(got, r.Name+"="+r.Hash.String()[:7])
		}
	}
	want := []string{"refs/tv/alias=" + c1.String()[:7], "refs/tv/deep/er/ws_b=" + c2.String()[:7], "refs/tv/packed/ws_p=" + c2.String()[:7], "refs/tv/workspaces/ws_a=" + c1.String()[:7]}
	if !slices.Equal(got, want) {
		t.Fatalf("ListRefs = %v\nwant %v", got, want)
	}
	big := filepath.Join(v.Path(), "refs", "tv", "workspaces", "ws_big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("0"), MaxLooseRefBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := v.ListRefs(ctx, "refs/tv/"); err == nil || !strings.Contains(err.Error(), "refs/tv/workspaces/ws_big") || !strings.Contains(err.Error(), fmt.Sprint(MaxLooseRefBytes)) {
		t.Fatalf("an oversized ref: %v", err)
	}
}

// TestListLooseRefsDanglingSymref: a symbolic ref whose target does not
// exist is left out of the listing, not listed with a zero id.
func TestListLooseRefsDanglingSymref(t *testing.T) {
	v := newDiskVault(t)
	mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_a", New: mustCommit(t, v, "one\n", engine.ZeroHash)})
	git(t, v.Path(), "", "symbolic-ref", "refs/tv/dangling", "refs/tv/nowhere")
	refs, err := v.ListRefs(context.Background(), "refs/tv/")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if r.Name == "refs/tv/dangling" || r.Hash.IsZero() {
			t.Fatalf("listed %s = %s", r.Name, r.Hash)
		}
	}
}
