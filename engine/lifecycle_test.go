package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
)

// TestWalkTestValidMeansCommitAccepts: over a table of edits, walk-test's
// valid is exactly whether commit accepts.
func TestWalkTestValidMeansCommitAccepts(t *testing.T) {
	ctx := context.Background()
	edits := []struct {
		name string
		edit func(t *testing.T, dir string)
	}{
		{"delete output gitkeep", func(t *testing.T, d string) { os.Remove(filepath.Join(d, draftGitkeep)) }},
		{"empty new folder", func(t *testing.T, d string) { os.MkdirAll(filepath.Join(d, "shared", "empty"), 0o755) }},
		{"empty stage folder", func(t *testing.T, d string) { os.MkdirAll(filepath.Join(d, "stages", "03-x"), 0o755) }},
		{"edit voice", func(t *testing.T, d string) { write(t, filepath.Join(d, "_config", "voice.md"), "calm\n") }},
		{"replace gitkeep", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, draftGitkeep))
			write(t, filepath.Join(d, "stages", "02-draft", "output", "draft.md"), "text\n")
		}},
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(backends()[1].open(t), alice)
			co := setup(t, e, 1)[0]
			tc.edit(t, co)
			p := must[*engine.Plan](t)(e.WalkTest(ctx, co))
			_, err := e.Commit(ctx, co, tc.name)
			if p.Valid != (err == nil) {
				t.Fatalf("walk-test valid=%v but commit returned %v (findings %v)", p.Valid, err, p.Findings)
			}
		})
	}
}

// TestBehindAfterReapply: after c2's commit is re-applied on top of c1's,
// c2 either holds c1's voice.md or walk-test reports it behind.
func TestBehindAfterReapply(t *testing.T) {
	ctx := context.Background()
	forEachBackend(t, func(t *testing.T, e *engine.Engine, v engine.Vault) {
		dirs := setup(t, e, 2)
		write(t, filepath.Join(dirs[0], "_config", "voice.md"), "voice from c1\n")
		must[*engine.CommitResult](t)(e.Commit(ctx, dirs[0], "c1 voice"))
		write(t, filepath.Join(dirs[1], "shared", "notes.md"), "notes from c2\n")
		if res := must[*engine.CommitResult](t)(e.Commit(ctx, dirs[1], "c2 notes")); !res.Behind {
			t.Fatalf("commit result does not say the checkout is behind: %+v", res)
		}
		checkBehindAfterReapply(t, e, dirs[1], readFile(t, filepath.Join(dirs[1], "_config", "voice.md")) == "voice from c1\n")
	})
}

// checkBehindAfterReapply: after c2's re-applied commit, walk-test says
// what c2 lacks unless c2 received it.
func checkBehindAfterReapply(t *testing.T, e *engine.Engine, c2 string, received bool) {
	t.Helper()
	p := must[*engine.Plan](t)(e.WalkTest(context.Background(), c2))
	switch {
	case received && p.Behind != nil:
		t.Fatalf("c2 received the head but walk-test says behind: %+v", p.Behind)
	case !received && (p.Behind == nil || !slices.Contains(p.Behind.Files, "_config/voice.md") || p.Behind.Versions != 2):
		t.Fatalf("behind = %+v; want 2 versions naming _config/voice.md", p.Behind)
	}
}

