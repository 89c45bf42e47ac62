package gitbackend

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend/gitservertest"
	"github.com/thalix/tv/gitbackend/nettransport"
)

type staticCreds struct{ user, token string }

func (c staticCreds) Lookup(string) (string, string, bool) { return c.user, c.token, c.token != "" }

// remoteFixture is an http-backend server with one empty repository.
type remoteFixture struct {
	srv  *gitservertest.HTTP
	repo string // the server's bare repository
	url  string
}

func newRemoteFixture(t *testing.T, config ...string) *remoteFixture {
	t.Helper()
	requireGit(t)
	root := t.TempDir()
	repo := filepath.Join(root, "vault.git")
	gitservertest.InitBare(t, repo, config...)
	srv := gitservertest.StartHTTP(t, root, map[string]string{"alice": "s3cr3t-token"})
	return &remoteFixture{srv: srv, repo: repo, url: srv.URL + "/vault.git"}
}

func (f *remoteFixture) open(t *testing.T, creds Credentials) (*Remote, error) {
	t.Helper()
	loc, err := ParseLocation(f.url)
	if err != nil {
		t.Fatal(err)
	}
	return OpenRemote(context.Background(), loc, RemoteOptions{Transport: nettransport.New(), CacheDir: t.TempDir(), Credentials: creds})
}

