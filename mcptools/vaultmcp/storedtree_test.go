package vaultmcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
)

// TestStoredTreeTools: the scoped walk-test and commit tools judge the
// tree a commit stores: a stage whose output/ holds nothing (its .gitkeep
// deleted) is invalid in walk-test, and the commit tool refuses it.
func TestStoredTreeTools(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.grant("bob", engine.RankWrite, "demo:"+stage2)
	s := f.server(bob, stage2)
	co := filepath.Join(f.dir, "bob")
	if _, err := f.engine(bob).Checkout(ctx, "demo", co); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(co, stage2, "output", ".gitkeep")); err != nil {
		t.Fatal(err)
	}
	var d walkTestData
	callTool(t, s, "vault_workspace_walk_test", map[string]any{"checkout_dir": co}).ok(t, &d)
	if d.Valid || !slices.ContainsFunc(d.Findings, func(x icm.Finding) bool {
		return x.Rule == icm.RuleStageFiles && x.Path == stage2 && x.Severity == icm.SeverityError
	}) {
		t.Fatalf("walk-test tool: valid=%v %v; want the stage-files error", d.Valid, d.Findings)
	}
	before := refsOf(t, f.v)
	callTool(t, s, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "drop gitkeep"}).failed(t, "invalid")
	if !slices.Equal(before, refsOf(t, f.v)) {
		t.Fatal("the refused commit changed the vault")
	}
}
