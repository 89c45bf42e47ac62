package vaultmcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/thalix/tv/engine"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// pageAll reads a file page by page, checking each page's invariants,
// and returns the text.
func pageAll(t *testing.T, s *Server, path string, maxBytes int) (string, int) {
	t.Helper()
	var (
		out   strings.Builder
		off   int64
		rev   string
		pages int
	)
	for {
		args := map[string]any{"path": path, "offset": off, "max_bytes": maxBytes}
		if off > 0 {
			args["revision"] = rev
		}
		var d fileReadData
		callTool(t, s, "vault_file_read", args).ok(t, &d)
		pages++
		if d.Offset != off || d.Length != len(d.Content) || d.Length > maxBytes || !utf8.ValidString(d.Content) || (rev != "" && d.Revision != rev) {
			t.Fatalf("page at %d: %+v", off, d)
		}
		rev = d.Revision
		out.WriteString(d.Content)
		if d.EOF {
			if d.NextOffset != nil || int64(out.Len()) != d.Size {
				t.Fatalf("last page %+v", d)
			}
			return out.String(), pages
		}
		if d.NextOffset == nil || *d.NextOffset <= off {
			t.Fatalf("no progress at %d: %+v", off, d)
		}
		off = *d.NextOffset
	}
}

func TestFileTools(t *testing.T) {
	f := newFixture(t)
	text := strings.Repeat("héllo wörld — ünïcode ✓ 😀\n", 1500) // ~45 KiB, multi-byte runes
	f.put(stage1+"/output/research.md", text)
	short := "a😀bé✓\n😀😀c"
	f.put(stage1+"/output/short.md", short)
	f.put(stage1+"/output/binary.bin", "abc\x00def")
	f.put(stage1+"/output/latin1.txt", "caf\xe9\n")
	f.put(stage1+"/output/controls.txt", strings.Repeat("\x01", MaxPageBytes*2))
	f.put(stage1+"/output/big.txt", strings.Repeat("x", MaxFileBytes+1))
	f.put(stage1+"/output/empty.txt", "")
	s := f.server(alice, stage1)

	// info
	var info fileInfoData
	env := callTool(t, s, "vault_file_info", map[string]any{"path": stage1 + "/output/research.md"}).ok(t, &info)
	if env.Repository == nil || env.Repository.ID != f.ws.ID || env.Repository.Name != "demo" {
		t.Fatalf("repository %+v", env.Repository)
	}
	if info.Size != int64(len(text)) || info.SHA256 == nil || *info.SHA256 != sha(text) || info.Text == nil || !*info.Text || info.Mode != "100644" || len(info.Version) != 40 {
		t.Fatalf("info %+v", info)
	}
	callTool(t, s, "vault_file_info", map[string]any{"path": stage1 + "/output/big.txt"}).ok(t, &info)
	if info.SHA256 != nil || info.Text != nil || info.Size != MaxFileBytes+1 {
		t.Fatalf("info of a big file %+v", info)
	}
	callTool(t, s, "vault_file_info", map[string]any{"path": stage1 + "/output/binary.bin"}).ok(t, &info)
	if *info.Text {
		t.Fatal("binary is text")
	}
	// Outside the stage: the contract's Inputs live there.
	callTool(t, s, "vault_file_info", map[string]any{"path": "_config/voice.md"}).ok(t, nil)
	callTool(t, s, "vault_file_info", map[string]any{"path": "nope.md"}).failed(t, "not_found")
	callTool(t, s, "vault_file_info", map[string]any{"path": "../x"}).failed(t, "refused")
	callTool(t, s, "vault_file_info", map[string]any{"path": "/etc/passwd"}).failed(t, "refused", "absolute")
	callTool(t, s, "vault_file_info", map[string]any{"path": stage1}).failed(t, "refused", "folder")
	callTool(t, s, "vault_file_info", map[string]any{}).failed(t, "invalid_arguments", "path")
	callTool(t, s, "vault_file_info", map[string]any{"path": "CLAUDE.md", "workspace": "other"}).failed(t, "invalid_arguments", "workspace")

	// find
	var fd fileFindData
	callTool(t, s, "vault_file_find", map[string]any{"pattern": stage1 + "/output/*"}).ok(t, &fd)
	var paths []string
	for _, x := range fd.Files {
		paths = append(paths, x.Path)
	}
	want := []string{".gitkeep", "big.txt", "binary.bin", "controls.txt", "empty.txt", "latin1.txt", "research.md", "short.md"}
	for i := range want {
		want[i] = stage1 + "/output/" + want[i]
	}
	if !slices.Equal(paths, want) || fd.Matched != len(want) || fd.Truncated {
		t.Fatalf("find %v (%d, %v)", paths, fd.Matched, fd.Truncated)
	}
	callTool(t, s, "vault_file_find", map[string]any{"pattern": "**", "limit": 2}).ok(t, &fd)
	if len(fd.Files) != 2 || !fd.Truncated || fd.Matched < 15 {
		t.Fatalf("find with limit %+v", fd)
	}
	callTool(t, s, "vault_file_find", map[string]any{"pattern": "**", "limit": MaxFindLimit + 1}).failed(t, "invalid_arguments")
	callTool(t, s, "vault_file_find", map[string]any{"pattern": "../**"}).failed(t, "refused")

	// read: whole file by pages, every page on a character boundary.
	for _, n := range []int{777, MaxPageBytes} {
		got, pages := pageAll(t, s, stage1+"/output/research.md", n)
		if got != text || pages < len(text)/n {
			t.Fatalf("max_bytes %d: %d pages, equal %v", n, pages, got == text)
		}
	}
	for _, n := range []int{MinPageBytes, 5, 6, 7} {
		got, _ := pageAll(t, s, stage1+"/output/short.md", n)
		if got != short {
			t.Fatalf("max_bytes %d: %q", n, got)
		}
	}
	var d fileReadData
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/research.md"}).ok(t, &d)
	if d.Length > DefaultPageBytes || d.Revision != sha(text) || d.EOF || *d.NextOffset != int64(d.Length) {
		t.Fatalf("first page %+v", d)
	}
	next := *d.NextOffset
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/research.md", "offset": next}).failed(t, "revision")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/research.md", "offset": 2, "revision": d.Revision}).failed(t, "inside a UTF-8 character")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/research.md", "offset": len(text) + 1, "revision": d.Revision}).failed(t, "past the end")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/research.md", "max_bytes": 3}).failed(t, "invalid_arguments")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/research.md", "max_bytes": MaxPageBytes + 1}).failed(t, "invalid_arguments")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/binary.bin"}).failed(t, "not UTF-8 text")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/latin1.txt"}).failed(t, "not UTF-8 text")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/big.txt"}).failed(t, "refused", "over the 1048576-byte limit")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/empty.txt"}).ok(t, &d)
	if !d.EOF || d.Length != 0 || d.NextOffset != nil || d.Revision != sha("") {
		t.Fatalf("empty file %+v", d)
	}
	// Control characters escape to 6 bytes each: the page shrinks so the
	// result stays under MaxStructuredBytes, and paging still ends.
	got, _ := pageAll(t, s, stage1+"/output/controls.txt", MaxPageBytes)
	if got != strings.Repeat("\x01", MaxPageBytes*2) {
		t.Fatal("controls file paged wrong")
	}

	// A change between pages refuses the continuation: restart at 0.
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/research.md"}).ok(t, &d)
	f.put(stage1+"/output/research.md", "new text\n")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/research.md", "offset": *d.NextOffset, "revision": d.Revision}).failed(t, "conflict", "changed since revision", "restart at offset 0")
	callTool(t, s, "vault_file_read", map[string]any{"path": stage1 + "/output/research.md", "revision": d.Revision}).ok(t, &d)
	if d.Content != "new text\n" || d.Revision != sha("new text\n") {
		t.Fatalf("restart %+v", d)
	}
}

