package gitbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/idxfile"

	"github.com/thalix/tv/engine"
)

func writeBatch(t *testing.T, v *Vault, fn func(w engine.ObjectWriter)) {
	t.Helper()
	w, err := v.NewObjectWriter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fn(w)
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
}

func mustBlob(t *testing.T, w engine.ObjectWriter, content string) engine.Hash {
	t.Helper()
	id, err := w.WriteBlob(strings.NewReader(content), int64(len(content)))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestCommitRoundTrip(t *testing.T) {
	ctx := context.Background()
	zones := []*time.Location{time.UTC, time.FixedZone("", 5*3600+30*60), time.FixedZone("", -8*3600), time.FixedZone("", -(3*3600 + 30*60)), time.FixedZone("", 14*3600)}
	messages := []string{
		"Import project\n",
		"Reason with trailers\n\nBody line.\n\nTv-Name: my-space\nTv-Kind: workspace\n",
		"no trailing newline",
		"",
		"\n\nleading blank lines\n",
		"unicode: ünïcødé ✓ 日本語\r\nCRLF line\r\n",
		"   spaces   \n\t\ttabs\n",
	}
	for _, kind := range vaultKinds {
		t.Run(kind.name, func(t *testing.T) {
			v := kind.new(t)
			tree := mustEmptyTree(t, v)
			var parents []engine.Hash
			for i, msg := range messages {
				zone := zones[i%len(zones)]
				c := &engine.Commit{
					ID:        engine.Hash{1, 2, 3}, // ignored
					Tree:      tree,
					Parents:   append([]engine.Hash(nil), parents...),
					Author:    engine.Signature{Name: fmt.Sprintf("Author %d", i), Email: "a@example.com", When: time.Date(2024, 1, 2, 3, 4, 5, 0, zone)},
					Committer: engine.Signature{Name: "Çommitter", Email: "c@example.org", When: time.Date(2025, 6, 7, 8, 9, 10, 0, zones[(i+1)%len(zones)])},
					Message:   msg,
				}
				var id engine.Hash
				writeBatch(t, v, func(w engine.ObjectWriter) {
					var err error
					if id, err = w.WriteCommit(c); err != nil {
						t.Fatal(err)
					}
				})
				got, err := v.ReadCommit(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if got.ID != id || got.Tree != tree || got.Message != msg || len(got.Parents) != len(c.Parents) {
					t.Fatalf("commit %d read back as %+v", i, got)
				}
				for j := range c.Parents {
					if got.Parents[j] != c.Parents[j] {
						t.Fatalf("commit %d parent %d = %s, want %s", i, j, got.Parents[j], c.Parents[j])
					}
				}
				for _, p := range [][2]engine.Signature{{got.Author, c.Author}, {got.Committer, c.Committer}} {
					g, w := p[0], p[1]
					_, goff := g.When.Zone()
					_, woff := w.When.Zone()
					if g.Name != w.Name || g.Email != w.Email || !g.When.Equal(w.When) || goff != woff {
						t.Fatalf("commit %d signature %+v, want %+v", i, g, w)
					}
				}
				if v.Path() != "" {
					// git sees the same commit: message and dates.
					raw := gitRaw(t, v.Path(), "cat-file", "commit", id.String())
					if _, gotMsg, _ := strings.Cut(raw, "\n\n"); gotMsg != msg {
						t.Fatalf("git cat-file commit message %q, want %q", gotMsg, msg)
					}
					wantDate := c.Author.When.Format("2006-01-02T15:04:05-07:00")
					if out := git(t, v.Path(), "", "log", "-1", "--format=%aI", id.String()); out != wantDate {
						t.Fatalf("git author date %s, want %s", out, wantDate)
					}
				}
				parents = append(parents, id)
				if len(parents) > 2 {
					parents = parents[1:] // merges of two parents
				}
			}
			if v.Path() != "" {
				mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_rt", New: parents[len(parents)-1]})
				fsckClean(t, v.Path())
			}
		})
	}
}

// TestReadGitWrittenObjects reads commits, trees and blobs git wrote
// (loose objects, then the same objects after `git repack`).
func TestReadGitWrittenObjects(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	blob := git(t, v.Path(), "hello from git\n", "hash-object", "-w", "--stdin")
	tree := git(t, v.Path(), "100644 blob "+blob+"\tgreeting.txt\n", "mktree")
	commit := git(t, v.Path(), "", "commit-tree", tree, "-m", "by git")
	for _, phase := range []string{"loose", "packed"} {
		if phase == "packed" {
			git(t, v.Path(), "", "update-ref", "refs/heads/main", commit)
			git(t, v.Path(), "", "repack", "-a", "-d", "-q")
			git(t, v.Path(), "", "prune-packed")
			if _, err := os.Stat(v.loosePath(mustParse(t, blob))); !os.IsNotExist(err) {
				t.Fatal("blob is still loose after repack")
			}
		}
		c, err := v.ReadCommit(ctx, mustParse(t, commit))
		if err != nil {
			t.Fatalf("%s: %v", phase, err)
		}
		_, off := c.Author.When.Zone()
		if c.Message != "by git\n" || c.Tree.String() != tree || c.Author.Name != "Git Tester" || c.Author.When.Unix() != 1700000000 || off != 3600 {
			t.Fatalf("%s: commit %+v", phase, c)
		}
		entries, err := v.ReadTree(ctx, c.Tree)
		if err != nil || len(entries) != 1 || entries[0].Name != "greeting.txt" || entries[0].Mode != engine.ModeFile || entries[0].ID.String() != blob {
			t.Fatalf("%s: tree %+v, %v", phase, entries, err)
		}
		rc, size, err := v.OpenBlob(ctx, entries[0].ID)
		if err != nil {
			t.Fatalf("%s: %v", phase, err)
		}
		if got := readAllClose(t, rc); string(got) != "hello from git\n" || size != int64(len(got)) {
			t.Fatalf("%s: blob %q size %d", phase, got, size)
		}
	}
}

func mustParse(t *testing.T, s string) engine.Hash {
	t.Helper()
	h, err := engine.ParseHash(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestTreesAndBlobs(t *testing.T) {
	ctx := context.Background()
	for _, kind := range vaultKinds {
		t.Run(kind.name, func(t *testing.T) {
			v := kind.new(t)
			var a, b, empty, sub, top engine.Hash
			entries := []engine.TreeEntry{}
			writeBatch(t, v, func(w engine.ObjectWriter) {
				a = mustBlob(t, w, "alpha\n")
				b = mustBlob(t, w, "beta\n")
				empty = mustBlob(t, w, "")
				var err error
				sub, err = w.WriteTree([]engine.TreeEntry{{Name: "inner.txt", Mode: engine.ModeFile, ID: a}})
				if err != nil {
					t.Fatal(err)
				}
				// Given out of order; "a" is a directory, so it sorts as "a/":
				// after "a-b" and "a.c" ('-' < '.' < '/'), before "a0".
				entries = []engine.TreeEntry{
					{Name: "z", Mode: engine.ModeExecutable, ID: b},
					{Name: "a0", Mode: engine.ModeFile, ID: a},
					{Name: "a", Mode: engine.ModeDir, ID: sub},
					{Name: "a.c", Mode: engine.ModeFile, ID: b},
					{Name: "a-b", Mode: engine.ModeFile, ID: empty},
					{Name: "B", Mode: engine.ModeFile, ID: a},
					{Name: "ünï", Mode: engine.ModeFile, ID: a},
				}
				top, err = w.WriteTree(entries)
				if err != nil {
					t.Fatal(err)
				}
			})
			got, err := v.ReadTree(ctx, top)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range got {
				names = append(names, e.Name)
			}
			if want := "B a-b a.c a a0 z ünï"; strings.Join(names, " ") != want {
				t.Fatalf("tree order %q, want %q", strings.Join(names, " "), want)
			}
			for _, e := range got {
				for _, w := range entries {
					if w.Name == e.Name && w != e {
						t.Fatalf("entry %+v read back as %+v", w, e)
					}
				}
			}
			for id, want := range map[engine.Hash]string{a: "alpha\n", b: "beta\n", empty: ""} {
				rc, size, err := v.OpenBlob(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if got := readAllClose(t, rc); string(got) != want || size != int64(len(want)) {
					t.Fatalf("blob %s = %q (size %d), want %q", id, got, size, want)
				}
			}
			if empty.String() != "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" {
				t.Fatalf("empty blob id %s", empty)
			}
			if v.Path() != "" {
				// git computes the same ids and reads what tv wrote.
				if id := git(t, v.Path(), "alpha\n", "hash-object", "--stdin"); id != a.String() {
					t.Fatalf("blob id %s, git says %s", a, id)
				}
				var spec strings.Builder
				for _, e := range entries {
					typ := "blob"
					if e.Mode == engine.ModeDir {
						typ = "tree"
					}
					fmt.Fprintf(&spec, "%s %s %s\t%s\n", strings.TrimPrefix(treeModeString(e.Mode), "0"), typ, e.ID, e.Name)
				}
				if id := git(t, v.Path(), spec.String(), "mktree"); id != top.String() {
					t.Fatalf("tree id %s, git mktree says %s", top, id)
				}
				if out := git(t, v.Path(), "", "cat-file", "-p", a.String()); out != "alpha" {
					t.Fatalf("git cat-file -p = %q", out)
				}
				c := mustCommitOnTree(t, v, top)
				mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_t", New: c})
				if out := git(t, v.Path(), "", "ls-tree", "-r", "--name-only", c.String()); out != "B\na-b\na.c\na/inner.txt\na0\nz\n\"\\303\\274n\\303\\257\"" {
					t.Fatalf("git ls-tree:\n%s", out)
				}
				fsckClean(t, v.Path())
			}
			// Not found and wrong type both mean "no such object here".
			missing := engine.Hash{0xde, 0xad}
			if _, err := v.ReadCommit(ctx, missing); !errors.Is(err, engine.ErrObjectNotFound) || !errors.Is(err, engine.ErrNotFound) {
				t.Errorf("ReadCommit(missing) = %v", err)
			}
			if _, err := v.ReadTree(ctx, missing); !errors.Is(err, engine.ErrObjectNotFound) {
				t.Errorf("ReadTree(missing) = %v", err)
			}
			if _, _, err := v.OpenBlob(ctx, missing); !errors.Is(err, engine.ErrObjectNotFound) {
				t.Errorf("OpenBlob(missing) = %v", err)
			}
			if _, err := v.ReadCommit(ctx, top); !errors.Is(err, engine.ErrObjectNotFound) || !strings.Contains(err.Error(), "tree") {
				t.Errorf("ReadCommit(tree) = %v", err)
			}
			if _, err := v.ReadTree(ctx, a); !errors.Is(err, engine.ErrObjectNotFound) {
				t.Errorf("ReadTree(blob) = %v", err)
			}
			if _, _, err := v.OpenBlob(ctx, top); !errors.Is(err, engine.ErrObjectNotFound) {
				t.Errorf("OpenBlob(tree) = %v", err)
			}
		})
	}
}

func mustCommitOnTree(t *testing.T, v *Vault, tree engine.Hash) engine.Hash {
	t.Helper()
	id, err := writeTestCommit(context.Background(), v, tree, "on tree\n", engine.ZeroHash)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestWriterRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	for _, kind := range vaultKinds {
		t.Run(kind.name, func(t *testing.T) {
			v := kind.new(t)
			w, err := v.NewObjectWriter(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			blob := mustBlob(t, w, "x")
			badTrees := map[string][]engine.TreeEntry{
				"empty name":     {{Name: "", Mode: engine.ModeFile, ID: blob}},
				"slash":          {{Name: "a/b", Mode: engine.ModeFile, ID: blob}},
				"dot":            {{Name: ".", Mode: engine.ModeFile, ID: blob}},
				"dotdot":         {{Name: "..", Mode: engine.ModeDir, ID: blob}},
				".git":           {{Name: ".GIT", Mode: engine.ModeDir, ID: blob}},
				"ntfs .git":      {{Name: ".git. ", Mode: engine.ModeDir, ID: blob}},
				"nul":            {{Name: "a\x00b", Mode: engine.ModeFile, ID: blob}},
				"symlink mode":   {{Name: "l", Mode: 0o120000, ID: blob}},
				"submodule mode": {{Name: "m", Mode: 0o160000, ID: blob}},
				"zero id":        {{Name: "z", Mode: engine.ModeFile}},
				"duplicate":      {{Name: "d", Mode: engine.ModeFile, ID: blob}, {Name: "d", Mode: engine.ModeExecutable, ID: blob}},
			}
			for name, entries := range badTrees {
				if _, err := w.WriteTree(entries); !errors.Is(err, engine.ErrRefused) {
					t.Errorf("WriteTree(%s) = %v, want ErrRefused", name, err)
				}
			}
			tree, err := w.WriteTree(nil)
			if err != nil {
				t.Fatal(err)
			}
			good := engine.Commit{Tree: tree, Author: testSig, Committer: testSig, Message: "m"}
			badCommits := map[string]func(c *engine.Commit){
				"no tree":        func(c *engine.Commit) { c.Tree = engine.ZeroHash },
				"< in name":      func(c *engine.Commit) { c.Author.Name = "a <b" },
				"> in email":     func(c *engine.Commit) { c.Committer.Email = "a>b" },
				"newline":        func(c *engine.Commit) { c.Author.Name = "a\nb" },
				"nul in message": func(c *engine.Commit) { c.Message = "a\x00b" },
				"zero parent":    func(c *engine.Commit) { c.Parents = []engine.Hash{{}} },
				"before 1970":    func(c *engine.Commit) { c.Author.When = time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC) },
			}
			for name, mutate := range badCommits {
				c := good
				mutate(&c)
				if _, err := w.WriteCommit(&c); !errors.Is(err, engine.ErrRefused) {
					t.Errorf("WriteCommit(%s) = %v, want ErrRefused", name, err)
				}
			}
			// Refused input leaves the batch usable.
			if _, err := w.WriteCommit(&good); err != nil {
				t.Fatal(err)
			}
			if err := w.Finish(); err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteTree(nil); !errors.Is(err, ErrWriterDone) {
				t.Errorf("write after Finish = %v, want ErrWriterDone", err)
			}
			if err := w.Abort(); err != nil {
				t.Errorf("Abort after Finish = %v", err)
			}
		})
	}
}

// TestBlobSizeMismatch: fewer or more bytes than size abort the batch;
// nothing of it becomes visible and no files are left.
func TestBlobSizeMismatch(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		content string
		size    int64
		reader  func(s string) io.Reader
	}{
		{"shorter", "abc", 4, func(s string) io.Reader { return strings.NewReader(s) }},
		{"longer", "abcde", 4, func(s string) io.Reader { return strings.NewReader(s) }},
		{"longer by one byte after a big read", strings.Repeat("x", 300<<10) + "!", 300 << 10, func(s string) io.Reader { return strings.NewReader(s) }},
		{"shorter, one byte at a time", "ab", 3, func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) }},
		{"reader error", "abc", 3, func(s string) io.Reader { return iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader(s))) }},
		{"negative size", "", -1, func(s string) io.Reader { return strings.NewReader(s) }},
	}
	for _, kind := range vaultKinds {
		for _, tc := range cases {
			t.Run(kind.name+"/"+tc.name, func(t *testing.T) {
				v := kind.new(t)
				w, err := v.NewObjectWriter(ctx)
				if err != nil {
					t.Fatal(err)
				}
				before := mustBlob(t, w, "written before the failure")
				if _, err := w.WriteBlob(tc.reader(tc.content), tc.size); err == nil {
					t.Fatal("size mismatch was accepted")
				}
				if _, err := w.WriteBlob(strings.NewReader("more"), 4); !errors.Is(err, ErrWriterDone) {
					t.Fatalf("write after failure = %v, want ErrWriterDone", err)
				}
				if err := w.Finish(); err == nil {
					t.Fatal("Finish after a failed write succeeded")
				}
				if err := w.Abort(); err != nil {
					t.Fatal(err)
				}
				if _, _, err := v.OpenBlob(ctx, before); !errors.Is(err, engine.ErrObjectNotFound) {
					t.Fatalf("object of an aborted batch is readable: %v", err)
				}
				if v.Path() != "" {
					if left := packFiles(t, v, "*"); len(left) != 0 {
						t.Fatalf("files left in objects/pack: %v", left)
					}
				}
			})
		}
	}
}

