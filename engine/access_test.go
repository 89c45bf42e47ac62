package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
)

var bob = &engine.Credentials{User: "bob", Email: "bob@example.com"}

func TestAccessRanks(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			v := b.open(t)
			ea, eb := newEngine(v, alice), newEngine(v, bob)
			ws := must[*engine.Created](t)(ea.InitWorkspace(ctx, "demo", ""))

			// The creator manages the vault and the workspace.
			acl := must[*engine.AccessList](t)(ea.ListAccess(ctx, ""))
			if got := grantsString(acl.Grants); got != "alice:manage:@vault alice:manage:"+ws.ID {
				t.Fatalf("grants after init: %s", got)
			}
			// Bob sees nothing and can do nothing.
			if l := must[[]engine.Info](t)(eb.Workspaces(ctx)); len(l) != 0 {
				t.Fatalf("bob sees %v", l)
			}
			if _, err := eb.Checkout(ctx, "demo", filepath.Join(t.TempDir(), "x")); !errors.Is(err, engine.ErrNotFound) {
				t.Fatalf("bob checkout: %v", err)
			}
			if _, err := eb.InitWorkspace(ctx, "bobs", ""); !isDenied(err, "write", "@vault") {
				t.Fatalf("bob init: %v", err)
			}
			if _, err := eb.GrantAccess(ctx, "bob", engine.RankManage, engine.VaultTarget); !isDenied(err, "manage", "@vault") {
				t.Fatalf("bob self-grant: %v", err)
			}

			// Read on one stage: the checkout holds just that stage.
			must[*engine.Grant](t)(ea.GrantAccess(ctx, "bob", engine.RankRead, "demo:stages/01-research"))
			co := filepath.Join(t.TempDir(), "bob")
			must[*engine.CheckoutResult](t)(eb.Checkout(ctx, "demo", co))
			filepath.Walk(co, func(p string, fi os.FileInfo, err error) error {
				rel, _ := filepath.Rel(co, p)
				if fi.Mode().IsRegular() && !strings.HasPrefix(rel, "stages/01-research/") && !strings.HasPrefix(rel, ".thalix") {
					t.Errorf("partial checkout holds %s", rel)
				}
				return nil
			})
			m := must[*engine.Manifest](t)(engine.ReadManifest(co))
			for _, f := range m.Files {
				if !strings.HasPrefix(f.Path, "stages/01-research/") {
					t.Errorf("manifest lists unreadable %s", f.Path)
				}
			}
			if p := must[*engine.Plan](t)(eb.WalkTest(ctx, co)); !p.Valid || p.Changed() {
				t.Fatalf("partial walk-test: valid=%v changed=%v %v", p.Valid, p.Changed(), p.Findings)
			}
			refsBefore := must[[]engine.Ref](t)(v.ListRefs(ctx, "refs/"))
			write(t, filepath.Join(co, "stages/02-draft/output/x.md"), "sneaky\n")
			if _, err := eb.Commit(ctx, co, "touch another stage"); !isDenied(err, "write", ws.ID) || !strings.Contains(err.Error(), "stages/02-draft/output/x.md") {
				t.Fatalf("commit outside scope: %v", err)
			}
			os.RemoveAll(filepath.Join(co, "stages/02-draft"))
			write(t, filepath.Join(co, "stages/01-research/output/x.md"), "mine\n")
			if _, err := eb.Commit(ctx, co, "read-only commit"); !isDenied(err, "write", ws.ID) {
				t.Fatalf("commit with read: %v", err)
			}
			if after := must[[]engine.Ref](t)(v.ListRefs(ctx, "refs/")); !sameRefs(refsBefore, after) {
				t.Fatal("refused commits changed refs")
			}

			// Write on that stage: the commit lands; unreadable content is carried through.
			must[*engine.Grant](t)(ea.GrantAccess(ctx, "bob", engine.RankWrite, "demo:stages/01-research"))
			res := must[*engine.CommitResult](t)(eb.Commit(ctx, co, "bob's findings"))
			full := filepath.Join(t.TempDir(), "full")
			must[*engine.CheckoutResult](t)(ea.Checkout(ctx, "demo", full))
			if got := readFile(t, filepath.Join(full, "stages/01-research/output/x.md")); got != "mine\n" {
				t.Fatalf("bob's file: %q", got)
			}
			for _, keep := range []string{"CONTEXT.md", "stages/02-draft/CONTEXT.md", "AGENTS.md"} {
				if _, err := os.Stat(filepath.Join(full, keep)); err != nil {
					t.Fatalf("unreadable %s lost by bob's commit %s: %v", keep, res.Version.Short(), err)
				}
			}

			// Revoking write makes the next commit fail again.
			must[*engine.Grant](t)(ea.GrantAccess(ctx, "bob", engine.RankRead, "demo:stages/01-research"))
			write(t, filepath.Join(co, "stages/01-research/output/y.md"), "more\n")
			if _, err := eb.Commit(ctx, co, "after revoke"); !errors.Is(err, engine.ErrPermission) {
				t.Fatalf("after downgrade: %v", err)
			}
			if err := ea.RevokeAccess(ctx, "bob", "demo:stages/01-research"); err != nil {
				t.Fatal(err)
			}
			if l := must[[]engine.Info](t)(eb.Workspaces(ctx)); len(l) != 0 {
				t.Fatalf("bob still sees %v", l)
			}
			// Template import needs manage on the vault; the last manager stays.
			if _, err := eb.ImportTemplate(ctx, full, "t"); !errors.Is(err, engine.ErrPermission) {
				t.Fatalf("bob template import: %v", err)
			}
			if err := ea.RevokeAccess(ctx, "alice", engine.VaultTarget); !errors.Is(err, engine.ErrConflict) {
				t.Fatalf("revoking the last manager: %v", err)
			}
			// The access history is the audit trail.
			eff := must[*engine.Effective](t)(ea.EffectiveRank(ctx, ws.ID, "stages/01-research"))
			if eff.Rank != engine.RankManage || eff.AccessVersion.IsZero() {
				t.Fatalf("alice effective: %+v", eff)
			}
		})
	}
}

func isDenied(err error, need, target string) bool {
	var d *engine.DeniedError
	return errors.As(err, &d) && d.Need.String() == need && d.Target == target && errors.Is(err, engine.ErrPermission)
}

func grantsString(gs []engine.Grant) string {
	var parts []string
	for _, g := range gs {
		parts = append(parts, g.User+":"+g.Rank.String()+":"+g.Target())
	}
	return strings.Join(parts, " ")
}

func sameRefs(a, b []engine.Ref) bool {
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
