package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
)

// setup makes workspace demo and n checkouts of it.
func setup(t *testing.T, e *engine.Engine, n int) []string {
	t.Helper()
	must[*engine.Created](t)(e.InitWorkspace(context.Background(), "demo", ""))
	var dirs []string
	for range n {
		d := filepath.Join(t.TempDir(), "co")
		must[*engine.CheckoutResult](t)(e.Checkout(context.Background(), "demo", d))
		dirs = append(dirs, d)
	}
	return dirs
}

func wantConflict(t *testing.T, err error, path string) {
	t.Helper()
	var ce *engine.ConflictError
	if !errors.As(err, &ce) || !strings.Contains(strings.Join(ce.Paths, ","), path) {
		t.Fatalf("err = %v; want a conflict naming %s", err, path)
	}
}

// headFile reads a file of the workspace's head through a fresh checkout.
func headFile(t *testing.T, e *engine.Engine, p string) (string, bool) {
	t.Helper()
	d := filepath.Join(t.TempDir(), "head")
	must[*engine.CheckoutResult](t)(e.Checkout(context.Background(), "demo", d))
	b, err := os.ReadFile(filepath.Join(d, p))
	return string(b), err == nil
}

func TestCommitEdges(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		run  func(t *testing.T, e *engine.Engine)
	}{
		{"edit after an on-top commit still sees the upstream change", func(t *testing.T, e *engine.Engine) {
			d := setup(t, e, 2)
			write(t, filepath.Join(d[0], "_config/voice.md"), "A's voice\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d[0], "A"))
			write(t, filepath.Join(d[1], "stages/01-research/output/note.md"), "B\n")
			if r := must[*engine.CommitResult](t)(e.Commit(ctx, d[1], "B note")); r.OnTopOf.IsZero() {
				t.Fatal("B's first commit should apply on top of A's")
			}
			write(t, filepath.Join(d[1], "_config/voice.md"), "B's voice\n")
			_, err := e.Commit(ctx, d[1], "B voice")
			wantConflict(t, err, "_config/voice.md")
			if got, _ := headFile(t, e, "_config/voice.md"); got != "A's voice\n" {
				t.Fatalf("A's edit lost: %q", got)
			}
		}},
		{"a file deleted upstream does not come back", func(t *testing.T, e *engine.Engine) {
			a := setup(t, e, 1)[0]
			write(t, filepath.Join(a, "notes/x.md"), "x\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, a, "add x"))
			b := filepath.Join(t.TempDir(), "b")
			must[*engine.CheckoutResult](t)(e.Checkout(ctx, "demo", b))
			os.Remove(filepath.Join(a, "notes/x.md"))
			must[*engine.CommitResult](t)(e.Commit(ctx, a, "A deletes x"))
			write(t, filepath.Join(b, "stages/01-research/output/note.md"), "B\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, b, "B note"))
			write(t, filepath.Join(b, "notes/x.md"), "B edits\n")
			_, err := e.Commit(ctx, b, "B edits deleted")
			wantConflict(t, err, "notes/x.md")
			if _, ok := headFile(t, e, "notes/x.md"); ok {
				t.Fatal("deleted file came back")
			}
		}},
		{"a folder replaced by a file of the same name", func(t *testing.T, e *engine.Engine) {
			d := setup(t, e, 1)[0]
			write(t, filepath.Join(d, "notes/a.md"), "a\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "folder"))
			os.RemoveAll(filepath.Join(d, "notes"))
			write(t, filepath.Join(d, "notes"), "now a file\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "file"))
			if got, ok := headFile(t, e, "notes"); !ok || got != "now a file\n" {
				t.Fatalf("head notes = %q, %v", got, ok)
			}
			if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); p.Changed() {
				t.Fatalf("checkout and vault disagree: %s", planString(p))
			}
		}},
		{"a file replaced by a folder of the same name", func(t *testing.T, e *engine.Engine) {
			d := setup(t, e, 1)[0]
			write(t, filepath.Join(d, "ref"), "file\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "file"))
			os.Remove(filepath.Join(d, "ref"))
			write(t, filepath.Join(d, "ref/y.md"), "y\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "folder"))
			if got, ok := headFile(t, e, "ref/y.md"); !ok || got != "y\n" {
				t.Fatalf("head ref/y.md = %q, %v", got, ok)
			}
		}},
		{"a file where upstream made a folder", func(t *testing.T, e *engine.Engine) {
			d := setup(t, e, 2)
			write(t, filepath.Join(d[0], "notes/a.md"), "a\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d[0], "A folder"))
			write(t, filepath.Join(d[1], "notes"), "B file\n")
			_, err := e.Commit(ctx, d[1], "B file")
			wantConflict(t, err, "notes")
			if got, ok := headFile(t, e, "notes/a.md"); !ok || got != "a\n" {
				t.Fatal("upstream folder lost")
			}
		}},
		{"a folder where upstream made a file", func(t *testing.T, e *engine.Engine) {
			d := setup(t, e, 2)
			write(t, filepath.Join(d[0], "ref"), "A file\n")
			must[*engine.CommitResult](t)(e.Commit(ctx, d[0], "A file"))
			write(t, filepath.Join(d[1], "ref/y.md"), "B\n")
			_, err := e.Commit(ctx, d[1], "B folder")
			wantConflict(t, err, "ref")
			if got, ok := headFile(t, e, "ref"); !ok || got != "A file\n" {
				t.Fatal("upstream file lost")
			}
		}},
		{"the manifest cannot rename the workspace", func(t *testing.T, e *engine.Engine) {
			d := setup(t, e, 1)[0]
			mp := filepath.Join(d, engine.ManifestName)
			b, _ := os.ReadFile(mp)
			os.WriteFile(mp, []byte(strings.Replace(string(b), `"workspace_name": "demo"`, `"workspace_name": "evil\n\nTv-Name: x"`, 1)), 0o644)
			os.Remove(filepath.Join(d, engine.StatCacheName))
			write(t, filepath.Join(d, "stages/01-research/output/n.md"), "n\n")
			if _, err := e.Commit(ctx, d, "sneaky"); err != nil && !errors.Is(err, engine.ErrRefused) {
				t.Fatalf("commit: %v", err)
			}
			list := must[[]engine.Info](t)(e.Workspaces(ctx))
			if len(list) != 1 || list[0].Name != "demo" {
				t.Fatalf("workspace renamed through the manifest: %+v", list)
			}
		}},
	}
	for _, b := range backends() {
		for _, tc := range cases {
			t.Run(b.name+"/"+tc.name, func(t *testing.T) {
				tc.run(t, newEngine(b.open(t), alice))
			})
		}
	}
}

// TestUnsafeCheckoutPaths: walk-test and commit refuse paths that import
// would refuse, so no commit can make a workspace impossible to check out.
func TestUnsafeCheckoutPaths(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, file, also string }{
		{"backslash", `back\slash.md`, ""},
		{"newline", "evil\nname.md", ""},
		{"control", "bell\a.md", ""},
		{"case collision", "Readme.md", "README.md"},
		{"case collision with a folder", "Notes/a.md", "notes/b.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(backends()[0].open(t), alice)
			d := setup(t, e, 1)[0]
			write(t, filepath.Join(d, tc.file), "x\n")
			if tc.also != "" {
				write(t, filepath.Join(d, tc.also), "y\n")
			}
			p := must[*engine.Plan](t)(e.WalkTest(ctx, d))
			if p.Valid {
				t.Fatalf("walk-test accepted %q", tc.file)
			}
			found := false
			for _, f := range p.Findings {
				found = found || f.Rule == engine.RulePathRules
			}
			if !found {
				t.Fatalf("no %s finding: %v", engine.RulePathRules, p.Findings)
			}
			if _, err := e.Commit(ctx, d, "unsafe"); !errors.Is(err, engine.ErrInvalidTree) {
				t.Fatalf("commit: %v", err)
			}
		})
	}
}

// TestStatCacheSeesRestoredMtime: a same-size edit whose mtime is put back
// (cp -p, rsync -t, tar x, touch -d) is still seen as modified.
func TestStatCacheSeesRestoredMtime(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	d := setup(t, e, 1)[0]
	f := filepath.Join(d, "_config/voice.md")
	must[*engine.Plan](t)(e.WalkTest(ctx, d)) // warm the cache
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f)
	b[0] ^= 0x20 // same size, different content
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(f, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); planString(p) != "~_config/voice.md" {
		t.Fatalf("plan = %q, want the edit seen", planString(p))
	}
}

// TestWalkTestWithCachedListings: once a walk-test has cached every
// folder's listing, each change to a folder's entries is still seen (the
// folder's own mtime and ctime move), and a commit of it lands.
func TestWalkTestWithCachedListings(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		change func(t *testing.T, d string)
		want   string
	}{
		{"add in a nested folder", func(t *testing.T, d string) {
			write(t, filepath.Join(d, "stages/01-research/references/new.md"), "new\n")
		}, "+stages/01-research/references/new.md"},
		{"add a new folder", func(t *testing.T, d string) {
			write(t, filepath.Join(d, "stages/02-draft/references/deep/er/x.md"), "x\n")
		}, "+stages/02-draft/references/deep/er/x.md"},
		{"remove", func(t *testing.T, d string) {
			if err := os.Remove(filepath.Join(d, "AGENTS.md")); err != nil {
				t.Fatal(err)
			}
		}, "-AGENTS.md"},
		{"rename", func(t *testing.T, d string) {
			if err := os.Rename(filepath.Join(d, "AGENTS.md"), filepath.Join(d, "_config/agents.md")); err != nil {
				t.Fatal(err)
			}
		}, "+_config/agents.md -AGENTS.md"},
		{"replace a file by a folder", func(t *testing.T, d string) {
			p := filepath.Join(d, "_config/voice.md")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(p, "inner.md"), "inner\n")
		}, "+_config/voice.md/inner.md -_config/voice.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(backends()[0].open(t), alice)
			d := setup(t, e, 1)[0]
			for range 2 { // the first caches the listings, the second uses them
				if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); p.Changed() {
					t.Fatalf("fresh checkout changed: %s", planString(p))
				}
			}
			time.Sleep(10 * time.Millisecond) // past the cache's own mtime
			tt.change(t, d)
			if got := planString(must[*engine.Plan](t)(e.WalkTest(ctx, d))); got != tt.want {
				t.Fatalf("plan = %q, want %q", got, tt.want)
			}
			// Again, now from the refreshed cache, then committed.
			if got := planString(must[*engine.Plan](t)(e.WalkTest(ctx, d))); got != tt.want {
				t.Fatalf("second plan = %q, want %q", got, tt.want)
			}
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "change"))
			if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); p.Changed() {
				t.Fatalf("after commit: %s", planString(p))
			}
		})
	}
}