func TestBatchDedupAndEmpty(t *testing.T) {
	ctx := context.Background()
	v := newDiskVault(t)
	// A batch with nothing new writes nothing.
	writeBatch(t, v, func(engine.ObjectWriter) {})
	if files := packFiles(t, v, "*"); len(files) != 0 {
		t.Fatalf("empty batch wrote %v", files)
	}
	var old engine.Hash
	writeBatch(t, v, func(w engine.ObjectWriter) { old = mustBlob(t, w, "already there") })
	if n := len(packFiles(t, v, "pack-*.pack")); n != 1 {
		t.Fatalf("%d packs after one batch", n)
	}
	// Only existing objects: still nothing.
	writeBatch(t, v, func(w engine.ObjectWriter) {
		if id := mustBlob(t, w, "already there"); id != old {
			t.Fatal("id changed")
		}
	})
	if n := len(packFiles(t, v, "pack-*")); n != 2 {
		t.Fatalf("a batch of known objects wrote a pack: %v", packFiles(t, v, "*"))
	}
	// Duplicates within a batch and known objects are skipped, ids returned.
	var ids []engine.Hash
	big := strings.Repeat("big and compressible ", 50000)
	writeBatch(t, v, func(w engine.ObjectWriter) {
		ids = append(ids, mustBlob(t, w, "new 1"), mustBlob(t, w, big), mustBlob(t, w, "already there"),
			mustBlob(t, w, "new 1"), mustBlob(t, w, big), mustBlob(t, w, "new 2"))
	})
	if ids[0] != ids[3] || ids[1] != ids[4] || ids[2] != old {
		t.Fatal("duplicate writes returned different ids")
	}
	packs := packFiles(t, v, "pack-*.idx")
	if len(packs) != 2 {
		t.Fatalf("packs: %v", packs)
	}
	found := false
	for _, idx := range packs {
		out := git(t, v.Path(), "", "verify-pack", "-v", idx)
		if strings.Contains(out, ids[0].String()) {
			found = true
			if !strings.Contains(out, "non delta: 3 objects") || strings.Contains(out, old.String()) {
				t.Fatalf("the dedup batch's pack holds more than its 3 new objects:\n%s", out)
			}
		}
	}
	if !found {
		t.Fatal("no pack holds the new objects")
	}
	for i, want := range []string{"new 1", big, "already there", "new 1", big, "new 2"} {
		rc, _, err := v.OpenBlob(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if got := readAllClose(t, rc); string(got) != want {
			t.Fatalf("blob %d read back wrong (%d bytes)", i, len(got))
		}
	}
	fsckClean(t, v.Path())
}

// TestPacksFromOtherProcessesBecomeVisible: a vault that already loaded
// its pack list sees packs written later by another Vault (another
// process) and survives `git repack -a -d` deleting the packs it knew.
func TestPacksFromOtherProcessesBecomeVisible(t *testing.T) {
	ctx := context.Background()
	v1 := newDiskVault(t)
	var first engine.Hash
	writeBatch(t, v1, func(w engine.ObjectWriter) { first = mustBlob(t, w, "first") })
	if _, _, err := v1.OpenBlob(ctx, first); err != nil {
		t.Fatal(err)
	}
	v2, err := Open(v1.Path())
	if err != nil {
		t.Fatal(err)
	}
	var second engine.Hash
	writeBatch(t, v2, func(w engine.ObjectWriter) { second = mustBlob(t, w, "second") })
	rc, _, err := v1.OpenBlob(ctx, second)
	if err != nil {
		t.Fatalf("pack written by another vault is not visible: %v", err)
	}
	if got := readAllClose(t, rc); string(got) != "second" {
		t.Fatalf("got %q", got)
	}
	// git repack replaces every pack v1 knows by a new one.
	c := mustCommitOnTree(t, v1, mustEmptyTree(t, v1))
	mustUpdate(t, v1, engine.RefUpdate{Name: "refs/tv/workspaces/ws_r", New: c})
	git(t, v1.Path(), "", "tag", "keep-first", first.String())
	git(t, v1.Path(), "", "tag", "keep-second", second.String())
	git(t, v1.Path(), "", "repack", "-a", "-d", "-q")
	for _, id := range []engine.Hash{first, second} {
		rc, _, err := v1.OpenBlob(ctx, id)
		if err != nil {
			t.Fatalf("after git repack: %v", err)
		}
		rc.Close()
	}
	if _, err := v1.ReadCommit(ctx, c); err != nil {
		t.Fatalf("after git repack: %v", err)
	}
	// A fresh object from yet another writer, after the repack.
	var third engine.Hash
	writeBatch(t, v2, func(w engine.ObjectWriter) { third = mustBlob(t, w, "third") })
	if _, _, err := v1.OpenBlob(ctx, third); err != nil {
		t.Fatal(err)
	}
	fsckClean(t, v1.Path())
}

// TestIndexLargeOffsets checks the 64-bit offset table of the index
// encoder against go-git's decoder (packs over 2 GiB).
func TestIndexLargeOffsets(t *testing.T) {
	entries := []packEntry{
		{id: engine.Hash{0x10}, offset: 12, crc: 1},
		{id: engine.Hash{0xff, 1}, offset: 1<<31 + 5, crc: 2},
		{id: engine.Hash{0x00, 9}, offset: 5 << 32, crc: 3},
		{id: engine.Hash{0x10, 1}, offset: 1<<31 - 1, crc: 4},
	}
	dir := t.TempDir()
	name, err := writeIndexFile(dir, append([]packEntry(nil), entries...), [20]byte{7})
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, "pack-"+engine.Hash([20]byte{7}).String()+".idx")
	if err := os.Rename(name, final); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(final)
	if err != nil {
		t.Fatal(err)
	}
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(raw)).Decode(idx); err != nil {
		t.Fatal(err)
	}
	if idx.PackfileChecksum != [20]byte{7} {
		t.Fatalf("pack checksum %x, want the one written", idx.PackfileChecksum)
	}
	for _, e := range entries {
		off, err := idx.FindOffset([20]byte(e.id))
		if err != nil || off != e.offset {
			t.Errorf("offset of %s = %d, %v; want %d", e.id, off, err, e.offset)
		}
		crc, err := idx.FindCRC32([20]byte(e.id))
		if err != nil || crc != e.crc {
			t.Errorf("crc of %s = %d, %v; want %d", e.id, crc, err, e.crc)
		}
	}
	if n, _ := idx.Count(); n != 4 {
		t.Errorf("count %d", n)
	}
	data, _ := os.ReadFile(final)
	if !bytes.HasPrefix(data, []byte("\xfftOc\x00\x00\x00\x02")) {
		t.Error("bad magic")
	}
}

