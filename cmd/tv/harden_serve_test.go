package main

import (
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
