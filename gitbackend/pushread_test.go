package gitbackend

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/testexe"
)

// captureQuarantine pushes commit from src to the bare repository server
// through a pre-receive hook that copies receive-pack's quarantine and
// environment aside and refuses the push. It returns the getenv the hook
// had, with GIT_OBJECT_DIRECTORY pointing at the copy.
func captureQuarantine(t *testing.T, src, server, commit string) func(string) string {
	t.Helper()
	save := t.TempDir()
	hook := "#!/bin/sh\ncat >/dev/null\ncp -R \"$GIT_OBJECT_DIRECTORY\" '" + save + "/q'\nenv >'" + save + "/env'\nexit 1\n"
	testexe.Write(t, filepath.Join(server, "hooks", "pre-receive"), []byte(hook))
	if _, err := gitErr(t, src, "", "push", server, commit+":refs/heads/main"); err == nil {
		t.Fatal("the capturing hook did not refuse the push")
	}
	raw, err := os.ReadFile(filepath.Join(save, "env"))
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	env := map[string]string{}
	for line := range strings.Lines(string(raw)) {
		if k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "="); ok && strings.HasPrefix(k, "GIT_") {
			env[k] = v
		}
	}
	if env["GIT_QUARANTINE_PATH"] == "" || env["GIT_OBJECT_DIRECTORY"] == "" || env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] == "" {
		t.Fatalf("receive-pack set no quarantine: %v", env)
	}
	env["GIT_OBJECT_DIRECTORY"] = filepath.Join(save, "q")
	return func(k string) string { return env[k] }
}