// TestConcurrentReadsAndWrites: goroutines read objects of every size
// class (in memory, read whole from a pack, streamed) while others write
// new batches and move refs. Run with -race.
func TestConcurrentReadsAndWrites(t *testing.T) {
	ctx := context.Background()
	sizes := []int{10, 20 << 10, 200 << 10, 2 << 20}
	for _, kind := range vaultKinds {
		t.Run(kind.name, func(t *testing.T) {
			v := kind.new(t)
			var ids []engine.Hash
			var contents [][]byte
			writeBatch(t, v, func(w engine.ObjectWriter) {
				for i, n := range sizes {
					c := bytes.Repeat([]byte{byte('a' + i)}, n)
					contents = append(contents, c)
					id, err := w.WriteBlob(bytes.NewReader(c), int64(n))
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, id)
				}
			})
			base := mustCommit(t, v, "base\n", engine.ZeroHash)
			mustUpdate(t, v, engine.RefUpdate{Name: "refs/tv/workspaces/ws_c", New: base})
			var wg sync.WaitGroup
			errc := make(chan error, 16)
			for r := range 4 {
				wg.Go(func() {
					for i := range 20 {
						k := (r + i) % len(ids)
						rc, n, err := v.OpenBlob(ctx, ids[k])
						if err != nil {
							errc <- err
							return
						}
						got, err := io.ReadAll(rc)
						rc.Close()
						if err != nil || n != int64(len(contents[k])) || !bytes.Equal(got, contents[k]) {
							errc <- fmt.Errorf("reader %d: blob %d read back wrong: %v", r, k, err)
							return
						}
						if _, err := v.ReadCommit(ctx, base); err != nil {
							errc <- err
							return
						}
						if _, err := v.ListRefs(ctx, "refs/tv/"); err != nil {
							errc <- err
							return
						}
					}
				})
			}
			for wr := range 2 {
				wg.Go(func() {
					for i := range 5 {
						w, err := v.NewObjectWriter(ctx)
						if err != nil {
							errc <- err
							return
						}
						c := fmt.Sprintf("writer %d batch %d", wr, i)
						id, err := w.WriteBlob(strings.NewReader(c), int64(len(c)))
						if err != nil {
							errc <- err
							return
						}
						if err := w.Finish(); err != nil {
							errc <- err
							return
						}
						rc, _, err := v.OpenBlob(ctx, id)
						if err != nil {
							errc <- fmt.Errorf("own write not readable: %w", err)
							return
						}
						rc.Close()
					}
				})
			}
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Error(err)
			}
			if v.Path() != "" {
				fsckClean(t, v.Path())
			}
		})
	}
}

