package gitbackend

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend/nettransport"
)

// packSource is a git repository with history whose objects delta
// against each other: ten versions of forty similar notes. Extras go
// into the same import: a last commit adding big.bin (when big is not
// nil) and an annotated tag v1 (when tag is set). One `git fast-import`
// writes it all: the objects are what ten `git add -A && git commit`
// rounds write, without two processes per version.
func packSource(t *testing.T, big []byte, tag bool) string {
	t.Helper()
	requireGit(t)
	dir := filepath.Join(t.TempDir(), "src")
	var body strings.Builder
	for i := range 200 {
		fmt.Fprintf(&body, "line %d of a note that changes a little in each version\n", i)
	}
	var in bytes.Buffer
	data := func(b []byte) { fmt.Fprintf(&in, "data %d\n%s\n", len(b), b) }
	commit := func(msg string) {
		in.WriteString("commit refs/heads/main\ncommitter Git Tester <git@example.com> 1700000000 +0100\n")
		data([]byte(msg))
	}
	for v := range 10 {
		commit(fmt.Sprintf("version %d", v))
		for n := range 40 {
			fmt.Fprintf(&in, "M 100644 inline notes/n%02d.md\n", n)
			data([]byte(fmt.Sprintf("# note %d version %d\n%s", n, v, body.String())))
		}
	}
	if big != nil {
		commit("big")
		in.WriteString("M 100644 inline big.bin\n")
		data(big)
	}
	if tag {
		in.WriteString("tag v1\nfrom refs/heads/main\ntagger Git Tester <git@example.com> 1700000000 +0100\n")
		data([]byte("a tag\n"))
	}
	for _, step := range []struct {
		args  []string
		stdin io.Reader
	}{
		{[]string{"init", "-q", "-b", "main", dir}, nil},
		{[]string{"-C", dir, "fast-import", "--quiet"}, &in},
	} {
		cmd := exec.Command("git", step.args...)
		cmd.Env = gitEnv(homeDir(t))
		cmd.Stdin = step.stdin
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(step.args, " "), err, out)
		}
	}
	return dir
}

// gitObject is one object as `git cat-file --batch` prints it.
type gitObject struct {
	id, typ string
	data    []byte
}