func (f *remoteFixture) mustOpen(t *testing.T) *Remote {
	t.Helper()
	r, err := f.open(t, staticCreds{"alice", "s3cr3t-token"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// writeFileCommit writes a commit whose tree holds path → content on top
// of parent's tree (parent zero: a tree of that file alone).
func writeFileCommit(t *testing.T, v engine.Vault, parent engine.Hash, name, content string) engine.Hash {
	t.Helper()
	ctx := context.Background()
	var entries []engine.TreeEntry
	if !parent.IsZero() {
		c, err := v.ReadCommit(ctx, parent)
		if err != nil {
			t.Fatal(err)
		}
		if entries, err = v.ReadTree(ctx, c.Tree); err != nil {
			t.Fatal(err)
		}
	}
	w, err := v.NewObjectWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.WriteBlob(strings.NewReader(content), int64(len(content)))
	if err != nil {
		t.Fatal(err)
	}
	kept := entries[:0]
	for _, e := range entries {
		if e.Name != name {
			kept = append(kept, e)
		}
	}
	tree, err := w.WriteTree(append(kept, engine.TreeEntry{Name: name, Mode: engine.ModeFile, ID: b}))
	if err != nil {
		t.Fatal(err)
	}
	var parents []engine.Hash
	if !parent.IsZero() {
		parents = []engine.Hash{parent}
	}
	sig := engine.Signature{Name: "t", Email: "t@x", When: time.Unix(1700000000, 0)}
	c, err := w.WriteCommit(&engine.Commit{Tree: tree, Parents: parents, Author: sig, Committer: sig, Message: content})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRemoteHTTP: an empty repository on a smart-HTTP server becomes a
// vault; commits are atomic pushes with exact old values; another client
// with its own cache reads them; stale pushes are refused and change
// nothing; the token appears in no error, cache file or server ref.
func TestRemoteHTTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRemoteFixture(t)
	a := f.mustOpen(t)
	if a.ID() == "" || gitservertest.Git(t, f.repo, "cat-file", "blob", VaultIDRef) != "tv vault\nTv-Vault-Id: "+a.ID() {
		t.Fatalf("empty repository was not made a vault with id %q", a.ID())
	}
	const ws = "refs/tv/workspaces/ws_a"
	c1 := writeFileCommit(t, a, engine.ZeroHash, "a.md", "one\n")
	if err := a.UpdateRefs(ctx, engine.RefUpdate{Name: ws, New: c1}, engine.RefUpdate{Name: engine.AccessRef, Verify: true}); err != nil {
		t.Fatal(err)
	}
	if got := gitservertest.Git(t, f.repo, "rev-parse", ws); got != c1.String() {
		t.Fatalf("server %s = %s, want %s", ws, got, c1)
	}
	// A second client, its own cache: same vault, same ref, same content.
	b := f.mustOpen(t)
	if b.ID() != a.ID() {
		t.Fatalf("ids differ: %s %s", a.ID(), b.ID())
	}
	if h, err := b.Ref(ctx, ws); err != nil || h != c1 {
		t.Fatalf("b.Ref = %s, %v", h, err)
	}
	c2 := writeFileCommit(t, b, c1, "b.md", "two\n")
	if err := b.UpdateRefs(ctx, engine.RefUpdate{Name: ws, Old: c1, New: c2}); err != nil {
		t.Fatal(err)
	}
	// a still believes c1: its push is stale and changes nothing.
	c3 := writeFileCommit(t, a, c1, "c.md", "three\n")
	err := a.UpdateRefs(ctx, engine.RefUpdate{Name: ws, Old: c1, New: c3})
	if !errors.Is(err, engine.ErrRefStale) {
		t.Fatalf("stale push: %v, want ErrRefStale", err)
	}
	if got := gitservertest.Git(t, f.repo, "rev-parse", ws); got != c2.String() {
		t.Fatalf("server moved after a refused push: %s", got)
	}
	// After the refusal a's view is fresh: re-applying on top lands.
	if h, err := a.Ref(ctx, ws); err != nil || h != c2 {
		t.Fatalf("a.Ref after refusal = %s, %v", h, err)
	}
	c4 := writeFileCommit(t, a, c2, "c.md", "three\n")
	if err := a.UpdateRefs(ctx, engine.RefUpdate{Name: ws, Old: c2, New: c4}); err != nil {
		t.Fatal(err)
	}
	// A stale verify-only step refuses the whole push.
	c5 := writeFileCommit(t, a, c4, "d.md", "four\n")
	err = a.UpdateRefs(ctx, engine.RefUpdate{Name: ws, Old: c4, New: c5}, engine.RefUpdate{Name: engine.AccessRef, Old: c1, Verify: true})
	if !errors.Is(err, engine.ErrRefStale) {
		t.Fatalf("stale verify: %v", err)
	}
	if got := gitservertest.Git(t, f.repo, "rev-parse", ws); got != c4.String() {
		t.Fatalf("server moved after a refused verify: %s", got)
	}
	gitservertest.Git(t, f.repo, "fsck", "--strict")
	// Wrong token: permission, and the token is never echoed.
	_, err = f.open(t, staticCreds{"alice", "wrong-token-xyz"})
	if !errors.Is(err, engine.ErrPermission) || strings.Contains(err.Error(), "wrong-token-xyz") {
		t.Fatalf("wrong token: %v", err)
	}
	if out, err := exec.Command("grep", "-r", "-l", "s3cr3t-token", a.CacheDir(), f.repo).CombinedOutput(); err == nil {
		t.Fatalf("token written into the cache or the server: %s", out)
	}
}

// TestRemoteOnlyChangedObjectsSent: a one-file commit sends its blob, the
// trees on its path and the commit, not the rest of the workspace.
func TestRemoteOnlyChangedObjectsSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRemoteFixture(t)
	a := f.mustOpen(t)
	c := engine.ZeroHash
	for i := range 30 {
		c = writeFileCommit(t, a, c, "f"+itoa3(i)+".md", "content "+itoa3(i)+"\n")
	}
	if err := a.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_x", New: c}); err != nil {
		t.Fatal(err)
	}
	next := writeFileCommit(t, a, c, "f000.md", "changed\n")
	has := map[engine.Hash]bool{c: true}
	objs, err := a.cache.objectsToSend(ctx, []engine.Hash{next}, has)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 { // commit, root tree, blob
		t.Fatalf("sending %d objects for a one-file change, want 3", len(objs))
	}
}

func itoa3(i int) string {
	return string([]byte{byte('0' + i/100), byte('0' + i/10%10), byte('0' + i%10)})
}

// TestRemoteNoAtomic: a server without the atomic capability is refused
// before anything is sent.
func TestRemoteNoAtomic(t *testing.T) {
	ctx := context.Background()
	f := newRemoteFixture(t)
	a := f.mustOpen(t) // the id push happens before atomic is turned off
	gitservertest.Git(t, f.repo, "config", "receive.advertiseAtomic", "false")
	c := writeFileCommit(t, a, engine.ZeroHash, "a.md", "x\n")
	err := a.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_a", New: c}, engine.RefUpdate{Name: "refs/tv/workspaces/ws_b", New: c})
	if !errors.Is(err, ErrNoAtomic) || !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("push to a non-atomic server: %v", err)
	}
	if out := gitservertest.Git(t, f.repo, "for-each-ref", "refs/tv/workspaces"); out != "" {
		t.Fatalf("refs changed: %s", out)
	}
}

