package engine_test

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/statcache"
)

// snapshot reads every file of a checkout (tv's metadata included, the
// stat cache, an accelerator, excluded) into a map.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == engine.StatCacheName {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok || a != b {
			t.Fatalf("%s changed (present after: %v)", p, ok)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Fatalf("%s appeared", p)
		}
	}
}

const voice3 = "line one\nline two\nline three\nline four\nline five\nline six\nline seven\n"

// TestUpdate brings a checkout to the head: upstream-only changes land,
// local-only changes stay, the manifest moves to the head, and the next
// commit is not re-applied on top of anything.
func TestUpdate(t *testing.T) {
	ctx := context.Background()
	forEachBackend(t, func(t *testing.T, e *engine.Engine, v engine.Vault) {
		dirs := setup(t, e, 2)
		up, co := dirs[0], dirs[1]
		write(t, filepath.Join(up, "shared/old/x.md"), "old\n")
		must[*engine.CommitResult](t)(e.Commit(ctx, up, "old"))
		must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{}))
		write(t, filepath.Join(up, "_config/voice.md"), voice3)
		write(t, filepath.Join(up, "shared/new.md"), "new\n")
		os.Remove(filepath.Join(up, "shared/old/x.md"))
		must[*engine.CommitResult](t)(e.Commit(ctx, up, "upstream"))
		head := must[[]engine.Info](t)(e.Workspaces(ctx))[0].Head
		write(t, filepath.Join(co, "CONTEXT.md"), readFile(t, filepath.Join(co, "CONTEXT.md"))+"\nmine\n")

		res := must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{}))
		want := []string{"_config/voice.md", "shared/new.md", "shared/old/x.md"}
		if !slices.Equal(res.Updated, want) || res.To != head || res.Kept != 1 || len(res.Conflicts)+len(res.Merged) != 0 {
			t.Fatalf("update %+v", res)
		}
		if readFile(t, filepath.Join(co, "_config/voice.md")) != voice3 || readFile(t, filepath.Join(co, "shared/new.md")) != "new\n" {
			t.Fatal("upstream files not written")
		}
		if _, err := os.Stat(filepath.Join(co, "shared/old")); !os.IsNotExist(err) {
			t.Fatalf("deleted file's empty folder left: %v", err)
		}
		if m := must[*engine.Manifest](t)(engine.ReadManifest(co)); m.Baseline != head {
			t.Fatalf("baseline %s, want %s", m.Baseline.Short(), head.Short())
		}
		p := must[*engine.Plan](t)(e.WalkTest(ctx, co))
		if p.Behind != nil || len(p.Modified) != 1 || p.Modified[0].Path != "CONTEXT.md" || len(p.Added)+len(p.Deleted) != 0 {
			t.Fatalf("after update: behind %+v, %s", p.Behind, planString(p))
		}
		if r := must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{})); !r.UpToDate {
			t.Fatalf("second update %+v", r)
		}
		if c := must[*engine.CommitResult](t)(e.Commit(ctx, co, "mine")); !c.OnTopOf.IsZero() || c.Modified != 1 {
			t.Fatalf("commit after update %+v", c)
		}
	})
}