// gitObjects reads every object reachable from rev in gitDir with two git
// processes (rev-list, then one cat-file --batch), in rev-list's order.
func gitObjects(t *testing.T, gitDir, rev string) []gitObject {
	t.Helper()
	ids := git(t, gitDir, "", "rev-list", "--objects", "--no-object-names", rev)
	cmd := exec.Command("git", "--git-dir="+gitDir, "cat-file", "--batch")
	cmd.Env = gitEnv(homeDir(t))
	cmd.Stdin = strings.NewReader(ids + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	var objs []gitObject
	for len(out) > 0 {
		nl := bytes.IndexByte(out, '\n')
		f := strings.Fields(string(out[:nl]))
		if len(f) != 3 {
			t.Fatalf("git cat-file --batch: header %q", out[:nl])
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || nl+1+size >= len(out) || out[nl+1+size] != '\n' {
			t.Fatalf("git cat-file --batch: bad entry %q (%v)", out[:nl], err)
		}
		objs = append(objs, gitObject{id: f[0], typ: f[1], data: out[nl+1 : nl+1+size]})
		out = out[nl+1+size+1:]
	}
	if n := len(strings.Fields(ids)); n != len(objs) {
		t.Fatalf("git cat-file --batch printed %d objects for %d ids", len(objs), n)
	}
	return objs
}

// makePack runs git pack-objects on src's HEAD with the given options.
func makePack(t *testing.T, src string, opts ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", src, "pack-objects", "--revs", "--stdout", "-q"}, opts...)...)
	cmd.Env = gitEnv(homeDir(t))
	cmd.Stdin = strings.NewReader("HEAD\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git pack-objects: %v", err)
	}
	return out
}

// gitIndex returns the index `git index-pack` writes for pack.
func gitIndex(t *testing.T, pack []byte) []byte {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "x.pack")
	if err := os.WriteFile(p, pack, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "index-pack", "-o", filepath.Join(dir, "x.idx"), p)
	cmd.Env = gitEnv(homeDir(t))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git index-pack: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "x.idx"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStorePackMatchesGitIndexPack: a received pack is stored with the
// index git writes for it, byte for byte, whatever the pack holds (OFS
// or REF deltas, no deltas, an object over StreamThreshold, a tag, which
// go-git's writer indexes); every object
// reads back as git reads it, and the objects inflated on the way are
// handed out with the right contents.
func TestStorePackMatchesGitIndexPack(t *testing.T) {
	t.Parallel()
	big := make([]byte, StreamThreshold+4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte('a' + rng.IntN(26))
	}
	src := packSource(t, nil, false)
	bigSrc := packSource(t, big, false)
	tagSrc := packSource(t, nil, true)

	cases := []struct {
		name     string
		src      string
		opts     []string
		fastPath bool
	}{
		{"ofs deltas", src, []string{"--delta-base-offset"}, true},
		{"ref deltas", src, nil, true},
		{"no deltas", src, []string{"--window=0"}, true},
		{"object over StreamThreshold", bigSrc, []string{"--delta-base-offset"}, true},
		{"annotated tag (go-git's writer)", tagSrc, []string{"--delta-base-offset", "--include-tag", "--all"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pack := makePack(t, tc.src, tc.opts...)
			v := newDiskVault(t)
			fresh, err := v.storePack(bytes.NewReader(pack), nettransport.New().IndexPack)
			if err != nil {
				t.Fatal(err)
			}
			if tc.fastPath != (len(fresh) > 0) {
				t.Fatalf("fast path taken: %v, want %v", len(fresh) > 0, tc.fastPath)
			}
			idxs := packFiles(t, v, "pack-*.idx")
			if len(idxs) != 1 {
				t.Fatalf("objects/pack holds %d indexes, want 1", len(idxs))
			}
			got, err := os.ReadFile(idxs[0])
			if err != nil {
				t.Fatal(err)
			}
			if want := gitIndex(t, pack); !bytes.Equal(got, want) {
				t.Fatalf("index differs from git index-pack's (%d vs %d bytes)", len(got), len(want))
			}
			if left, _ := filepath.Glob(filepath.Join(v.packDir(), "tmp_*")); len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
			fsckClean(t, v.path)
			for _, g := range gitObjects(t, filepath.Join(tc.src, ".git"), "HEAD") {
				s, typ, want := g.id, g.typ, string(g.data)
				id, _ := engine.ParseHash(s)
				if typ == "blob" {
					rc, _, err := v.OpenBlob(context.Background(), id)
					if err != nil {
						t.Fatalf("read %s: %v", s, err)
					}
					if got := readAllClose(t, rc); string(got) != want {
						t.Fatalf("blob %s reads back different", s)
					}
				}
				if o, ok := fresh[id]; ok && (typeNames[o.typ] != typ || string(o.data) != want) {
					t.Fatalf("handed-out %s %s differs from git's", typ, s)
				}
				if o, ok := fresh[id]; tc.fastPath && !ok && len(want) <= StreamThreshold {
					t.Fatalf("%s %s (%d bytes) was not handed out", typ, s, len(o.data))
				}
			}
		})
	}
}

// TestStorePackRefusesDamage: a truncated or altered pack is refused and
// leaves nothing in objects/pack.
func TestStorePackRefusesDamage(t *testing.T) {
	t.Parallel()
	pack := makePack(t, packSource(t, nil, false), "--delta-base-offset")
	flip := func(at int) []byte {
		b := bytes.Clone(pack)
		b[at] ^= 0x40
		return b
	}
	cases := []struct {
		name string
		pack []byte
	}{
		{"truncated in an entry", pack[:len(pack)/2]},
		{"no trailer", pack[:len(pack)-20]},
		{"altered entry", flip(len(pack) / 3)},
		{"altered trailer", flip(len(pack) - 1)},
		{"not a pack", []byte("PACX\x00\x00\x00\x02\x00\x00\x00\x01")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := newDiskVault(t)
			if _, err := v.storePack(bytes.NewReader(tc.pack), nettransport.New().IndexPack); err == nil {
				t.Fatal("a damaged pack was stored")
			}
			if left, _ := filepath.Glob(filepath.Join(v.packDir(), "*")); len(left) > 0 {
				t.Fatalf("a refused pack left files: %v", left)
			}
		})
	}
}

