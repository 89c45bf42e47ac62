package vaultmcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/internal/testclock"
)

// session connects an SDK client to s, so notifications have somewhere
// to go.
func session(t *testing.T, s *Server) *testClient { return client(t, s) }

// listChanged counts the tools/list_changed notifications the client
// received (waiting a moment for ones in flight).
func listChanged(c *testClient) int {
	n := 0
	for {
		select {
		case <-c.changed:
			n++
		case <-time.After(200 * time.Millisecond):
			return n
		}
	}
}

func refsOf(t *testing.T, v engine.Vault) []engine.Ref {
	t.Helper()
	refs, err := v.ListRefs(context.Background(), "refs/")
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

// editPolicy rewrites the frontmatter of a checkout's stage CONTEXT.md.
func editPolicy(t *testing.T, co, stage string, tools ...string) {
	t.Helper()
	p := filepath.Join(co, filepath.FromSlash(stage), "CONTEXT.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b)[4:], "---\n")
	if !ok {
		t.Fatalf("%s has no frontmatter", p)
	}
	fm := (&icm.Policy{Tools: tools}).Frontmatter()
	if err := os.WriteFile(p, append(fm, rest...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestScopeFollowsContract: a committed CONTEXT.md change that drops a
// tool sends list_changed once, records a "changed" evidence line, and
// the dropped tool is refused; a head move elsewhere changes nothing.
func TestScopeFollowsContract(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	s := f.server(alice, stage1)
	sess := session(t, s)
	if got := listNames(t, s); len(got) != 5 {
		t.Fatalf("visible %v", got)
	}
	n := len(f.records())
	for range 3 {
		listNames(t, s)
	}
	if len(f.records()) != n || listChanged(sess) != 0 {
		t.Fatal("evidence or notification without a change")
	}

	co := filepath.Join(f.dir, "co")
	if _, err := f.admin.Checkout(ctx, "demo", co); err != nil {
		t.Fatal(err)
	}
	// Another stage's change moves the head but not this scope.
	os.WriteFile(filepath.Join(co, stage2, "output", "draft.md"), []byte("draft\n"), 0o644)
	if _, err := f.admin.Commit(ctx, co, "draft"); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, s); len(got) != 5 || len(f.records()) != n || listChanged(sess) != 0 {
		t.Fatalf("head move elsewhere: visible %v, %d records", got, len(f.records()))
	}

	editPolicy(t, co, stage1, "vault_file_info", "vault_file_read", "vault_workspace_walk_test", "vault_workspace_commit")
	if _, err := f.admin.Commit(ctx, co, "stage 1: no find"); err != nil {
		t.Fatal(err)
	}
	callTool(t, s, "vault_file_find", map[string]any{"pattern": "**"}).failed(t, "vault_file_find refused", "not available in this scope")
	if got := listChanged(sess); got != 1 {
		t.Fatalf("%d list_changed notifications, want 1", got)
	}
	if got := listNames(t, s); slices.Contains(got, "vault_file_find") || len(got) != 4 {
		t.Fatalf("visible after the change %v", got)
	}
	r := f.lastRecord()
	if r.Event != EventChanged || r.Result != ResultScoped || r.Reason != ReasonOK || len(r.Visible) != 4 || r.Hidden != 1 {
		t.Fatalf("evidence %+v", r)
	}
	_, st, _ := f.admin.ReadVersionFile(ctx, f.ws.ID, stage1+"/CONTEXT.md", 1<<20)
	if r.ContractVersion != st.Version.String() {
		t.Fatalf("contract version %s, want %s", r.ContractVersion, st.Version)
	}
	callTool(t, s, "vault_file_info", map[string]any{"path": stage1 + "/CONTEXT.md"}).ok(t, nil)

	// Restoring the tool brings it back, with another notification.
	editPolicy(t, co, stage1, icm.KnownTools()...)
	if _, err := f.admin.Commit(ctx, co, "stage 1: find again"); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, s); len(got) != 5 || listChanged(sess) != 1 {
		t.Fatalf("restored: %v", got)
	}
}

// TestScopeFollowsAccess: lowering write to read hides the commit tool;
// a call to it is refused before it touches anything.
func TestScopeFollowsAccess(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.grant("bob", engine.RankWrite, "demo:"+stage1)
	s := f.server(bob, stage1)
	sess := session(t, s)
	if got := listNames(t, s); !slices.Contains(got, "vault_workspace_commit") {
		t.Fatalf("bob with write: %v", got)
	}
	co := filepath.Join(f.dir, "bob")
	if _, err := f.engine(bob).Checkout(ctx, "demo", co); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(co, stage1, "output", "research.md"), []byte("findings\n"), 0o644)

	f.grant("bob", engine.RankRead, "demo:"+stage1)
	before := refsOf(t, f.v)
	callTool(t, s, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "sneak"}).failed(t, "not available in this scope", "rank")
	if !slices.Equal(before, refsOf(t, f.v)) {
		t.Fatal("a refused call changed the vault")
	}
	if n := listChanged(sess); n != 1 {
		t.Fatalf("%d notifications", n)
	}
	r := f.lastRecord()
	if r.Event != EventChanged || r.Rank != "read" || r.Reason != ReasonRank || slices.Contains(r.Visible, "vault_workspace_commit") {
		t.Fatalf("evidence %+v", r)
	}
	// The read tools still work, as before.
	callTool(t, s, "vault_workspace_walk_test", map[string]any{"checkout_dir": co}).ok(t, nil)

	// Write again: the tool returns and commits.
	f.grant("bob", engine.RankWrite, "demo:"+stage1)
	var cr engine.CommitResult
	callTool(t, s, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "bob: findings"}).ok(t, &cr)
	if cr.Added != 1 || cr.Version.IsZero() {
		t.Fatalf("commit %+v", cr)
	}
}

// TestScopeTTL: the scope is cached for at most ScopeTTL: a change is
// invisible right away and visible once the TTL has passed.
func TestScopeTTL(t *testing.T) {
	f := newFixture(t)
	f.grant("bob", engine.RankWrite, "demo:"+stage1)
	s := f.server(bob, stage1)
	clock := testclock.New()
	s.cfg.Now = clock.Now
	if got := listNames(t, s); len(got) != 5 { // resolved at now (TTL 0)
		t.Fatalf("visible %v", got)
	}
	s.ttl = ScopeTTL
	f.grant("bob", engine.RankRead, "demo:"+stage1)
	clock.Advance(ScopeTTL - time.Millisecond)
	if got := listNames(t, s); len(got) != 5 {
		t.Fatalf("within the TTL: %v", got)
	}
	clock.Advance(time.Millisecond)
	if got := listNames(t, s); len(got) != 4 {
		t.Fatalf("after the TTL: %v", got)
	}
	if ScopeTTL > 2*time.Second {
		t.Fatalf("ScopeTTL %v is over 2 s", ScopeTTL)
	}
}