// TestUpdateConflicts: a file changed on both sides stops the update
// with nothing changed; --merge merges text, and where both changed the
// same lines writes markers that walk-test and commit refuse until they
// are resolved.
func TestUpdateConflicts(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	dirs := setup(t, e, 2)
	up, co := dirs[0], dirs[1]
	write(t, filepath.Join(up, "_config/voice.md"), voice3)
	must[*engine.CommitResult](t)(e.Commit(ctx, up, "voice"))
	must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{}))

	write(t, filepath.Join(up, "_config/voice.md"), strings.Replace(voice3, "line one", "LINE ONE", 1))
	write(t, filepath.Join(up, "CONTEXT.md"), readFile(t, filepath.Join(up, "CONTEXT.md"))+"\nupstream\n")
	must[*engine.CommitResult](t)(e.Commit(ctx, up, "one"))
	write(t, filepath.Join(co, "_config/voice.md"), strings.Replace(voice3, "line seven", "LINE SEVEN", 1))

	before := snapshot(t, co)
	_, err := e.Update(ctx, co, engine.UpdateOptions{})
	var uc *engine.UpdateConflictError
	if !errors.As(err, &uc) || !errors.Is(err, engine.ErrConflict) || !slices.Equal(uc.Paths, []string{"_config/voice.md"}) {
		t.Fatalf("update: %v", err)
	}
	sameSnapshot(t, before, snapshot(t, co))

	res := must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{Merge: true}))
	if !slices.Equal(res.Merged, []string{"_config/voice.md"}) || len(res.Conflicts) != 0 {
		t.Fatalf("merge %+v", res)
	}
	if got, want := readFile(t, filepath.Join(co, "_config/voice.md")), strings.Replace(strings.Replace(voice3, "line one", "LINE ONE", 1), "line seven", "LINE SEVEN", 1); got != want {
		t.Fatalf("merged voice:\n%s", got)
	}
	p := must[*engine.Plan](t)(e.WalkTest(ctx, co))
	if !p.Valid || p.Behind != nil || len(p.Modified) != 1 {
		t.Fatalf("after clean merge: %v %+v %s", p.Findings, p.Behind, planString(p))
	}
	must[*engine.CommitResult](t)(e.Commit(ctx, co, "merged"))

	// The same lines on both sides: markers.
	write(t, filepath.Join(up, "_config/voice.md"), readFile(t, filepath.Join(co, "_config/voice.md")))
	must[*engine.UpdateResult](t)(e.Update(ctx, up, engine.UpdateOptions{}))
	write(t, filepath.Join(up, "_config/voice.md"), strings.Replace(readFile(t, filepath.Join(up, "_config/voice.md")), "line four", "theirs", 1))
	must[*engine.CommitResult](t)(e.Commit(ctx, up, "theirs"))
	write(t, filepath.Join(co, "_config/voice.md"), strings.Replace(readFile(t, filepath.Join(co, "_config/voice.md")), "line four", "mine", 1))
	res = must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{Merge: true}))
	if !slices.Equal(res.Conflicts, []string{"_config/voice.md"}) {
		t.Fatalf("merge %+v", res)
	}
	text := readFile(t, filepath.Join(co, "_config/voice.md"))
	if !strings.Contains(text, "<<<<<<< this checkout\nmine\n=======\ntheirs\n>>>>>>> head ") {
		t.Fatalf("markers:\n%s", text)
	}
	p = must[*engine.Plan](t)(e.WalkTest(ctx, co))
	if p.Valid || !hasFinding(p.Findings, engine.RuleConflict, "_config/voice.md") {
		t.Fatalf("walk-test with markers: valid=%v %v", p.Valid, p.Findings)
	}
	if _, err := e.Commit(ctx, co, "markers"); !errors.Is(err, engine.ErrInvalidTree) {
		t.Fatalf("commit with markers: %v", err)
	}
	write(t, filepath.Join(co, "_config/voice.md"), strings.Replace(voice3, "line four", "both", 1))
	if p := must[*engine.Plan](t)(e.WalkTest(ctx, co)); !p.Valid {
		t.Fatalf("resolved: %v", p.Findings)
	}
	must[*engine.CommitResult](t)(e.Commit(ctx, co, "resolved"))
}

