package engine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/vaulttest"
	"github.com/thalix/tv/starter"
)

// TestFileReadAPIs checks Stat, ReadVersionFile, Find and StageContract
// against the starter's files, on both storage backends.
func TestFileReadAPIs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *engine.Engine, v engine.Vault) {
		ctx := context.Background()
		ws := must[*engine.Created](t)(e.InitWorkspace(ctx, "demo", ""))
		want, err := starter.FS().Open("stages/01-research/CONTEXT.md")
		if err != nil {
			t.Fatal(err)
		}
		wantFI, _ := want.Stat()
		want.Close()

		for _, target := range []string{ws.ID, "demo"} {
			st := must[*engine.FileStat](t)(e.Stat(ctx, target, "stages/01-research/CONTEXT.md"))
			if st.WorkspaceID != ws.ID || st.WorkspaceName != "demo" || st.Head != ws.Head || st.Size != wantFI.Size() || st.Mode != "100644" || st.Version.IsZero() || st.SHA256 != "" {
				t.Fatalf("stat via %s: %+v", target, st)
			}
		}
		b, st, err := e.ReadVersionFile(ctx, "demo", "stages/01-research/CONTEXT.md", 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if st.SHA256 != hex.EncodeToString(sum[:]) || int64(len(b)) != st.Size || !strings.HasPrefix(string(b), "---\nmcp:\n") {
			t.Fatalf("read: %+v %q", st, b[:20])
		}

		// The contract is the same blob, bound to the head.
		head, blob, content, err := e.StageContract(ctx, ws.ID, "stages/01-research")
		if err != nil || head != ws.Head || blob != st.Version || string(content) != string(b) {
			t.Fatalf("contract: %v %v %v %v", err, head, blob, st.Version)
		}
		head, blob, content, err = e.StageContract(ctx, ws.ID, "stages/09-none")
		if err != nil || head != ws.Head || !blob.IsZero() || content != nil {
			t.Fatalf("missing stage: %v %v %q", err, blob, content)
		}
		if _, _, _, err := e.StageContract(ctx, "demo", "stages/01-research"); !errors.Is(err, engine.ErrUsage) {
			t.Fatalf("contract by name: %v", err)
		}
		if _, _, _, err := e.StageContract(ctx, ws.ID, "stages/../x"); !errors.Is(err, engine.ErrRefused) {
			t.Fatalf("contract of a traversal: %v", err)
		}

		for _, c := range []struct {
			path string
			kind error
		}{
			{"nope.md", engine.ErrNotFound},
			{"stages", engine.ErrRefused},
			{"../etc/passwd", engine.ErrRefused},
			{"/etc/passwd", engine.ErrRefused},
			{".git/config", engine.ErrRefused},
			{"", engine.ErrRefused},
		} {
			if _, err := e.Stat(ctx, "demo", c.path); !errors.Is(err, c.kind) {
				t.Errorf("stat %q: %v, want %v", c.path, err, c.kind)
			}
		}
		if _, _, err := e.ReadVersionFile(ctx, "demo", "CLAUDE.md", 10); !errors.Is(err, engine.ErrRefused) || !strings.Contains(err.Error(), "over the 10-byte limit") {
			t.Fatalf("read over limit: %v", err)
		}
		if _, err := e.Stat(ctx, "nosuch", "CLAUDE.md"); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("stat in a missing workspace: %v", err)
		}

		f := must[*engine.FindResult](t)(e.Find(ctx, "demo", "stages/*/CONTEXT.md", 10))
		if f.Matched != 2 || f.More || len(f.Files) != 2 || f.Files[0].Path != "stages/01-research/CONTEXT.md" || f.Files[1].Path != "stages/02-draft/CONTEXT.md" || f.Files[0].Size != wantFI.Size() {
			t.Fatalf("find: %+v", f)
		}
		f = must[*engine.FindResult](t)(e.Find(ctx, "demo", "**", 3))
		all := must[*engine.FindResult](t)(e.Find(ctx, "demo", "**", 1000))
		if f.Matched != all.Matched || !f.More || len(f.Files) != 3 || all.More || len(all.Files) != all.Matched || all.Matched < 10 {
			t.Fatalf("find **: %d/%d more=%v; all %d", len(f.Files), f.Matched, f.More, all.Matched)
		}
		for _, bad := range []string{"", "/abs", "a/../b", `a\b`, "[", "a//b"} {
			if _, err := e.Find(ctx, "demo", bad, 10); !errors.Is(err, engine.ErrRefused) {
				t.Errorf("find %q: %v", bad, err)
			}
		}
		if _, err := e.Find(ctx, "demo", "**", 0); !errors.Is(err, engine.ErrUsage) {
			t.Errorf("find limit 0: %v", err)
		}

		id := must[*engine.Identity](t)(e.Identity())
		if id.User != "alice" || id.Email != alice.Email {
			t.Fatalf("identity %+v", id)
		}
		info := must[*engine.Info](t)(e.ResolveWorkspace(ctx, "demo"))
		if info.ID != ws.ID {
			t.Fatalf("resolve %+v", info)
		}
		if _, err := e.ResolveWorkspace(ctx, engine.BuiltinTemplateID); !errors.Is(err, engine.ErrUsage) {
			t.Fatalf("resolve a template: %v", err)
		}
	})
}