// TestPushReader reads a real receive-pack quarantine in-process: a small
// push's loose objects and the repository's own packed objects (delta
// entries included); a push that stays a pack, and every other layout,
// are ErrPushLayout (the hook reads those with git).
func TestPushReader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	server := filepath.Join(root, "server.git")
	src := filepath.Join(root, "src.git")
	initRepoAt(t, server, true)
	initRepoAt(t, src, true)
	long := strings.Repeat("a line that repeats, so git stores the next version as a delta\n", 50)
	b0 := git(t, src, long+"the first version\n", "hash-object", "-w", "--stdin")
	c0 := git(t, src, "", "commit-tree", git(t, src, "100644 blob "+b0+"\tnotes.md\n", "mktree"), "-m", "zeroth")
	b1 := git(t, src, long, "hash-object", "-w", "--stdin")
	t1 := git(t, src, "100644 blob "+b1+"\tnotes.md\n", "mktree")
	c1 := git(t, src, "", "commit-tree", t1, "-p", c0, "-m", "first")
	git(t, src, "", "push", "-q", server, c1+":refs/heads/main")
	git(t, server, "", "gc", "-q", "--aggressive")
	packs, _ := filepath.Glob(filepath.Join(server, "objects", "pack", "*.idx"))
	if len(packs) != 1 || !strings.Contains(git(t, server, "", "verify-pack", "-v", packs[0]), "chain length = 1") {
		t.Fatalf("git gc made no delta in %v", packs)
	}
	b2 := git(t, src, long+"one more line\n", "hash-object", "-w", "--stdin")
	t2 := git(t, src, "100644 blob "+b2+"\tnotes.md\n", "mktree")
	c2 := git(t, src, "", "commit-tree", t2, "-p", c1, "-m", "second")

	getenv := captureQuarantine(t, src, server, c2)
	r, err := OpenPushReader(server, getenv)
	if err != nil {
		t.Fatalf("a small push's quarantine: %v", err)
	}
	for _, tc := range []struct {
		id    string
		typ   string
		limit int64
		want  string
	}{
		{c2, "commit", 1 << 10, "tree " + t2 + "\nparent " + c1 + "\n"}, // in the quarantine
		{t2, "tree", 1 << 10, "100644 notes.md\x00"},
		{b2, "blob", 4, long[:4]},
		{b2, "blob", 0, ""},
		{c1, "commit", 1 << 10, "tree " + t1 + "\n"}, // in the repository's pack
		{b1, "blob", 1 << 20, long},
		{b0, "blob", 1 << 20, long + "the first version\n"},
	} {
		typ, size, data, err := r.Object(ctx, mustParse(t, tc.id), tc.limit)
		if err != nil || typ != tc.typ || !strings.HasPrefix(string(data), tc.want) || int64(len(data)) != min(size, tc.limit) {
			t.Errorf("Object(%s, %d) = %s, %d, %q, %v; want a %s starting %q", tc.id, tc.limit, typ, size, data, err, tc.typ, tc.want)
		}
	}
	if _, _, _, err := r.Object(ctx, mustParse(t, strings.Repeat("ab", 20)), 1); !errors.Is(err, engine.ErrObjectNotFound) {
		t.Errorf("a missing object: %v", err)
	}
	if h, err := r.Ref(ctx, "refs/heads/main"); err != nil || h.String() != c1 {
		t.Errorf("Ref = %s, %v; want %s", h, err, c1)
	}
	if refs, err := r.ListRefs(ctx, "refs/heads/"); err != nil || len(refs) != 1 {
		t.Errorf("ListRefs = %v, %v", refs, err)
	}

	// The reader mapped the pack's index on its first read. A git repack
	// now replaces that pack by another: every object still reads (the
	// vault's rescan finds the new pack), and Close unmaps what it mapped.
	if len(r.releases) != 1 {
		t.Fatalf("the reader mapped %d pack indexes, want 1", len(r.releases))
	}
	extra := git(t, server, "one more object, so the new pack differs\n", "hash-object", "-w", "--stdin")
	git(t, server, "", "update-ref", "refs/tags/extra", extra)
	git(t, server, "", "repack", "-q", "-a", "-d", "-f", "--depth=3")
	if now, _ := filepath.Glob(filepath.Join(server, "objects", "pack", "*.idx")); len(now) != 1 || now[0] == packs[0] {
		t.Fatalf("git repack left %v (was %v)", now, packs)
	}
	for _, id := range []string{b0, c1, b1, c2, extra} { // extra: only in the new pack
		if _, _, _, err := r.Object(ctx, mustParse(t, id), 1<<20); err != nil {
			t.Errorf("after git repack: Object(%s): %v", id, err)
		}
	}
	if err := r.Close(); err != nil || r.releases != nil {
		t.Errorf("Close: %v, %d mappings left", err, len(r.releases))
	}

	git(t, server, "", "config", "receive.unpackLimit", "1")
	packed := captureQuarantine(t, src, server, c2)
	if _, err := OpenPushReader(server, packed); !errors.Is(err, ErrPushLayout) {
		t.Errorf("a quarantine holding a pack: %v, want ErrPushLayout", err)
	}
}