// TestRemoteReadAheadHandsOutFetchedObjects: the read-ahead fetch of
// OpenRemote keeps the workspace's objects for their first reader, which
// gets the same bytes the cache's pack holds; each is handed out once.
func TestRemoteReadAheadHandsOutFetchedObjects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRemoteFixture(t)
	a := f.mustOpen(t)
	head := writeFileCommit(t, a, engine.ZeroHash, "a.md", "workspace a\n")
	if err := a.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_a", New: head}); err != nil {
		t.Fatal(err)
	}
	loc, err := ParseLocation(f.url)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenRemote(ctx, loc, RemoteOptions{Transport: nettransport.New(), CacheDir: t.TempDir(), Credentials: staticCreds{"alice", "s3cr3t-token"},
		ReadAhead: []string{"refs/tv/workspaces/ws_a"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.ReadCommit(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := b.ReadTree(ctx, c.Tree)
	if err != nil || len(entries) != 1 {
		t.Fatalf("tree: %v %v", entries, err)
	}
	blob := entries[0].ID
	if _, ok := b.fresh[blob]; !ok {
		t.Fatal("the read-ahead fetch kept no copy of the workspace's file")
	}
	for range 2 { // from memory, then from the cache's pack
		rc, size, err := b.OpenBlob(ctx, blob)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAllClose(t, rc); string(got) != "workspace a\n" || size != int64(len(got)) {
			t.Fatalf("blob reads %q (size %d)", got, size)
		}
		if _, ok := b.fresh[blob]; ok {
			t.Fatal("a handed-out object is still held")
		}
	}
	for _, id := range []engine.Hash{head, c.Tree} {
		if _, ok := b.fresh[id]; ok {
			t.Fatalf("%s was read but is still held", id)
		}
	}
}

// FuzzStorePack: any bytes are stored as a pack or refused, never a panic,
// and a refused pack leaves no file behind.
func FuzzStorePack(f *testing.F) {
	requireGit(f)
	dir := f.TempDir()
	cmd := exec.Command("git", "init", "-q", dir)
	cmd.Env = gitEnv(homeDir(f))
	if out, err := cmd.CombinedOutput(); err != nil {
		f.Fatalf("git init: %v\n%s", err, out)
	}
	for i := range 3 {
		os.WriteFile(filepath.Join(dir, "f.md"), []byte(strings.Repeat(fmt.Sprintf("version %d\n", i), 20)), 0o644)
		for _, args := range [][]string{{"add", "-A"}, {"commit", "-qm", "v"}} {
			c := exec.Command("git", append([]string{"-C", dir}, args...)...)
			c.Env = gitEnv(homeDir(f))
			if out, err := c.CombinedOutput(); err != nil {
				f.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	for _, opts := range [][]string{{"--delta-base-offset"}, nil} {
		c := exec.Command("git", append([]string{"-C", dir, "pack-objects", "--revs", "--stdout", "-q"}, opts...)...)
		c.Env = gitEnv(homeDir(f))
		c.Stdin = strings.NewReader("HEAD\n")
		out, err := c.Output()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(out)
	}
	f.Fuzz(func(t *testing.T, pack []byte) {
		v := openRepoForFuzz(t)
		if _, err := v.storePack(bytes.NewReader(pack), nettransport.New().IndexPack); err != nil {
			if left, _ := filepath.Glob(filepath.Join(v.packDir(), "*")); len(left) > 0 {
				t.Fatalf("a refused pack left files: %v", left)
			}
		}
	})
}

// openRepoForFuzz makes an empty on-disk repository without running git.
func openRepoForFuzz(t *testing.T) *Vault {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "v.git")
	if err := initRepo(dir); err != nil {
		t.Fatal(err)
	}
	return openRepo(dir)
}