// TestCommitOnTopRevalidates: two checkouts each add a stage numbered 03
// (each tree valid alone). The first commit lands; the second would apply
// on top of it (no path of it moved upstream), but the combination has a
// duplicate stage number: it is refused as invalid, naming the head it
// was combined with, and the vault is unchanged.
func TestCommitOnTopRevalidates(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	dirs := setup(t, e, 2)
	stage := func(d, name string) {
		write(t, filepath.Join(d, "stages", name, "CONTEXT.md"), "# "+name+"\n\n## Inputs\n\n- stages/02-draft/output/\n\n## Process\n\nWork.\n\n## Outputs\n\n- output/result.md\n")
		write(t, filepath.Join(d, "stages", name, "output", ".gitkeep"), "")
		write(t, filepath.Join(d, "stages", name, "references", ".gitkeep"), "")
	}
	stage(dirs[0], "03-alpha")
	stage(dirs[1], "03-beta")
	for _, d := range dirs {
		if p := must[*engine.Plan](t)(e.WalkTest(ctx, d)); !p.Valid {
			t.Fatalf("%s alone is invalid: %v", d, p.Findings)
		}
	}
	first := must[*engine.CommitResult](t)(e.Commit(ctx, dirs[0], "alpha"))
	_, err := e.Commit(ctx, dirs[1], "beta")
	var inv *engine.InvalidTreeError
	if !errors.As(err, &inv) || inv.OnTopOf != first.Version {
		t.Fatalf("second commit: %v; want an invalid tree on top of %s", err, first.Version.Short())
	}
	found := false
	for _, f := range inv.Findings {
		found = found || f.Rule == icm.RuleStages && f.Severity == icm.SeverityError
	}
	if !found {
		t.Fatalf("no %s error among %v", icm.RuleStages, inv.Findings)
	}
	if head := must[[]engine.Info](t)(e.Workspaces(ctx))[0].Head; head != first.Version {
		t.Fatalf("head moved to %s", head.Short())
	}
}