// TestBehindDetection: a checkout whose workspace moved on is reported
// behind by the right count and files; one at the head is not; a
// conflict (changed on both sides) is an error finding.
func TestBehindDetection(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[1].open(t), alice)
	dirs := setup(t, e, 2)
	if p := must[*engine.Plan](t)(e.WalkTest(ctx, dirs[1])); p.Behind != nil {
		t.Fatalf("fresh checkout behind: %+v", p.Behind)
	}
	for i, f := range []string{"_config/voice.md", "CONTEXT.md", "_config/voice.md"} {
		write(t, filepath.Join(dirs[0], f), strings.Repeat("x", i+1)+"\n# Task Routing\n")
		must[*engine.CommitResult](t)(e.Commit(ctx, dirs[0], "edit"))
	}
	p := must[*engine.Plan](t)(e.WalkTest(ctx, dirs[1]))
	if p.Behind == nil || p.Behind.Versions != 3 || !slices.Equal(p.Behind.Files, []string{"CONTEXT.md", "_config/voice.md"}) {
		t.Fatalf("behind = %+v", p.Behind)
	}
	if !p.Valid {
		t.Fatalf("behind without local changes is invalid: %v", p.Findings)
	}
	write(t, filepath.Join(dirs[1], "_config", "voice.md"), "mine\n")
	p = must[*engine.Plan](t)(e.WalkTest(ctx, dirs[1]))
	if p.Valid || !hasFinding(p.Findings, engine.RuleConflict, "_config/voice.md") || !slices.Equal(p.Behind.Conflicts, []string{"_config/voice.md"}) {
		t.Fatalf("conflict not reported: valid=%v %v %+v", p.Valid, p.Findings, p.Behind)
	}
	if _, err := e.Commit(ctx, dirs[1], "mine"); !errors.Is(err, engine.ErrConflict) {
		t.Fatalf("commit of a conflict: %v", err)
	}
}

// TestPartialCheckoutStoredTree: a folder-grant checkout is judged on the
// tree its commit stores (its folders plus the ones it cannot read,
// carried over): an empty output/ in its stage is an error, and an error
// in a folder it cannot read is counted without naming any path there.
func TestPartialCheckoutStoredTree(t *testing.T) {
	ctx := context.Background()
	v := backends()[1].open(t)
	ea, eb := newEngine(v, alice), newEngine(v, &engine.Credentials{User: "bob", Email: "bob@example.com"})
	must[*engine.Created](t)(ea.InitWorkspace(ctx, "demo", ""))
	must[*engine.Grant](t)(ea.GrantAccess(ctx, "bob", engine.RankWrite, "demo:stages/02-draft"))
	co := filepath.Join(t.TempDir(), "co")
	must[*engine.CheckoutResult](t)(eb.Checkout(ctx, "demo", co))
	if p := must[*engine.Plan](t)(eb.WalkTest(ctx, co)); !p.Valid {
		t.Fatalf("fresh partial checkout invalid: %v", p.Findings)
	}
	os.Remove(filepath.Join(co, draftGitkeep))
	p := must[*engine.Plan](t)(eb.WalkTest(ctx, co))
	if p.Valid || !hasFinding(p.Findings, icm.RuleStageFiles, "stages/02-draft") {
		t.Fatalf("valid=%v %v; want the stage-files error", p.Valid, p.Findings)
	}
	if _, err := eb.Commit(ctx, co, "x"); !errors.Is(err, engine.ErrInvalidTree) {
		t.Fatalf("commit: %v", err)
	}
	write(t, filepath.Join(co, draftGitkeep), "")

	// Break stage 01 (which bob cannot read) behind tv's back.
	info := must[[]engine.Info](t)(ea.Workspaces(ctx))[0]
	c := must[*engine.Commit](t)(v.ReadCommit(ctx, info.Head))
	w := must[engine.ObjectWriter](t)(v.NewObjectWriter(ctx))
	c.Tree, _ = removeFromTree(t, v, w, c.Tree, strings.Split("stages/01-research/output/.gitkeep", "/"))
	c.Parents = []engine.Hash{info.Head}
	bad := must[engine.Hash](t)(w.WriteCommit(c))
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: engine.WorkspaceRefPrefix + info.ID, Old: info.Head, New: bad}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(co, "stages/02-draft/output/d.md"), "draft\n")
	p = must[*engine.Plan](t)(eb.WalkTest(ctx, co))
	if p.Valid || !slices.ContainsFunc(p.Findings, func(f icm.Finding) bool { return f.Rule == engine.RuleScope && f.Path == "" }) {
		t.Fatalf("valid=%v %v; want one scope error", p.Valid, p.Findings)
	}
	for _, f := range p.Findings {
		if f.Path != "" && !strings.HasPrefix(f.Path, "stages/02-draft") {
			t.Fatalf("a finding names a folder bob cannot read: %v", f)
		}
	}
	if _, err := eb.Commit(ctx, co, "x"); !errors.Is(err, engine.ErrInvalidTree) {
		t.Fatalf("commit: %v", err)
	}
}