// TestPushReaderLayouts: every layout but a plain bare repository with
// files refs, SHA-1 objects and no foreign alternates is ErrPushLayout.
func TestPushReaderLayouts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, repo string) map[string]string
		ok    bool
	}{
		{"a plain bare repository", func(t *testing.T, repo string) map[string]string { return nil }, true},
		{"GIT_DIR naming it", func(t *testing.T, repo string) map[string]string { return map[string]string{"GIT_DIR": "."} }, true},
		{"its own objects as the alternate", func(t *testing.T, repo string) map[string]string {
			return map[string]string{"GIT_ALTERNATE_OBJECT_DIRECTORIES": filepath.Join(repo, "objects")}
		}, true},
		{"objects/info/alternates", func(t *testing.T, repo string) map[string]string {
			writeTestFile(t, filepath.Join(repo, "objects", "info", "alternates"), t.TempDir()+"\n")
			return nil
		}, false},
		{"a reftable directory", func(t *testing.T, repo string) map[string]string {
			if err := os.Mkdir(filepath.Join(repo, "reftable"), 0o755); err != nil {
				t.Fatal(err)
			}
			return nil
		}, false},
		{"another object format", func(t *testing.T, repo string) map[string]string {
			git(t, repo, "", "config", "extensions.objectFormat", "sha256")
			return nil
		}, false},
		{"a foreign alternate", func(t *testing.T, repo string) map[string]string {
			return map[string]string{"GIT_ALTERNATE_OBJECT_DIRECTORIES": t.TempDir()}
		}, false},
		{"a quarantine without the repository as alternate", func(t *testing.T, repo string) map[string]string {
			return map[string]string{"GIT_OBJECT_DIRECTORY": t.TempDir()}
		}, false},
		{"GIT_DIR elsewhere", func(t *testing.T, repo string) map[string]string { return map[string]string{"GIT_DIR": t.TempDir()} }, false},
		{"GIT_COMMON_DIR", func(t *testing.T, repo string) map[string]string { return map[string]string{"GIT_COMMON_DIR": repo} }, false},
		{"GIT_NAMESPACE", func(t *testing.T, repo string) map[string]string { return map[string]string{"GIT_NAMESPACE": "team"} }, false},
		{"a work tree's repository", func(t *testing.T, repo string) map[string]string {
			os.RemoveAll(repo)
			initRepoAt(t, filepath.Dir(repo)+"/wt", false)
			return map[string]string{"GIT_DIR": filepath.Dir(repo) + "/wt"}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "vault.git")
			initRepoAt(t, repo, true)
			env := tc.setup(t, repo)
			_, err := OpenPushReader(repo, func(k string) string { return env[k] })
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrPushLayout) {
				t.Fatalf("got %v, want ErrPushLayout", err)
			}
		})
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// initRepoAt runs `git init` at dir, bare or with a work tree.
func initRepoAt(t *testing.T, dir string, bare bool) {
	t.Helper()
	args := []string{"init", "-q", dir}
	if bare {
		args = []string{"init", "-q", "--bare", dir}
	}
	cmd := exec.Command("git", args...)
	cmd.Env = gitEnv(homeDir(t))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init %s: %v\n%s", dir, err, out)
	}
}

// TestEntryEndScanAndSort: entryEnd answers its first scanEntryEnds calls
// by scanning the offsets and later ones from the sorted list; both give
// every entry's end in a pack git wrote.
func TestEntryEndScanAndSort(t *testing.T) {
	t.Parallel()
	repo := filepath.Join(t.TempDir(), "r.git")
	initRepoAt(t, repo, true)
	// The blobs are written by one git, not one git per blob.
	files := t.TempDir()
	paths := make([]string, 3*scanEntryEnds)
	for i := range paths {
		paths[i] = filepath.Join(files, strconv.Itoa(i))
		if err := os.WriteFile(paths[i], []byte(strings.Repeat("line\n", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ids := strings.Fields(git(t, repo, strings.Join(paths, "\n")+"\n", "hash-object", "-w", "--stdin-paths"))
	if len(ids) != len(paths) {
		t.Fatalf("git hash-object wrote %d blobs, want %d", len(ids), len(paths))
	}
	var listing strings.Builder
	for i, id := range ids {
		listing.WriteString("100644 blob " + id + "\tf" + strings.Repeat("x", i) + "\n")
	}
	git(t, repo, "", "update-ref", "refs/heads/main", git(t, repo, "", "commit-tree", git(t, repo, listing.String(), "mktree"), "-m", "m"))
	git(t, repo, "", "repack", "-a", "-d", "-q")
	idxs, _ := filepath.Glob(filepath.Join(repo, "objects", "pack", "pack-*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("packs: %v", idxs)
	}
	name := strings.TrimSuffix(filepath.Base(idxs[0]), ".idx")
	x, err := loadPackIndex(idxs[0], name)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(repo, "objects", "pack", name+".pack"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(x.off32) / 4
	offs := make([]int64, n)
	for i := range n {
		offs[i] = x.offset(i)
	}
	slices.Sort(offs)
	for i, off := range offs {
		want := fi.Size() - 20
		if i+1 < n {
			want = offs[i+1]
		}
		if got := x.entryEnd(off, fi.Size()); got != want {
			t.Fatalf("call %d: entry at %d ends at %d, want %d", i+1, off, got, want)
		}
	}
	if n <= scanEntryEnds || x.offs == nil {
		t.Fatalf("%d entries: the sorted path was not taken", n)
	}
}