// TestRemoteUnreachable: a server that is gone is ErrUnreachable; reads
// the cache can answer still work, offline, and writes change nothing.
func TestRemoteUnreachable(t *testing.T) {
	ctx := context.Background()
	f := newRemoteFixture(t)
	loc, _ := ParseLocation(f.url)
	cacheDir := t.TempDir()
	creds := staticCreds{"alice", "s3cr3t-token"}
	a, err := OpenRemote(ctx, loc, RemoteOptions{Transport: nettransport.New(), CacheDir: cacheDir, Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	c := writeFileCommit(t, a, engine.ZeroHash, "a.md", "x\n")
	if err := a.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_a", New: c}); err != nil {
		t.Fatal(err)
	}
	f.srv.Close()
	b, err := OpenRemote(ctx, loc, RemoteOptions{Transport: nettransport.New(), CacheDir: cacheDir, Credentials: creds})
	if err != nil {
		t.Fatalf("offline open with a cache: %v", err)
	}
	if when, why := b.Offline(); !errors.Is(why, ErrUnreachable) || when.IsZero() {
		t.Fatalf("Offline() = %v, %v", when, why)
	}
	if h, err := b.Ref(ctx, "refs/tv/workspaces/ws_a"); err != nil || h != c {
		t.Fatalf("offline read: %s, %v", h, err)
	}
	c2 := writeFileCommit(t, b, c, "b.md", "y\n")
	if err := b.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_a", Old: c, New: c2}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("offline write: %v", err)
	}
	if _, err := OpenRemote(ctx, loc, RemoteOptions{Transport: nettransport.New(), CacheDir: t.TempDir(), Credentials: creds}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("open without server or cache: %v", err)
	}
}

// TestRemoteFetchesOnlyWhatIsRead: reading one workspace's ref downloads
// that workspace's objects, not another's; a second read fetches nothing.
func TestRemoteFetchesOnlyWhatIsRead(t *testing.T) {
	ctx := context.Background()
	f := newRemoteFixture(t)
	a := f.mustOpen(t)
	ca := writeFileCommit(t, a, engine.ZeroHash, "a.md", "workspace a\n")
	cb := writeFileCommit(t, a, engine.ZeroHash, "b.md", "workspace b\n")
	if err := a.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_a", New: ca}, engine.RefUpdate{Name: "refs/tv/workspaces/ws_b", New: cb}); err != nil {
		t.Fatal(err)
	}
	b := f.mustOpen(t)
	if h, err := b.Ref(ctx, "refs/tv/workspaces/ws_a"); err != nil || h != ca {
		t.Fatalf("Ref = %s, %v", h, err)
	}
	if !b.cache.objectExists(ca) || b.cache.objectExists(cb) {
		t.Fatalf("cache has a: %v, b: %v; want only a", b.cache.objectExists(ca), b.cache.objectExists(cb))
	}
	before := f.srv.Requests.Load()
	if _, err := b.Ref(ctx, "refs/tv/workspaces/ws_a"); err != nil {
		t.Fatal(err)
	}
	if f.srv.Requests.Load() != before {
		t.Fatal("a second read of a cached ref went to the server")
	}
}

// TestRemoteFirstCheckoutRequests: opening a vault with a fresh cache and
// a workspace to read ahead costs the server the listing, then, at once,
// one fetch of the identity and the grants' head (not their history) and
// one of that workspace; reading the workspace then asks the server
// nothing, and the other workspace's objects were not fetched.
func TestRemoteFirstCheckoutRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRemoteFixture(t)
	a := f.mustOpen(t)
	ca := writeFileCommit(t, a, engine.ZeroHash, "a.md", "workspace a\n")
	cb := writeFileCommit(t, a, engine.ZeroHash, "b.md", "workspace b\n")
	oldGrants := writeFileCommit(t, a, engine.ZeroHash, "grants.json", "{}\n")
	grants := writeFileCommit(t, a, oldGrants, "grants.json", "{\"grants\":[]}\n")
	if err := a.UpdateRefs(ctx, engine.RefUpdate{Name: "refs/tv/workspaces/ws_a", New: ca}, engine.RefUpdate{Name: "refs/tv/workspaces/ws_b", New: cb},
		engine.RefUpdate{Name: engine.AccessRef, New: grants}); err != nil {
		t.Fatal(err)
	}
	loc, err := ParseLocation(f.url)
	if err != nil {
		t.Fatal(err)
	}
	before := f.srv.Requests.Load()
	b, err := OpenRemote(ctx, loc, RemoteOptions{Transport: nettransport.New(), CacheDir: t.TempDir(), Credentials: staticCreds{"alice", "s3cr3t-token"},
		ReadAhead: []string{"refs/tv/workspaces/ws_a"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{engine.AccessRef, "refs/tv/workspaces/ws_a"} {
		h, err := b.Ref(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := b.ReadCommit(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.ReadTree(ctx, c.Tree); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.srv.Requests.Load() - before; n != 3 {
		t.Fatalf("open and read one workspace: %d requests to the server, want 3 (listing + two fetches)", n)
	}
	if b.cache.objectExists(cb) {
		t.Fatal("the other workspace's head was fetched too")
	}
	if b.cache.objectExists(oldGrants) {
		t.Fatal("the grants' history was fetched, not only their head")
	}
}