// TestUpdateRefusals: a binary conflict, a revoked grant, a deleted
// workspace and a full disk half-way all leave the checkout as it was.
func TestUpdateRefusals(t *testing.T) {
	ctx := context.Background()
	v := backends()[0].open(t)
	e := newEngine(v, alice)
	dirs := setup(t, e, 2)
	up, co := dirs[0], dirs[1]
	for i := range 5 {
		write(t, filepath.Join(up, "shared", "f"+string(rune('0'+i))+".md"), "upstream\n")
	}
	write(t, filepath.Join(up, "shared/blob.bin"), "a\x00b")
	must[*engine.CommitResult](t)(e.Commit(ctx, up, "files"))
	must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{}))
	write(t, filepath.Join(up, "shared/blob.bin"), "c\x00d")
	write(t, filepath.Join(up, "_config/voice.md"), "new voice\n")
	must[*engine.CommitResult](t)(e.Commit(ctx, up, "more"))

	t.Run("binary conflict", func(t *testing.T) {
		write(t, filepath.Join(co, "shared/blob.bin"), "e\x00f")
		before := snapshot(t, co)
		_, err := e.Update(ctx, co, engine.UpdateOptions{Merge: true})
		var uc *engine.UpdateConflictError
		if !errors.As(err, &uc) || uc.Unmergeable["shared/blob.bin"] != "binary" {
			t.Fatalf("update --merge of a binary conflict: %v", err)
		}
		sameSnapshot(t, before, snapshot(t, co))
		write(t, filepath.Join(co, "shared/blob.bin"), "a\x00b")
	})
	t.Run("disk full half-way", func(t *testing.T) {
		before := snapshot(t, co)
		restore := engine.SetStageFaultForTest(func(i int) error {
			if i == 1 {
				return errors.New("no space left on device")
			}
			return nil
		})
		_, err := e.Update(ctx, co, engine.UpdateOptions{})
		restore()
		if err == nil || !strings.Contains(err.Error(), "no space left") {
			t.Fatalf("update: %v", err)
		}
		sameSnapshot(t, before, snapshot(t, co))
		if p := must[*engine.Plan](t)(e.WalkTest(ctx, co)); p.Behind == nil || p.Changed() {
			t.Fatalf("after a failed update: behind %+v, %s", p.Behind, planString(p))
		}
	})
	t.Run("grant revoked", func(t *testing.T) {
		bob := &engine.Credentials{User: "bob", Email: "bob@example.com"}
		eb := newEngine(v, bob)
		must[*engine.Grant](t)(e.GrantAccess(ctx, "bob", engine.RankRead, "demo"))
		bco := filepath.Join(t.TempDir(), "bob")
		must[*engine.CheckoutResult](t)(eb.Checkout(ctx, "demo", bco))
		write(t, filepath.Join(up, "_config/voice.md"), "newer voice\n")
		must[*engine.CommitResult](t)(e.Commit(ctx, up, "newer"))
		must[*engine.Grant](t)(e.GrantAccess(ctx, "bob", engine.RankRead, "demo:stages/02-draft"))
		if err := e.RevokeAccess(ctx, "bob", "demo"); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, bco)
		if _, err := eb.Update(ctx, bco, engine.UpdateOptions{}); !errors.Is(err, engine.ErrPermission) {
			t.Fatalf("update after revoke: %v", err)
		}
		sameSnapshot(t, before, snapshot(t, bco))
	})
	t.Run("workspace renamed", func(t *testing.T) {
		// A head whose name trailer changed (as another client may write
		// it): the checkout is bound to the id, and updates.
		info := must[[]engine.Info](t)(e.Workspaces(ctx))[0]
		c := must[*engine.Commit](t)(v.ReadCommit(ctx, info.Head))
		c.Parents = []engine.Hash{info.Head}
		c.Message = strings.Replace(c.Message, "Tv-Name: demo", "Tv-Name: renamed", 1)
		w := must[engine.ObjectWriter](t)(v.NewObjectWriter(ctx))
		renamed := must[engine.Hash](t)(w.WriteCommit(c))
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: engine.WorkspaceRefPrefix + info.ID, Old: info.Head, New: renamed}); err != nil {
			t.Fatal(err)
		}
		if must[[]engine.Info](t)(e.Workspaces(ctx))[0].Name != "renamed" {
			t.Fatal("rename did not take")
		}
		res := must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{}))
		if res.To != renamed || readFile(t, filepath.Join(co, "_config/voice.md")) != "newer voice\n" {
			t.Fatalf("update of a renamed workspace: %+v", res)
		}
	})
	t.Run("workspace deleted", func(t *testing.T) {
		info := must[[]engine.Info](t)(e.Workspaces(ctx))[0]
		before := snapshot(t, co)
		if err := v.UpdateRefs(ctx, engine.RefUpdate{Name: engine.WorkspaceRefPrefix + info.ID, Old: info.Head}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Update(ctx, co, engine.UpdateOptions{}); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("update of a deleted workspace: %v", err)
		}
		sameSnapshot(t, before, snapshot(t, co))
		if p := must[*engine.Plan](t)(e.WalkTest(ctx, co)); p.Behind == nil || !p.Behind.Deleted {
			t.Fatalf("walk-test of a deleted workspace: %+v", p.Behind)
		}
	})
}

