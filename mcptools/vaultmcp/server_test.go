package vaultmcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/mounts"
)

const (
	stage1 = "stages/01-research"
	stage2 = "stages/02-draft"
)

func TestNewRefusesBadScope(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, c := range []struct {
		ws, stage string
		kind      error
	}{
		{f.ws.ID, "", engine.ErrUsage},
		{"", stage1, engine.ErrUsage},
		{f.ws.ID, "01_research/x", engine.ErrUsage},
		{f.ws.ID, "stages/research", engine.ErrUsage},
		{f.ws.ID, "../stages/01-research", engine.ErrUsage},
		{f.ws.ID, "stages/01-research/output", engine.ErrUsage},
		{engine.BuiltinTemplateID, stage1, engine.ErrUsage},
	} {
		_, err := New(ctx, Config{Engine: f.admin, Workspace: c.ws, Stage: c.stage})
		if !errors.Is(err, c.kind) {
			t.Errorf("New(%q, %q): %v, want %v", c.ws, c.stage, err, c.kind)
		}
	}
	// An unknown workspace, one bob cannot see, or nobody logged in: the
	// server starts fail-closed, binds to nothing, lists no tool, refuses
	// every call with the reason, and its instructions say what to do.
	for _, c := range []struct {
		name   string
		who    *engine.Credentials
		ws     string
		reason string
		advice string
	}{
		{"unknown", alice, "nosuch", ReasonNotFound, "tv workspace list"},
		{"invisible", bob, "demo", ReasonNotFound, "tv workspace list"},
		{"not logged in", nil, "demo", ReasonNotLoggedIn, "tv login"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(ctx, Config{Engine: f.engine(c.who), Workspace: c.ws, Stage: stage1, EvidencePath: f.evidence})
			if err != nil {
				t.Fatalf("New: %v; want a fail-closed server", err)
			}
			if got := listNames(t, s); len(got) != 0 {
				t.Fatalf("tools %v", got)
			}
			callTool(t, s, "vault_file_read", map[string]any{"path": "CLAUDE.md"}).failed(t, "not available in this scope", "fail-closed", c.reason)
			if r := f.lastRecord(); r.Result != ResultFailClosed || r.Reason != c.reason {
				t.Fatalf("evidence %+v", r)
			}
			var init struct {
				Instructions string `json:"instructions"`
			}
			json.Unmarshal(rpc(t, s, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}), &init)
			for _, w := range []string{"NO TOOLS", c.reason, c.advice, "restart"} {
				if !strings.Contains(init.Instructions, w) {
					t.Fatalf("instructions %q lack %q", init.Instructions, w)
				}
			}
		})
	}
	for _, ok := range []string{"01-research", "stages/01-research/", "stages/01-research"} {
		if got, err := StageFolder(ok); err != nil || got != stage1 {
			t.Errorf("StageFolder(%q) = %q, %v", ok, got, err)
		}
	}
}

