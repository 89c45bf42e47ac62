package tvcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPServeCommitConfinedToStage: a stage-scoped server run by a user
// with manage refuses a commit that changes paths outside its stage
// (another stage's file, the root CONTEXT.md, a deletion), naming them and
// writing nothing; the same checkout with only in-stage changes commits.
func TestMCPServeCommitConfinedToStage(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	ws := e.setup()
	s := e.serve("alice", "", "--workspace", ws, "--stage", "stages/01-research")
	co := filepath.Join(e.base, "alice-co")
	e.must("alice", "workspace", "checkout", "demo", "--output", co)
	inside := filepath.Join(co, "stages", "01-research", "output", "research.md")
	os.WriteFile(inside, []byte("findings\n"), 0o644)
	draft := filepath.Join(co, "stages", "02-draft", "CONTEXT.md")
	oldDraft, _ := os.ReadFile(draft)
	os.WriteFile(draft, append(oldDraft, "edited from stage 01\n"...), 0o644)
	rootCtx := filepath.Join(co, "CONTEXT.md")
	oldRoot, _ := os.ReadFile(rootCtx)
	os.WriteFile(rootCtx, append(oldRoot, "edited from stage 01\n"...), 0o644)
	voice := filepath.Join(co, "_config", "voice.md")
	oldVoice, _ := os.ReadFile(voice)
	os.Remove(voice)

	before := e.refs()
	s.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "reach out"}).
		refused(t, "permission_denied", "only change paths inside stages/01-research", "CONTEXT.md", "stages/02-draft/CONTEXT.md", "_config/voice.md", "nothing was committed")
	if e.refs() != before {
		t.Fatal("a refused commit changed the vault")
	}
	if r := s.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "reach out"}); strings.Contains(r.text, "stages/01-research/output/research.md") {
		t.Fatalf("the refusal names an in-stage path: %s", r.text)
	}

	os.WriteFile(draft, oldDraft, 0o644)
	os.WriteFile(rootCtx, oldRoot, 0o644)
	os.WriteFile(voice, oldVoice, 0o644)
	var cr struct{ Added, Modified, Deleted int }
	s.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "research findings"}).ok(t, &cr)
	if cr.Added != 1 || cr.Modified != 0 || cr.Deleted != 0 {
		t.Fatalf("commit %+v", cr)
	}
}

// TestHistoryForFolderReaders: bob may read stages/01-research only. A
// version alice made in stages/02-draft alone shows him no reason, author
// or counts in `tv workspace log`, `tv workspace list` and
// vault_workspace_list (redacted); one that also touched his stage shows
// its reason and counts only his paths.
func TestHistoryForFolderReaders(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	e.setup()
	e.must("alice", "access", "grant", "bob", "read", "demo:stages/01-research")
	co := filepath.Join(e.base, "alice-co")
	e.must("alice", "workspace", "checkout", "demo", "--output", co)
	os.WriteFile(filepath.Join(co, "stages", "01-research", "output", "r.md"), []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(co, "stages", "02-draft", "output", "d1.md"), []byte("hidden\n"), 0o644)
	e.must("alice", "workspace", "commit", co, "--reason", "both stages SHOWN-REASON")
	os.WriteFile(filepath.Join(co, "stages", "02-draft", "output", "d2.md"), []byte("hidden\n"), 0o644)
	os.WriteFile(filepath.Join(co, "stages", "02-draft", "output", "d3.md"), []byte("hidden\n"), 0o644)
	e.must("alice", "workspace", "commit", co, "--reason", "draft only SECRET-REASON")

	type version struct {
		Author, Reason           string
		Added, Modified, Deleted int
		Redacted                 bool
	}
	var log struct{ Versions []version }
	if err := json.Unmarshal([]byte(e.must("bob", "workspace", "log", "demo", "--json")), &log); err != nil || len(log.Versions) < 3 {
		t.Fatalf("log: %v %+v", err, log)
	}
	if v := log.Versions[0]; !v.Redacted || v.Author != "" || v.Reason != "" || v.Added+v.Modified+v.Deleted != 0 {
		t.Fatalf("draft-only version shown to bob: %+v", v)
	}
	if v := log.Versions[1]; v.Redacted || v.Reason != "both stages SHOWN-REASON" || v.Author != "alice" || v.Added != 1 {
		t.Fatalf("mixed version: %+v (want reason, author and 1 added: his path only)", v)
	}
	for _, out := range []string{e.must("bob", "workspace", "log", "demo"), e.must("bob", "workspace", "list"), e.must("bob", "workspace", "list", "--json")} {
		if strings.Contains(out, "SECRET-REASON") {
			t.Fatalf("bob sees the hidden reason:\n%s", out)
		}
	}
	if out := e.must("alice", "workspace", "list"); !strings.Contains(out, "SECRET-REASON") {
		t.Fatalf("alice, who reads everything, lost the reason:\n%s", out)
	}
	var wl struct {
		Workspaces []struct {
			UpdatedBy string `json:"updated_by"`
			Reason    string
			Partial   bool
		}
	}
	e.serve("bob", "").call(t, "vault_workspace_list", nil).ok(t, &wl)
	if len(wl.Workspaces) != 1 || wl.Workspaces[0].Reason != "" || wl.Workspaces[0].UpdatedBy != "" || !wl.Workspaces[0].Partial {
		t.Fatalf("vault_workspace_list for bob: %+v", wl)
	}
}