// TestUpdatePartialCheckout: a folder-grant checkout receives the head's
// changes in its folders only, and is then at the head.
func TestUpdatePartialCheckout(t *testing.T) {
	ctx := context.Background()
	v := backends()[1].open(t)
	ea, eb := newEngine(v, alice), newEngine(v, &engine.Credentials{User: "bob", Email: "bob@example.com"})
	up := setup(t, ea, 1)[0]
	must[*engine.Grant](t)(ea.GrantAccess(ctx, "bob", engine.RankWrite, "demo:stages/02-draft"))
	co := filepath.Join(t.TempDir(), "bob")
	must[*engine.CheckoutResult](t)(eb.Checkout(ctx, "demo", co))
	write(t, filepath.Join(up, "stages/02-draft/output/a.md"), "a\n")
	write(t, filepath.Join(up, "_config/voice.md"), "secret voice\n")
	must[*engine.CommitResult](t)(ea.Commit(ctx, up, "both"))
	p := must[*engine.Plan](t)(eb.WalkTest(ctx, co))
	if p.Behind == nil || !slices.Equal(p.Behind.Files, []string{"stages/02-draft/output/a.md"}) {
		t.Fatalf("behind %+v", p.Behind)
	}
	res := must[*engine.UpdateResult](t)(eb.Update(ctx, co, engine.UpdateOptions{}))
	if !slices.Equal(res.Updated, []string{"stages/02-draft/output/a.md"}) {
		t.Fatalf("update %+v", res)
	}
	if _, err := os.Stat(filepath.Join(co, "_config")); !os.IsNotExist(err) {
		t.Fatal("an unreadable folder was written")
	}
	p = must[*engine.Plan](t)(eb.WalkTest(ctx, co))
	if p.Behind != nil || p.Changed() || !p.Valid {
		t.Fatalf("after update: %+v %s %v", p.Behind, planString(p), p.Findings)
	}
	for _, f := range must[*engine.Manifest](t)(engine.ReadManifest(co)).Files {
		if !strings.HasPrefix(f.Path, "stages/02-draft/") {
			t.Fatalf("manifest lists %s outside the scope", f.Path)
		}
	}
}

// TestUpdateAfterReapply: the c1/c2 checkout behind after its re-applied
// commit gets c1's voice.md by update.
func TestUpdateAfterReapply(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[1].open(t), alice)
	dirs := setup(t, e, 2)
	write(t, filepath.Join(dirs[0], "_config/voice.md"), "voice from c1\n")
	must[*engine.CommitResult](t)(e.Commit(ctx, dirs[0], "c1"))
	write(t, filepath.Join(dirs[1], "shared/notes.md"), "c2\n")
	must[*engine.CommitResult](t)(e.Commit(ctx, dirs[1], "c2"))
	res := must[*engine.UpdateResult](t)(e.Update(ctx, dirs[1], engine.UpdateOptions{}))
	if !slices.Equal(res.Updated, []string{"_config/voice.md"}) {
		t.Fatalf("update %+v", res)
	}
	if readFile(t, filepath.Join(dirs[1], "_config/voice.md")) != "voice from c1\n" {
		t.Fatal("voice.md not updated")
	}
	if p := must[*engine.Plan](t)(e.WalkTest(ctx, dirs[1])); p.Behind != nil || p.Changed() {
		t.Fatalf("after update %+v %s", p.Behind, planString(p))
	}
}