// TestLoadedPackOutlivesItsFile: a pack whose index a vault has loaded
// stays readable after its files are deleted (a consolidation in another
// process deletes a pack once its objects are in a new one): the pack is
// opened with its index, not at its first read, so a reader racing a
// run of merges does not lose the pack it just found.
func TestLoadedPackOutlivesItsFile(t *testing.T) {
	ctx := context.Background()
	v1 := newDiskVault(t)
	var first engine.Hash
	writeBatch(t, v1, func(w engine.ObjectWriter) { first = mustBlob(t, w, "first") })
	v2, err := Open(v1.Path())
	if err != nil {
		t.Fatal(err)
	}
	// A miss makes v2 list and load the packs without reading from them.
	if _, _, err := v2.OpenBlob(ctx, engine.Hash{1, 2, 3}); !errors.Is(err, engine.ErrObjectNotFound) {
		t.Fatalf("missing blob: err = %v, want ErrObjectNotFound", err)
	}
	packs, err := filepath.Glob(filepath.Join(v1.Path(), "objects", "pack", "pack-*"))
	if err != nil || len(packs) == 0 {
		t.Fatalf("packs: %v, %v", packs, err)
	}
	for _, p := range packs {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	rc, _, err := v2.OpenBlob(ctx, first)
	if err != nil {
		t.Fatalf("a loaded pack deleted before its first read: %v", err)
	}
	if got := readAllClose(t, rc); string(got) != "first" {
		t.Fatalf("got %q", got)
	}
}

// TestObjectType: a loose object's type name maps to its pack type; a tag
// is refused as an object tv does not read (ErrObjectNotFound), and any
// other name, the empty one included, as a corrupt object.
func TestObjectType(t *testing.T) {
	h := engine.Hash{1}
	tests := []struct {
		name     string
		want     int
		notFound bool
		corrupt  bool
	}{
		{"commit", typeCommit, false, false},
		{"tree", typeTree, false, false},
		{"blob", typeBlob, false, false},
		{"tag", 0, true, false},
		{"", 0, false, true},
		{"Blob", 0, false, true},
		{"ofs-delta", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := objectType(tt.name, h)
			switch {
			case tt.notFound:
				if !errors.Is(err, engine.ErrObjectNotFound) {
					t.Fatalf("objectType(%q) = %d, %v; want ErrObjectNotFound", tt.name, got, err)
				}
			case tt.corrupt:
				if err == nil || !strings.Contains(err.Error(), "corrupt") {
					t.Fatalf("objectType(%q) = %d, %v; want a corrupt object", tt.name, got, err)
				}
			case err != nil || got != tt.want:
				t.Fatalf("objectType(%q) = %d, %v; want %d", tt.name, got, err, tt.want)
			}
		})
	}
}