// TestHiddenBadEntriesNotNamed: a symlink and a gitlink planted with stock
// git in stages/02-draft, which bob cannot read, fail his checkout (CLI
// and vault_workspace_checkout) and vault_file_find closed, without naming
// them; his log still works. alice, who reads everything, is told the path.
func TestHiddenBadEntriesNotNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ mode, name, target string }{
		{"120000", "HIDDEN-LINK-7731", "/etc/passwd"},
		{"160000", "HIDDEN-GITLINK-7731", "1111111111111111111111111111111111111111"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			e := newVSEnv(t)
			ws := e.setup()
			e.must("alice", "access", "grant", "bob", "read", "demo:stages/01-research")
			e.plantEntry(ws, tc.mode, "stages/02-draft/output/"+tc.name, tc.target)
			hidden := func(where, text string) {
				t.Helper()
				for _, word := range []string{tc.name, "02-draft"} {
					if strings.Contains(text, word) {
						t.Fatalf("%s names the hidden entry (%q):\n%s", where, word, text)
					}
				}
			}
			out, errs, code := e.tv("bob", "", "workspace", "checkout", "demo", "--output", filepath.Join(e.base, "bob-co"))
			if code == 0 {
				t.Fatalf("bob's checkout succeeded over a planted entry:\n%s", out)
			}
			hidden("tv workspace checkout", out+errs)
			r := e.serve("bob", "").call(t, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": filepath.Join(e.base, "bob-co2")})
			r.refused(t, "folder you cannot read")
			hidden("vault_workspace_checkout", r.text)
			r = e.serve("bob", "", "--workspace", "demo", "--stage", "stages/01-research").call(t, "vault_file_find", map[string]any{"pattern": "**"})
			r.refused(t, "folder you cannot read")
			hidden("vault_file_find", r.text)
			hidden("tv workspace log", e.must("bob", "workspace", "log", "demo"))

			_, errs, code = e.tv("alice", "", "workspace", "checkout", "demo", "--output", filepath.Join(e.base, "alice-co"))
			if code == 0 || !strings.Contains(errs, tc.name) {
				t.Fatalf("alice's checkout: exit %d, want the planted path named:\n%s", code, errs)
			}
		})
	}
}

// TestMCPServeUnboundFailsClosed: a scoped server whose workspace cannot
// be resolved — unknown, invisible to the user, or nobody logged in —
// starts, lists no tools, refuses every call with the reason, and its
// instructions say why and what to do (the README's not-found and
// not-logged-in fail-closed reasons).
func TestMCPServeUnboundFailsClosed(t *testing.T) {
	t.Parallel()
	e := newVSEnv(t)
	e.setup()
	for _, c := range []struct{ name, user, ws, reason, advice string }{
		{"unknown workspace", "alice", "nosuch", "not-found", "tv workspace list"},
		{"invisible workspace", "bob", "demo", "not-found", "tv workspace list"},
		{"not logged in", "dave", "demo", "not-logged-in", "tv login"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := e.serve(c.user, "", "--workspace", c.ws, "--stage", "stages/01-research")
			if got := s.names(t); len(got) != 0 {
				t.Fatalf("tools %v", got)
			}
			ins := s.cs.InitializeResult().Instructions
			for _, w := range []string{"NO TOOLS", c.reason, c.advice} {
				if !strings.Contains(ins, w) {
					t.Fatalf("instructions %q lack %q", ins, w)
				}
			}
			s.call(t, "vault_file_read", map[string]any{"path": "CLAUDE.md"}).refused(t, "fail-closed", c.reason)
			if r := e.lastEvidence(); r.Result != "fail-closed" || r.Reason != c.reason {
				t.Fatalf("evidence %+v", r)
			}
		})
	}
}