// TestUpdateAppendsToStatCache: an update records itself in the stat
// cache the base came from (one record appended, not the cache rewritten,
// as a commit does), and that cache then describes exactly what the
// manifest does — the files written, merged and removed included — and
// still vouches for every file the update left alone.
func TestUpdateAppendsToStatCache(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	dirs := setup(t, e, 2)
	up, co := dirs[0], dirs[1]
	write(t, filepath.Join(up, "shared/old/x.md"), "old\n")
	write(t, filepath.Join(up, "shared/both.md"), voice3)
	must[*engine.CommitResult](t)(e.Commit(ctx, up, "old"))
	must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{}))
	write(t, filepath.Join(up, "_config/voice.md"), voice3)
	write(t, filepath.Join(up, "shared/new.md"), "new\n")
	write(t, filepath.Join(up, "shared/both.md"), strings.Replace(voice3, "line one", "line 1", 1))
	os.Remove(filepath.Join(up, "shared/old/x.md"))
	must[*engine.CommitResult](t)(e.Commit(ctx, up, "upstream"))
	write(t, filepath.Join(co, "shared/both.md"), strings.Replace(voice3, "line seven", "line 7", 1))
	time.Sleep(20 * time.Millisecond) // past the racy window
	must[*engine.Plan](t)(e.WalkTest(ctx, co))
	cache := filepath.Join(co, engine.StatCacheName)
	before := must[os.FileInfo](t)(os.Stat(cache))

	res := must[*engine.UpdateResult](t)(e.Update(ctx, co, engine.UpdateOptions{Merge: true}))
	if len(res.Updated) != 3 || !slices.Equal(res.Merged, []string{"shared/both.md"}) {
		t.Fatalf("update %+v", res)
	}
	after := must[os.FileInfo](t)(os.Stat(cache))
	if !os.SameFile(before, after) || after.Size() <= before.Size() {
		t.Fatalf("the update did not append to the stat cache (same file %v, %d -> %d bytes)", os.SameFile(before, after), before.Size(), after.Size())
	}
	c, err := statcache.Load(cache, engine.MaxStatCacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	m := must[*engine.Manifest](t)(engine.ReadManifest(co))
	if engine.Hash(c.Header.Baseline) != m.Baseline || m.Baseline != res.To {
		t.Fatalf("cache baseline %x, manifest %s, head %s", c.Header.Baseline, m.Baseline.Short(), res.To.Short())
	}
	if len(c.Files) != len(m.Files) {
		t.Fatalf("the cache holds %d files, the manifest %d", len(c.Files), len(m.Files))
	}
	for i, f := range m.Files {
		ce := c.Files[i]
		if ce.Path != f.Path || engine.Hash(ce.ID) != f.Version || hex.EncodeToString(ce.SHA256[:]) != f.SHA256 || ce.Stamp.Size != f.Size {
			t.Fatalf("cache entry %+v, manifest %+v", ce, f)
		}
	}
	touched := append(slices.Clone(res.Updated), res.Merged...)
	for _, ce := range c.Files {
		if !slices.Contains(touched, ce.Path) && ce.Stamp.Mtime == 0 {
			t.Fatalf("the cache no longer vouches for %s, which the update left alone", ce.Path)
		}
	}
	if p := must[*engine.Plan](t)(e.WalkTest(ctx, co)); planString(p) != "~shared/both.md" {
		t.Fatalf("after the update: %s", planString(p))
	}
}