func TestUnscopedTools(t *testing.T) {
	f := newFixture(t)
	s := f.server(alice, "")
	if got, want := listNames(t, s), []string{"vault_template_list", "vault_whoami", "vault_workspace_checkout", "vault_workspace_list"}; !slices.Equal(got, want) {
		t.Fatalf("unscoped tools %v, want %v", got, want)
	}
	var who whoamiData
	r := callTool(t, s, "vault_whoami", map[string]any{})
	env := r.ok(t, &who)
	if who.User != "alice" || who.VaultID != f.v.ID() || env.Repository != nil || strings.Contains(r.text(), alice.Token) {
		t.Fatalf("whoami %+v %s", who, r.text())
	}
	callTool(t, s, "vault_whoami", map[string]any{"x": 1}).failed(t, "invalid_arguments", "x")

	var tl templateListData
	callTool(t, s, "vault_template_list", nil).ok(t, &tl)
	if tl.Total != 1 || !tl.Templates[0].Builtin || tl.Truncated {
		t.Fatalf("templates %+v", tl)
	}
	var wl workspaceListData
	callTool(t, s, "vault_workspace_list", nil).ok(t, &wl)
	if wl.Total != 1 || wl.Workspaces[0].ID != f.ws.ID || wl.Workspaces[0].Rank != "manage" || wl.Workspaces[0].Partial {
		t.Fatalf("alice's workspaces %+v", wl)
	}

	// Bob sees nothing until he may read a stage; then the workspace is
	// listed as partial, and a checkout holds just that stage.
	sb := f.server(bob, "")
	callTool(t, sb, "vault_workspace_list", nil).ok(t, &wl)
	if wl.Total != 0 || wl.Workspaces == nil {
		t.Fatalf("bob's workspaces before a grant %+v", wl)
	}
	callTool(t, sb, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": filepath.Join(f.dir, "x")}).failed(t, "not_found")
	f.grant("bob", engine.RankRead, "demo:"+stage1)
	callTool(t, sb, "vault_workspace_list", nil).ok(t, &wl)
	if wl.Total != 1 || wl.Workspaces[0].Rank != "none" || !wl.Workspaces[0].Partial {
		t.Fatalf("bob's workspaces %+v", wl)
	}
	co := filepath.Join(f.dir, "bob-co")
	var cd struct {
		Dir   string   `json:"dir"`
		Files int      `json:"files"`
		Scope []string `json:"scope"`
	}
	env = callTool(t, sb, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": co}).ok(t, &cd)
	if cd.Dir != co || !slices.Equal(cd.Scope, []string{stage1}) || env.Repository == nil || env.Repository.ID != f.ws.ID {
		t.Fatalf("checkout %+v %+v", cd, env.Repository)
	}
	filepath.Walk(co, func(p string, fi os.FileInfo, err error) error {
		rel, _ := filepath.Rel(co, p)
		if fi.Mode().IsRegular() && !strings.HasPrefix(rel, stage1+"/") && !strings.HasPrefix(rel, ".thalix") {
			t.Errorf("partial checkout holds %s", rel)
		}
		return nil
	})
	ms, err := mounts.Read(filepath.Join(f.dir, "state", "tv", "mounts.json"))
	if err != nil || len(ms) != 1 || ms[0].Path != co || ms[0].WorkspaceID != f.ws.ID {
		t.Fatalf("mount registry %+v %v", ms, err)
	}
	callTool(t, sb, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": co}).failed(t, "conflict", "not empty")
	callTool(t, sb, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": "rel/dir"}).failed(t, "absolute")
	callTool(t, sb, "vault_workspace_checkout", map[string]any{"workspace": "demo"}).failed(t, "output_dir")

	// Nobody logged in: whoami says how to log in.
	callTool(t, f.server(nil, ""), "vault_whoami", nil).failed(t, "permission_denied", "tv login")
	// Scoped tools do not exist in unscoped mode.
	if _, rerr := rpcRaw(t, s, "tools/call", map[string]any{"name": "vault_file_info", "arguments": map[string]any{"path": "CLAUDE.md"}}); rerr == nil {
		t.Fatal("vault_file_info callable unscoped")
	}
}

// TestScopedVisibleByRank: the visible set is the declared tools that the
// caller's effective rank on the stage allows, for read, write and manage.
func TestScopedVisibleByRank(t *testing.T) {
	f := newFixture(t)
	f.grant("bob", engine.RankWrite, "demo:"+stage1)
	f.grant("carol", engine.RankRead, "demo")
	all := icm.KnownTools()
	readOnly := all[:4]
	stage2Declared := []string{"vault_file_info", "vault_file_read", "vault_workspace_walk_test", "vault_workspace_commit"}
	for _, c := range []struct {
		who    *engine.Credentials
		stage  string
		want   []string
		reason string
		rank   string
	}{
		{alice, stage1, all, ReasonOK, "manage"},
		{bob, stage1, all, ReasonOK, "write"},
		{carol, stage1, readOnly, ReasonRank, "read"},
		{alice, stage2, stage2Declared, ReasonOK, "manage"},
		{carol, stage2, []string{"vault_file_info", "vault_file_read", "vault_workspace_walk_test"}, ReasonRank, "read"},
		{bob, stage2, []string{}, ReasonRank, "none"},
	} {
		t.Run(c.who.User+"/"+c.stage, func(t *testing.T) {
			s := f.server(c.who, c.stage)
			got := listNames(t, s)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("visible %v, want %v", got, want)
			}
			r := f.lastRecord()
			wantResult := ResultScoped
			if c.rank == "none" {
				wantResult = ResultFailClosed
			}
			if r.Result != wantResult || r.Reason != c.reason || r.Rank != c.rank || !slices.Equal(r.Visible, c.want) || r.Hidden != len(all)-len(c.want) || r.Workspace != f.ws.ID || r.Stage != c.stage {
				t.Fatalf("evidence %+v", r)
			}
			for _, name := range all {
				if !slices.Contains(c.want, name) {
					callTool(t, s, name, map[string]any{}).failed(t, "not available in this scope")
				}
			}
		})
	}
}

// corpus is malformed or missing stage policies, each with the reason the
// server must record. Every one fails closed.
func corpus() []struct{ name, content, reason string } {
	const body = "# 01 Research\n\nPurpose.\n"
	ok := "mcp:\n  tools:\n    - vault_file_info\n"
	var many strings.Builder
	for i := 0; i <= icm.MaxPolicyTools; i++ {
		many.WriteString("    - vault_file_info\n")
	}
	return []struct{ name, content, reason string }{
		{"no frontmatter", body, ReasonMissing},
		{"empty file", "", ReasonMissing},
		{"blank line first", "\n---\n" + ok + "---\n" + body, icm.ReasonNotFirst},
		{"byte-order mark", "\uFEFF---\n" + ok + "---\n" + body, icm.ReasonNotFirst},
		{"trailing blank on opening", "--- \n" + ok + "---\n" + body, icm.ReasonBadDelimiter},
		{"unterminated", "---\n" + ok + body, icm.ReasonUnterminated},
		{"too large", "---\n" + ok + "# " + strings.Repeat("x", icm.MaxPolicyBytes) + "\n---\n" + body, icm.ReasonTooLarge},
		{"document marker", "---\n" + ok + "...\n---\n" + body, icm.ReasonDocumentMarker},
		{"directive", "---\n%YAML 1.2\n" + ok + "---\n" + body, icm.ReasonDirective},
		{"malformed yaml", "---\nmcp: [\n---\n" + body, icm.ReasonMalformedYAML},
		{"only a comment", "---\n# nothing\n---\n" + body, icm.ReasonEmpty},
		{"alias", "---\nmcp:\n  tools: &t\n    - vault_file_info\n  again: *t\n---\n" + body, icm.ReasonAlias},
		{"anchor", "---\nmcp:\n  tools:\n    - &a vault_file_info\n---\n" + body, icm.ReasonAnchor},
		{"tag", "---\nmcp:\n  tools:\n    - !!str vault_file_info\n---\n" + body, icm.ReasonTag},
		{"merge key", "---\n<<: {}\n" + ok + "---\n" + body, icm.ReasonMergeKey},
		{"top-level list", "---\n- vault_file_info\n---\n" + body, icm.ReasonNotMapping},
		{"other key", "---\n" + ok + "extra: 1\n---\n" + body, icm.ReasonUnknownKey},
		{"duplicate key", "---\nmcp:\n  tools:\n    - vault_file_info\n  tools:\n    - vault_file_read\n---\n" + body, icm.ReasonDuplicateKey},
		{"no mcp", "---\n{}\n---\n" + body, icm.ReasonMissingMCP},
		{"empty mcp", "---\nmcp:\n---\n" + body, icm.ReasonMissingTools},
		{"tools a string", "---\nmcp:\n  tools: vault_file_info\n---\n" + body, icm.ReasonNotSequence},
		{"tools empty", "---\nmcp:\n  tools: []\n---\n" + body, icm.ReasonNoTools},
		{"too many tools", "---\nmcp:\n  tools:\n" + many.String() + "---\n" + body, icm.ReasonTooManyTools},
		{"nested entry", "---\nmcp:\n  tools:\n    - [vault_file_info]\n---\n" + body, icm.ReasonNested},
		{"block scalar entry", "---\nmcp:\n  tools:\n    - |\n      vault_file_info\n---\n" + body, icm.ReasonBlockScalar},
		{"empty entry", "---\nmcp:\n  tools:\n    -\n---\n" + body, icm.ReasonEmptyEntry},
		{"number entry", "---\nmcp:\n  tools:\n    - 1\n---\n" + body, icm.ReasonNonString},
		{"null entry", "---\nmcp:\n  tools:\n    - ~\n---\n" + body, icm.ReasonNonString},
		{"unknown tool", "---\nmcp:\n  tools:\n    - vault_file_delete_everything\n---\n" + body, icm.ReasonUnknownTool},
		{"local tool name", "---\nmcp:\n  tools:\n    - execute_bash\n---\n" + body, icm.ReasonUnknownTool},
		{"duplicate tool", "---\nmcp:\n  tools:\n    - vault_file_info\n    - vault_file_info\n---\n" + body, icm.ReasonDuplicateTool},
	}
}

// TestScopeFailClosedCorpus: every malformed or missing policy leaves no
// tool visible, refuses every call, and records its own reason.
func TestScopeFailClosedCorpus(t *testing.T) {
	f := newFixture(t)
	seen := map[string]bool{}
	for _, c := range corpus() {
		t.Run(c.name, func(t *testing.T) {
			if c.reason != ReasonMissing {
				// The corpus is what icm says it is.
				if _, err := icm.ParsePolicy([]byte(c.content), icm.KnownTools()); icm.PolicyReason(err) != c.reason {
					t.Fatalf("icm reason %q, corpus says %q", icm.PolicyReason(err), c.reason)
				}
			}
			f.put(stage1+"/CONTEXT.md", c.content)
			s := f.server(alice, stage1)
			if got := listNames(t, s); len(got) != 0 {
				t.Fatalf("visible %v", got)
			}
			for _, name := range icm.KnownTools() {
				callTool(t, s, name, map[string]any{"path": "CLAUDE.md"}).failed(t, "refused", "fail-closed", c.reason)
			}
			r := f.lastRecord()
			if r.Result != ResultFailClosed || r.Reason != c.reason || len(r.Visible) != 0 || r.Hidden != len(icm.KnownTools()) || r.Rank != "manage" {
				t.Fatalf("evidence %+v", r)
			}
			if c.content != "" && r.ContractVersion == "" {
				t.Fatalf("no contract version: %+v", r)
			}
			seen[c.reason] = true
		})
	}
	// A stage without CONTEXT.md at all.
	s := f.server(alice, "stages/07-absent")
	if got := listNames(t, s); len(got) != 0 {
		t.Fatalf("absent stage: visible %v", got)
	}
	if r := f.lastRecord(); r.Reason != ReasonMissing || r.ContractVersion != "" || r.Result != ResultFailClosed {
		t.Fatalf("absent stage evidence %+v", r)
	}
	for _, reason := range icm.PolicyReasons() {
		if !seen[reason] {
			t.Errorf("corpus lacks reason %s", reason)
		}
	}
	if n := len(corpus()); n < 25 {
		t.Fatalf("corpus has %d cases", n)
	}
}

// TestScopeFailClosedOther: no login, no rank, an oversized contract and
// a vanished workspace all fail closed with their reason.
func TestScopeFailClosedOther(t *testing.T) {
	f := newFixture(t)
	f.grant("bob", engine.RankRead, "demo:"+stage2)
	s := f.server(bob, stage1)
	if got := listNames(t, s); len(got) != 0 {
		t.Fatalf("bob on stage 1: %v", got)
	}
	if r := f.lastRecord(); r.Reason != ReasonRank || r.Rank != "none" || r.ContractVersion != "" {
		t.Fatalf("no rank: %+v", r)
	}

	sa := f.server(alice, stage1)
	f.put(stage1+"/CONTEXT.md", "---\n"+"mcp:\n  tools:\n    - vault_file_info\n---\n"+strings.Repeat("x\n", engine.MaxContractBytes))
	if got := listNames(t, sa); len(got) != 0 {
		t.Fatalf("oversized contract: %v", got)
	}
	if r := f.lastRecord(); r.Reason != ReasonContractRefused || r.Event != EventChanged {
		t.Fatalf("oversized contract: %+v", r)
	}

	// Logged out after start: the engine has no actor.
	so := f.server(alice, stage2)
	so.eng = f.engine(nil)
	if got := listNames(t, so); len(got) != 0 {
		t.Fatalf("logged out: %v", got)
	}
	if r := f.lastRecord(); r.Reason != ReasonNotLoggedIn {
		t.Fatalf("logged out: %+v", r)
	}

	// The workspace ref disappears.
	head, _ := f.v.Ref(context.Background(), engine.WorkspaceRefPrefix+f.ws.ID)
	if err := f.v.UpdateRefs(context.Background(), engine.RefUpdate{Name: engine.WorkspaceRefPrefix + f.ws.ID, Old: head, New: engine.ZeroHash}); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, sa); len(got) != 0 {
		t.Fatalf("vanished workspace: %v", got)
	}
	if r := f.lastRecord(); r.Reason != ReasonNotFound {
		t.Fatalf("vanished workspace: %+v", r)
	}
}