// TestFileReadAccess: with read on one stage only, a user reads inside it,
// is refused elsewhere (existing or not: nothing is revealed), and Find
// lists and counts only what they may read.
func TestFileReadAccess(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ea *engine.Engine, v engine.Vault) {
		ctx := context.Background()
		eb := newEngine(v, bob)
		ws := must[*engine.Created](t)(ea.InitWorkspace(ctx, "demo", ""))
		if _, err := eb.Stat(ctx, ws.ID, "CLAUDE.md"); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("bob without grants: %v", err)
		}
		must[*engine.Grant](t)(ea.GrantAccess(ctx, "bob", engine.RankRead, "demo:stages/01-research"))

		must[*engine.FileStat](t)(eb.Stat(ctx, "demo", "stages/01-research/CONTEXT.md"))
		for _, p := range []string{"CLAUDE.md", "stages/02-draft/CONTEXT.md", "stages/02-draft/no-such-file"} {
			_, err := eb.Stat(ctx, "demo", p)
			var d *engine.DeniedError
			if !errors.As(err, &d) || d.Need != engine.RankRead || !errors.Is(err, engine.ErrPermission) {
				t.Errorf("bob stat %s: %v", p, err)
			}
			if _, _, err := eb.ReadVersionFile(ctx, "demo", p, 1<<20); !errors.Is(err, engine.ErrPermission) {
				t.Errorf("bob read %s: %v", p, err)
			}
		}
		f := must[*engine.FindResult](t)(eb.Find(ctx, "demo", "**", 1000))
		if f.Matched == 0 {
			t.Fatal("bob finds nothing")
		}
		for _, fs := range f.Files {
			if !strings.HasPrefix(fs.Path, "stages/01-research/") {
				t.Errorf("bob finds %s", fs.Path)
			}
		}
		if _, _, _, err := eb.StageContract(ctx, ws.ID, "stages/01-research"); err != nil {
			t.Fatalf("bob contract 01: %v", err)
		}
		if _, _, _, err := eb.StageContract(ctx, ws.ID, "stages/02-draft"); !errors.Is(err, engine.ErrPermission) {
			t.Fatalf("bob contract 02: %v", err)
		}

		// Not logged in: the vault has grants, so nothing is visible.
		anon := newEngine(v, nil)
		if _, err := anon.Stat(ctx, ws.ID, "CLAUDE.md"); !errors.Is(err, engine.ErrNotLoggedIn) {
			t.Fatalf("anonymous stat: %v", err)
		}
		if _, err := anon.Identity(); !errors.Is(err, engine.ErrNotLoggedIn) {
			t.Fatalf("anonymous identity: %v", err)
		}
	})
}

// TestFileReadOversizedContract: a CONTEXT.md over MaxContractBytes is
// refused, not truncated (a truncated one could parse differently). The
// ICM profile refuses such a file at commit, so it is written the way any
// git client could: straight into the vault.
func TestFileReadOversizedContract(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *engine.Engine, v engine.Vault) {
		ctx := context.Background()
		ws := must[*engine.Created](t)(e.InitWorkspace(ctx, "demo", ""))
		big := "---\nmcp:\n  tools:\n    - vault_file_info\n---\n" + strings.Repeat("x\n", engine.MaxContractBytes)
		head := forceFile(t, v, ws.ID, "stages/01-research/CONTEXT.md", big)
		h, blob, content, err := e.StageContract(ctx, ws.ID, "stages/01-research")
		if !errors.Is(err, engine.ErrRefused) || h != head || blob.IsZero() || content != nil {
			t.Fatalf("oversized contract: %v %v %v %d", err, h, blob, len(content))
		}
		// A folder named CONTEXT.md is not a contract either.
		forceFile(t, v, ws.ID, "stages/01-research/CONTEXT.md/x", "x")
		if _, _, _, err := e.StageContract(ctx, ws.ID, "stages/01-research"); !errors.Is(err, engine.ErrRefused) {
			t.Fatalf("folder contract: %v", err)
		}
	})
}

// forceFile commits content at slash path p of workspace wsID directly
// through the storage interface, bypassing every engine check (as stock
// git could), and returns the new head.
func forceFile(t *testing.T, v engine.Vault, wsID, p, content string) engine.Hash {
	t.Helper()
	return vaulttest.ForceFile(t, v, wsID, p, content)
}

func TestMatchGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"**", "a/b/c.md", true},
		{"**/*.md", "a.md", true},
		{"**/*.md", "a/b/c.md", true},
		{"**/*.md", "a/b/c.txt", false},
		{"*.md", "a/b.md", false},
		{"*.md", "b.md", true},
		{"stages/*/CONTEXT.md", "stages/01-x/CONTEXT.md", true},
		{"stages/*/CONTEXT.md", "stages/01-x/y/CONTEXT.md", false},
		{"stages/**/output/*", "stages/01-x/output/r.md", true},
		{"stages/**", "stages", true},
		{"stages/**/x", "stages/x", true},
		{"a/?.md", "a/b.md", true},
		{"a/[bc].md", "a/d.md", false},
		{"a/b", "a/b/c", false},
		{"[", "[", false},
	} {
		if got := engine.MatchGlob(c.pattern, c.path); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

// TestMatchGlobIsNotExponential: patterns that repeat "**" against deep
// paths answer at once (a backtracking matcher took minutes here).
func TestMatchGlobIsNotExponential(t *testing.T) {
	deep := strings.Repeat("a/", 60) + "c"
	pattern := strings.Repeat("**/a/", 12) + "b"
	start := time.Now()
	if engine.MatchGlob(pattern, deep) {
		t.Fatal("matched")
	}
	if !engine.MatchGlob(strings.Repeat("**/a/", 12)+"c", deep) {
		t.Fatal("did not match")
	}
	if d := time.Since(start); d > 10*time.Second { // a guard against blow-up, not a speed target
		t.Fatalf("took %v", d)
	}
}