// TestFileToolsAccess: with read on one stage only, the file tools read
// inside it and refuse everything else, existing or not.
func TestFileToolsAccess(t *testing.T) {
	f := newFixture(t)
	f.grant("carol", engine.RankRead, "demo:"+stage1)
	s := f.server(carol, stage1)
	callTool(t, s, "vault_file_info", map[string]any{"path": stage1 + "/CONTEXT.md"}).ok(t, nil)
	for _, p := range []string{stage2 + "/CONTEXT.md", "CLAUDE.md", stage2 + "/output/no-such.md"} {
		callTool(t, s, "vault_file_info", map[string]any{"path": p}).failed(t, "permission_denied", "carol needs read")
		callTool(t, s, "vault_file_read", map[string]any{"path": p}).failed(t, "permission_denied")
	}
	var fd fileFindData
	callTool(t, s, "vault_file_find", map[string]any{"pattern": "**"}).ok(t, &fd)
	for _, x := range fd.Files {
		if !strings.HasPrefix(x.Path, stage1+"/") {
			t.Errorf("carol finds %s", x.Path)
		}
	}
	if fd.Matched != len(fd.Files) || fd.Matched == 0 {
		t.Fatalf("carol's find %+v", fd)
	}
}

// TestFindResultCap: many long paths are cut to MaxStructuredBytes, with
// matched still exact.
func TestFindResultCap(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	co := filepath.Join(f.dir, "co")
	if _, err := f.admin.Checkout(ctx, "demo", co); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", 180)
	for i := range 400 {
		p := filepath.Join(co, stage1, "output", long+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".md")
		os.WriteFile(p, []byte("x\n"), 0o644)
	}
	if _, err := f.admin.Commit(ctx, co, "many files"); err != nil {
		t.Fatal(err)
	}
	s := f.server(alice, stage1)
	var fd fileFindData
	callTool(t, s, "vault_file_find", map[string]any{"pattern": stage1 + "/output/*.md", "limit": MaxFindLimit}).ok(t, &fd)
	if fd.Matched != 400 || !fd.Truncated || len(fd.Files) == 0 || len(fd.Files) >= 400 {
		t.Fatalf("capped find: %d of %d, truncated %v", len(fd.Files), fd.Matched, fd.Truncated)
	}
}

