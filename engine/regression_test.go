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

// The regression tests of issue 13's two defects. They use only the API
// that existed before the fix, so they can be run against it (and fail).

// TestStoredTreeIsValidated is the regression test of the deleted
// output/.gitkeep defect: the folder is empty on disk, so the version a
// commit stores has no output/ folder. walk-test must call that invalid,
// commit must refuse it, and import, template import and init from a
// template must refuse the same tree.
func TestStoredTreeIsValidated(t *testing.T) {
	ctx := context.Background()
	forEachBackend(t, func(t *testing.T, e *engine.Engine, v engine.Vault) {
		dirs := setup(t, e, 1)
		co := dirs[0]
		if err := os.Remove(filepath.Join(co, draftGitkeep)); err != nil {
			t.Fatal(err)
		}
		p := must[*engine.Plan](t)(e.WalkTest(ctx, co))
		if p.Valid || !hasFinding(p.Findings, icm.RuleStageFiles, "stages/02-draft") {
			t.Fatalf("walk-test valid=%v findings=%v; want stage-files error on stages/02-draft", p.Valid, p.Findings)
		}
		if !slices.ContainsFunc(p.Findings, func(f icm.Finding) bool {
			return f.Rule == icm.RuleGitkeep && f.Path == "stages/02-draft/output" && strings.Contains(f.Message, "not stored")
		}) {
			t.Fatalf("no warning that the empty output/ is not stored: %v", p.Findings)
		}
		before := must[[]engine.Info](t)(e.Workspaces(ctx))[0].Head
		_, err := e.Commit(ctx, co, "drop gitkeep")
		if !errors.Is(err, engine.ErrInvalidTree) {
			t.Fatalf("commit: %v; want an invalid tree", err)
		}
		if head := must[[]engine.Info](t)(e.Workspaces(ctx))[0].Head; head != before {
			t.Fatal("commit moved the head")
		}

		// The same folder as an import source: workspace and template.
		src := filepath.Join(t.TempDir(), "src")
		copyTree(t, co, src)
		for _, imp := range []func(context.Context, string, string) (*engine.Created, error){e.ImportWorkspace, e.ImportTemplate} {
			if _, err := imp(ctx, src, "bad"); !errors.Is(err, engine.ErrInvalidTree) {
				t.Fatalf("import of a tree whose stage has only an empty output/: %v; want an invalid tree", err)
			}
		}

		// A template stored invalid (by an older tv) is refused by init.
		tpl := must[*engine.Created](t)(e.ImportTemplate(ctx, filepath.Join(copyStarter(t, e)), "tpl"))
		c := must[*engine.Commit](t)(v.ReadCommit(ctx, tpl.Head))
		w := must[engine.ObjectWriter](t)(v.NewObjectWriter(ctx))
		c.Tree, _ = removeFromTree(t, v, w, c.Tree, strings.Split(draftGitkeep, "/"))
		bad := must[engine.Hash](t)(w.WriteCommit(c))
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: engine.TemplateRefPrefix + tpl.ID, Old: tpl.Head, New: bad}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.InitWorkspace(ctx, "from-bad", "tpl"); !errors.Is(err, engine.ErrInvalidTree) {
			t.Fatalf("init from an invalid template: %v; want an invalid tree", err)
		}
	})
}

// TestReappliedCommitIsBehind is the regression test of the stale
// checkout defect: c1 commits _config/voice.md; c2 commits another file,
// which is applied on top of c1's version. c2 must not claim the new head
// as a baseline whose files it holds: walk-test reports it behind, naming
// voice.md.
func TestReappliedCommitIsBehind(t *testing.T) {
	ctx := context.Background()
	forEachBackend(t, func(t *testing.T, e *engine.Engine, v engine.Vault) {
		dirs := setup(t, e, 2)
		c1, c2 := dirs[0], dirs[1]
		write(t, filepath.Join(c1, "_config", "voice.md"), "voice from c1\n")
		must[*engine.CommitResult](t)(e.Commit(ctx, c1, "c1 voice"))
		write(t, filepath.Join(c2, "shared", "notes.md"), "notes from c2\n")
		res := must[*engine.CommitResult](t)(e.Commit(ctx, c2, "c2 notes"))
		if res.OnTopOf.IsZero() {
			t.Fatal("c2's commit was not applied on top")
		}
		voice := readFile(t, filepath.Join(c2, "_config", "voice.md"))
		m := must[*engine.Manifest](t)(engine.ReadManifest(c2))
		holdsHead := voice == "voice from c1\n"
		if !holdsHead && m.Baseline == res.Version {
			t.Fatalf("c2 claims baseline %s (the new head) but holds the old voice.md", m.Baseline.Short())
		}
		if p := must[*engine.Plan](t)(e.WalkTest(ctx, c2)); p.Changed() {
			t.Fatalf("walk-test reports changes: %s", planString(p))
		}
	})
}

const draftGitkeep = "stages/02-draft/output/.gitkeep"

// hasFinding reports whether fs holds an error of rule at path.
func hasFinding(fs []icm.Finding, rule, path string) bool {
	return slices.ContainsFunc(fs, func(f icm.Finding) bool {
		return f.Rule == rule && f.Path == path && f.Severity == icm.SeverityError
	})
}

// copyTree copies the regular files of src (without tv's metadata) to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if strings.HasPrefix(rel, ".thalix-workspace") {
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyStarter checks out a fresh starter workspace and copies its files
// to a new folder, returning the folder.
func copyStarter(t *testing.T, e *engine.Engine) string {
	t.Helper()
	ctx := context.Background()
	name := "starter-copy"
	must[*engine.Created](t)(e.InitWorkspace(ctx, name, ""))
	co := filepath.Join(t.TempDir(), "co")
	must[*engine.CheckoutResult](t)(e.Checkout(ctx, name, co))
	dst := filepath.Join(t.TempDir(), "starter")
	copyTree(t, co, dst)
	return dst
}

// removeFromTree writes the trees of tree without the file at path
// (elements), dropping folders left empty, and returns the new root and
// how many entries it has.
func removeFromTree(t *testing.T, v engine.Vault, w engine.ObjectWriter, tree engine.Hash, elems []string) (engine.Hash, int) {
	t.Helper()
	entries := must[[]engine.TreeEntry](t)(v.ReadTree(context.Background(), tree))
	var out []engine.TreeEntry
	for _, en := range entries {
		switch {
		case en.Name != elems[0]:
			out = append(out, en)
		case len(elems) > 1:
			var n int
			if en.ID, n = removeFromTree(t, v, w, en.ID, elems[1:]); n > 0 {
				out = append(out, en)
			}
		}
	}
	return must[engine.Hash](t)(w.WriteTree(out)), len(out)
}