// TestWalkTestAndCommitTools: both take an absolute checkout of the scoped
// workspace only; commit needs a reason and goes through the engine's
// write check.
func TestWalkTestAndCommitTools(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	other, err := f.admin.InitWorkspace(ctx, "other", "")
	if err != nil {
		t.Fatal(err)
	}
	co, oco := filepath.Join(f.dir, "co"), filepath.Join(f.dir, "other")
	f.admin.Checkout(ctx, "demo", co)
	f.admin.Checkout(ctx, other.ID, oco)
	s := f.server(alice, stage1)

	var wt walkTestData
	env := callTool(t, s, "vault_workspace_walk_test", map[string]any{"checkout_dir": co}).ok(t, &wt)
	if !wt.Valid || wt.Changed || wt.Baseline != f.ws.Head.String() || env.Repository.ID != f.ws.ID {
		t.Fatalf("clean walk-test %+v", wt)
	}
	os.WriteFile(filepath.Join(co, stage1, "output", "research.md"), []byte("findings\n"), 0o644)
	os.WriteFile(filepath.Join(co, "_config", "voice.md"), []byte("# Voice\n\nPlain.\n"), 0o644)
	callTool(t, s, "vault_workspace_walk_test", map[string]any{"checkout_dir": co}).ok(t, &wt)
	if !wt.Changed || wt.Counts.Added != 1 || wt.Counts.Modified != 1 || wt.Added[0].Path != stage1+"/output/research.md" {
		t.Fatalf("walk-test %+v", wt)
	}
	for _, tool := range []string{"vault_workspace_walk_test", "vault_workspace_commit"} {
		args := func(dir string) map[string]any { return map[string]any{"checkout_dir": dir, "reason": "r"} }
		if tool == "vault_workspace_walk_test" {
			args = func(dir string) map[string]any { return map[string]any{"checkout_dir": dir} }
		}
		callTool(t, s, tool, args(oco)).failed(t, "refused", "not of the scoped workspace")
		callTool(t, s, tool, args("co")).failed(t, "absolute")
		callTool(t, s, tool, args(f.dir)).failed(t, "not_found", "not a tv checkout")
	}
	callTool(t, s, "vault_workspace_commit", map[string]any{"checkout_dir": co}).failed(t, "invalid_arguments", "reason")
	callTool(t, s, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": ""}).failed(t, "usage")

	// _config/voice.md is outside the stage: the scoped commit is refused,
	// naming it, until the change is undone.
	callTool(t, s, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "research: findings"}).failed(t, "permission_denied", "inside "+stage1, "_config/voice.md")
	f.admin.Checkout(ctx, "demo", filepath.Join(f.dir, "fresh"))
	voice, _ := os.ReadFile(filepath.Join(f.dir, "fresh", "_config", "voice.md"))
	os.WriteFile(filepath.Join(co, "_config", "voice.md"), voice, 0o644)
	var cr engine.CommitResult
	callTool(t, s, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "research: findings"}).ok(t, &cr)
	if cr.Added != 1 || cr.Modified != 0 || cr.Parent != f.ws.Head || cr.Version.IsZero() {
		t.Fatalf("commit %+v", cr)
	}
	log, _ := f.admin.Log(ctx, "demo", 1)
	if log.Versions[0].ID != cr.Version || log.Versions[0].Reason != "research: findings" || log.Versions[0].Author != "alice" {
		t.Fatalf("log %+v", log.Versions[0])
	}
	// An invalid tree is refused with its findings; nothing changes.
	os.Remove(filepath.Join(co, stage1, "CONTEXT.md"))
	before := refsOf(t, f.v)
	callTool(t, s, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "break"}).failed(t, "invalid_tree", "stage-files")
	if !slices.Equal(before, refsOf(t, f.v)) {
		t.Fatal("refused commit changed the vault")
	}
}

// TestCommitToolDenied: bob may write stage 1 only; a checkout change in
// stage 2 is refused (outside the scoped stage, before the engine's rank
// check) and the vault is unchanged.
func TestCommitToolDenied(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.grant("bob", engine.RankRead, "demo")
	f.grant("bob", engine.RankWrite, "demo:"+stage1)
	s := f.server(bob, stage1)
	co := filepath.Join(f.dir, "bob")
	if _, err := f.engine(bob).Checkout(ctx, "demo", co); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(co, stage2, "output", "draft.md"), []byte("draft\n"), 0o644)
	before := refsOf(t, f.v)
	callTool(t, s, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "sneaky"}).failed(t, "permission_denied", "only change paths inside "+stage1, stage2+"/output/draft.md")
	if !slices.Equal(before, refsOf(t, f.v)) {
		t.Fatal("denied commit changed the vault")
	}
}
