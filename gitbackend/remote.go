package gitbackend

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/thalix/tv/atomicfile"
	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend/wire"
)

// EnforcedRef is the ref a server that runs tv's pre-receive hook carries
// (`tv hook install`). When a remote has it, the server checks every push
// against the live grants itself, and a commit sends no verify-only step
// for engine.AccessRef (see UpdateRefs).
const EnforcedRef = "refs/tv/enforced"

// RemoteOptions configure OpenRemote.
type RemoteOptions struct {
	// CacheDir holds the local caches, one bare repository per URL
	// ($XDG_CACHE_HOME/tv).
	CacheDir string
	// Credentials supplies the credentials of a URL; nil means none.
	Credentials Credentials
	// Transport opens the connections (nettransport.New()); nil makes
	// OpenRemote fail with ErrNoTransport.
	Transport Transport
	// ReadAhead names refs the caller is about to read (a checkout's
	// workspace): their objects come in the same request as the vault's
	// identity and grants, so a first checkout costs the server one
	// listing and one fetch, as `git clone` does.
	ReadAhead []string
}

// Remote is a tv vault on a git server: a local cache (a bare repository
// under RemoteOptions.CacheDir) plus a Transport's connection. It implements
// engine.Vault. Reads list the server's refs once per Remote and fetch
// only the objects of the refs they touch that the cache lacks; commits
// are one atomic push (UpdateRefs). A Remote is safe for concurrent use.
type Remote struct {
	loc   Location
	tr    Transport
	conn  wire.Conn
	creds Credentials
	auth  wire.Auth
	cache *Vault
	id    string

	mu       sync.Mutex
	listed   map[string]engine.Hash // the server's refs, nil until listed
	upCaps   *wire.Advert           // upload-pack's, from the last listing
	offline  error                  // why the server was not reached
	lastSync time.Time
	helper   authState
	mirrored map[string]engine.Hash      // the cache's refs as last mirrored (mirroredFile)
	fresh    map[engine.Hash]freshObject // inflated by a fetch, not yet read (keepFresh)
	handoff  bool                        // fetches keep what they inflate (start with ReadAhead)

	publishing bool // Publish: the "cache" is the local vault itself
}

var _ engine.Vault = (*Remote)(nil)

// lastSyncFile, in a cache's directory, holds the time of the last
// successful listing of the server's refs (RFC 3339).
const lastSyncFile = "tv-last-sync"

// CachePath returns the cache repository of a vault URL under cacheDir.
func CachePath(cacheDir, url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(cacheDir, "remote-"+hex.EncodeToString(sum[:8])+".git")
}

// OpenRemote opens the vault at loc (a remote location). It lists the
// server's refs; an empty repository is made a vault (its id pushed as
// VaultIDRef). When the server cannot be reached but the cache knows the
// vault, the Remote answers reads from the cache (Offline says so) and
// refuses writes.
func OpenRemote(ctx context.Context, loc Location, opts RemoteOptions) (*Remote, error) {
	if opts.CacheDir == "" {
		return nil, fmt.Errorf("%w: no cache directory for remote vault %s: set XDG_CACHE_HOME or HOME", engine.ErrUsage, loc)
	}
	r, err := newRemote(loc, opts.Credentials, opts.Transport)
	if err != nil {
		return nil, err
	}
	// The listing goes out while the cache is opened (on first use made,
	// with its fsyncs): neither waits for the other.
	type listing struct {
		refs map[string]engine.Hash
		err  error
	}
	listed := make(chan listing, 1)
	go func() {
		refs, err := r.advertised(ctx)
		listed <- listing{refs, err}
	}()
	r.cache, err = openCache(CachePath(opts.CacheDir, loc.URL))
	l := <-listed
	if err != nil {
		return nil, err
	}
	r.lastSync = readLastSync(r.cache.path)
	if l.err == nil {
		r.setListed(l.refs)
	}
	if err := r.start(ctx, l.err, opts.ReadAhead); err != nil {
		return nil, err
	}
	return r, nil
}

func newRemote(loc Location, creds Credentials, tr Transport) (*Remote, error) {
	if !loc.IsRemote() {
		return nil, fmt.Errorf("%w: %s is not a remote vault location", engine.ErrUsage, loc)
	}
	if tr == nil {
		return nil, fmt.Errorf("%w: cannot open %s", ErrNoTransport, loc.URL)
	}
	conn, err := tr.Dial(loc.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: vault URL %s: %v", engine.ErrUsage, loc.URL, err)
	}
	return &Remote{loc: loc, tr: tr, conn: conn, creds: creds}, nil
}

// Publish pushes every ref under refs/tv/ of the local vault v (its
// identity, workspaces, templates, grants) to the repository at loc, which
// must hold no tv refs yet, as one atomic push. It returns how many refs
// it published. creds supplies the server's credentials (nil: none) and tr
// opens the connection (nettransport.New()); a nil tr fails with
// ErrNoTransport.
func Publish(ctx context.Context, v *Vault, loc Location, creds Credentials, tr Transport) (int, error) {
	r, err := newRemote(loc, creds, tr)
	if err != nil {
		return 0, err
	}
	r.cache, r.publishing = v, true
	current, err := r.list(ctx)
	if err != nil {
		return 0, err
	}
	for name := range current {
		if strings.HasPrefix(name, "refs/tv/") && name != EnforcedRef { // `tv hook install` may come first
			return 0, fmt.Errorf("%w: %s already holds tv refs (%s): publish only into an empty repository", engine.ErrConflict, loc.URL, name)
		}
	}
	refs, err := v.ListRefs(ctx, "refs/tv/")
	if err != nil {
		return 0, err
	}
	var ups []engine.RefUpdate
	for _, ref := range refs {
		ups = append(ups, engine.RefUpdate{Name: ref.Name, New: ref.Hash})
	}
	if len(ups) == 0 {
		return 0, fmt.Errorf("%w: %s has no tv refs to publish", engine.ErrUsage, v.path)
	}
	return len(ups), r.push(ctx, ups, ups)
}

// start reads the id after the listing (listErr: how it failed; offline,
// the cache answers), fetching the identity, the grants and the readAhead
// refs in one round.
func (r *Remote) start(ctx context.Context, listErr error, readAhead []string) error {
	err := listErr
	if errors.Is(err, ErrUnreachable) {
		id, cerr := r.cache.loadID()
		if cerr != nil {
			return err // never reached, nothing cached: the network error
		}
		r.id, r.offline = id, err
		return nil
	}
	if err != nil {
		return err
	}
	h, ok := r.listed[VaultIDRef]
	if !ok {
		_, enforced := r.listed[EnforcedRef]
		if len(r.listed) > 0 && !(enforced && len(r.listed) == 1) { // `tv hook install` may come first
			return fmt.Errorf("%w: %s has refs but no %s: it is a git repository, not a tv vault (publish a vault into an empty repository with `tv vault push %s`)", ErrNotVault, r.loc.URL, VaultIDRef, r.loc.URL)
		}
		if err := r.initEmpty(ctx); err != nil {
			return err
		}
		h = r.listed[VaultIDRef]
	}
	// One round for the identity and the grants, which nearly every
	// command reads next, and what the caller said it reads.
	first := map[string]engine.Hash{VaultIDRef: h}
	for _, name := range append([]string{engine.AccessRef}, readAhead...) {
		if a, ok := r.listed[name]; ok {
			first[name] = a
		}
	}
	r.setHandoff(len(readAhead) > 0)
	err = r.ensure(ctx, first)
	r.setHandoff(false)
	if err != nil {
		return err
	}
	b, err := r.cache.readIDBlob(h)
	if err != nil {
		return fmt.Errorf("%w: %s: %s: %v", ErrNotVault, r.loc.URL, VaultIDRef, err)
	}
	id, ok := idFromBlob(b)
	if !ok {
		return fmt.Errorf("%w: %s: %s carries no vault id", ErrNotVault, r.loc.URL, VaultIDRef)
	}
	r.id = id
	return nil
}

// initEmpty makes an empty server repository a vault: a fresh id, pushed
// create-if-absent. Losing that race to another client adopts its id.
func (r *Remote) initEmpty(ctx context.Context) error {
	id, err := newVaultID()
	if err != nil {
		return err
	}
	h, err := r.cache.writeLoose(typeBlob, idBlob(id))
	if err != nil {
		return err
	}
	up := []engine.RefUpdate{{Name: VaultIDRef, New: h}}
	err = r.push(ctx, up, up)
	if err != nil && !errors.Is(err, engine.ErrRefStale) {
		return fmt.Errorf("make %s a vault: %w", r.loc.URL, err)
	}
	if _, err := r.list(ctx); err != nil {
		return err
	}
	if _, ok := r.listed[VaultIDRef]; !ok {
		return fmt.Errorf("%w: %s: the push of %s was accepted but the ref is absent", ErrNotVault, r.loc.URL, VaultIDRef)
	}
	return nil
}

// openCache opens the cache repository at path, creating it (without a
// vault id: the server's VaultIDRef says which vault it caches).
func openCache(path string) (*Vault, error) {
	if _, err := os.Stat(filepath.Join(path, "objects")); err == nil {
		return openRepo(path), nil
	}
	parent := filepath.Dir(path)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, fmt.Errorf("create vault cache: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("create vault cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := initRepo(tmp); err != nil {
		return nil, fmt.Errorf("create vault cache: %w", err)
	}
	if err := syscall.Rename(tmp, path); err != nil && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
		return nil, fmt.Errorf("create vault cache: %w", err)
	}
	return openRepo(path), nil
}

// ID returns the vault's id, read from the server's VaultIDRef.
func (r *Remote) ID() string { return r.id }

// Path returns the vault's URL.
func (r *Remote) Path() string { return r.loc.URL }

// Location returns where the vault lives.
func (r *Remote) Location() Location { return r.loc }

// CacheDir returns the cache repository's directory.
func (r *Remote) CacheDir() string { return r.cache.path }

// Offline returns why reads come from the cache (the server was not
// reached; nil when it was) and when the cache was last in sync.
func (r *Remote) Offline() (lastSync time.Time, why error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastSync, r.offline
}

// LastSync returns when the server's refs were last listed successfully.
func (r *Remote) LastSync() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastSync
}

// Capabilities returns the receive-pack capabilities tv cares about that
// the server advertises ("atomic", "push-options", "report-status"), and
// whether it carries EnforcedRef.
func (r *Remote) Capabilities(ctx context.Context) (caps []string, enforced bool, err error) {
	if r.offline != nil {
		return nil, false, r.offline
	}
	sess, adv, err := r.receiveSession(ctx)
	if err != nil {
		return nil, false, err
	}
	defer sess.Close()
	for _, c := range []string{wire.CapAtomic, wire.CapPushOptions, wire.CapReportStatus} {
		if adv.Supports(c) {
			caps = append(caps, c)
		}
	}
	_, enforced = r.snapshot()[EnforcedRef]
	return caps, enforced, nil
}

func (r *Remote) snapshot() map[string]engine.Hash {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listed
}

// list reads the server's refs (one upload-pack advertisement) and
// records them, with the time, as the Remote's view.
func (r *Remote) list(ctx context.Context) (map[string]engine.Hash, error) {
	refs, err := r.advertised(ctx)
	if err != nil {
		return nil, err
	}
	r.setListed(refs)
	return refs, nil
}

// advertised reads the server's refs (one upload-pack advertisement) and
// keeps its capabilities for later fetches; it touches no cache.
func (r *Remote) advertised(ctx context.Context) (map[string]engine.Hash, error) {
	sess, adv, err := r.uploadSession(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	if len(adv.Refs) > 0 {
		r.mu.Lock()
		r.upCaps = adv
		r.mu.Unlock()
	}
	return advRefs(adv)
}

func (r *Remote) setListed(refs map[string]engine.Hash) {
	now := time.Now()
	r.mu.Lock()
	r.listed, r.offline, r.lastSync = refs, nil, now
	r.mu.Unlock()
	if r.publishing {
		return
	}
	_ = os.WriteFile(filepath.Join(r.cache.path, lastSyncFile), []byte(now.UTC().Format(time.RFC3339)+"\n"), 0o644)
}

func readLastSync(dir string) time.Time {
	b, err := os.ReadFile(filepath.Join(dir, lastSyncFile))
	if err != nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
	return t
}

// advRefs turns an advertisement into a name → hash map (refs/ only; peeled
// and symbolic entries are git's business).
func advRefs(adv *wire.Advert) (map[string]engine.Hash, error) {
	out := make(map[string]engine.Hash, len(adv.Refs))
	for name, h := range adv.Refs {
		if !strings.HasPrefix(name, "refs/") {
			continue
		}
		out[name] = engine.Hash(h)
	}
	return out, nil
}

// Ref returns the server's value of name (as listed when the Remote
// opened, or after its last refused push), fetching its objects into the
// cache if needed. Offline, the cache's value.
func (r *Remote) Ref(ctx context.Context, name string) (engine.Hash, error) {
	if r.offline != nil {
		return r.cache.Ref(ctx, name)
	}
	h, ok := r.snapshot()[name]
	if !ok {
		return engine.ZeroHash, fmt.Errorf("%w: %s", engine.ErrRefNotFound, name)
	}
	if err := r.ensure(ctx, map[string]engine.Hash{name: h}); err != nil {
		return engine.ZeroHash, err
	}
	return h, nil
}

// ListRefs returns the server's refs under prefix, sorted, fetching in one
// round the objects of those the cache lacks. Offline, the cache's.
func (r *Remote) ListRefs(ctx context.Context, prefix string) ([]engine.Ref, error) {
	if r.offline != nil {
		return r.cache.ListRefs(ctx, prefix)
	}
	want := map[string]engine.Hash{}
	out := []engine.Ref{}
	for name, h := range r.snapshot() {
		if strings.HasPrefix(name, prefix) {
			out = append(out, engine.Ref{Name: name, Hash: h})
			want[name] = h
		}
	}
	slices.SortFunc(out, func(a, b engine.Ref) int { return strings.Compare(a.Name, b.Name) })
	if err := r.ensure(ctx, want); err != nil {
		return nil, err
	}
	return out, nil
}

// ensure fetches the objects of the given refs the cache lacks and records
// the refs in the cache (so later fetches offer them as haves).
//
// The grants (engine.AccessRef) are fetched at depth 1: tv reads only
// their head, and their history grows by a version per grant (a vault of
// a thousand workspaces holds a thousand versions of grants.json). When
// other refs are fetched too, the two fetches run at once.
func (r *Remote) ensure(ctx context.Context, refs map[string]engine.Hash) error {
	var wants, heads []engine.Hash
	for name, h := range refs {
		switch {
		case r.cache.objectExists(h):
		case name == engine.AccessRef || name == VaultIDRef:
			heads = append(heads, h)
		default:
			wants = append(wants, h)
		}
	}
	var headsErr error
	var wg sync.WaitGroup
	if len(heads) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			headsErr = r.fetch(ctx, heads, 1)
		}()
	}
	var err error
	if len(wants) > 0 {
		err = r.fetch(ctx, wants, 0)
	}
	wg.Wait()
	if err = cmp.Or(err, headsErr); err != nil {
		return err
	}
	r.mirror(ctx, refs)
	return nil
}

// mirror sets the cache's refs to the given values (best effort: the
// cache is only a cache, and a concurrent process mirrors the same
// server values). The values last mirrored are kept in mirroredFile, so
// a command that lists a thousand unchanged workspaces reads one file,
// not a thousand refs.
func (r *Remote) mirror(ctx context.Context, refs map[string]engine.Hash) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mirrored == nil {
		r.mirrored = r.readMirrored()
	}
	changed := false
	var ups []engine.RefUpdate
	for name, h := range refs {
		if r.mirrored[name] == h {
			continue
		}
		cur, err := r.cache.Ref(ctx, name)
		if err != nil && !errors.Is(err, engine.ErrRefNotFound) {
			continue
		}
		if cur != h {
			ups = append(ups, engine.RefUpdate{Name: name, Old: cur, New: h})
			continue
		}
		r.mirrored[name], changed = h, true
	}
	// One transaction (its fsyncs overlap); when a concurrent process
	// moved one of the refs, each ref on its own.
	if len(ups) > 1 && r.cache.UpdateRefs(ctx, ups...) == nil {
		for _, u := range ups {
			r.mirrored[u.Name], changed = u.New, true
		}
		ups = nil
	}
	for _, u := range ups {
		if r.cache.UpdateRefs(ctx, u) == nil {
			r.mirrored[u.Name], changed = u.New, true
		}
	}
	if changed && !r.publishing {
		r.writeMirrored()
	}
}

// mirroredFile, in a cache's directory, lists the refs last mirrored into
// the cache, one "<hash> <name>" line each, then a "crc32 <hex>" line of
// everything before it. It is written without an fsync (it only saves
// reading refs; a fetch's fsyncs are the pack's and the refs'): a file a
// crash left torn or empty fails its checksum and is read as empty, so
// every ref is compared again.
const mirroredFile = "tv-mirrored"

func (r *Remote) readMirrored() map[string]engine.Hash {
	out := map[string]engine.Hash{}
	if r.publishing {
		return out
	}
	b, err := os.ReadFile(filepath.Join(r.cache.path, mirroredFile))
	if err != nil {
		return out
	}
	body, sum, ok := bytes.Cut(b, []byte("crc32 "))
	if !ok || string(sum) != fmt.Sprintf("%08x\n", crc32.ChecksumIEEE(body)) {
		return out // torn, or written by an older tv: compare every ref again
	}
	for line := range strings.Lines(string(body)) {
		hex, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		h, err := engine.ParseHash(hex)
		if ok && err == nil && checkRefName(name) == nil {
			out[name] = h
		}
	}
	return out
}

func (r *Remote) writeMirrored() {
	names := slices.Sorted(maps.Keys(r.mirrored))
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "%s %s\n", r.mirrored[name], name)
	}
	fmt.Fprintf(&b, "crc32 %08x\n", crc32.ChecksumIEEE([]byte(b.String())))
	_ = atomicfile.WriteFile(filepath.Join(r.cache.path, mirroredFile), []byte(b.String()), atomicfile.Options{Mode: 0o644, Sync: atomicfile.SyncNone})
}

// fetch downloads the objects reachable from wants that the cache lacks:
// one upload-pack request with the cache's refs as haves, its pack stored
// with its index in the cache.
func (r *Remote) fetch(ctx context.Context, wants []engine.Hash, depth int) error {
	// The listing's capabilities serve every later fetch: over http a
	// fresh session then costs one POST (no second GET of info/refs); over
	// ssh and file the session reads the advertisement on its connection.
	r.mu.Lock()
	caps := r.upCaps
	r.mu.Unlock()
	var sess wire.UploadSession
	if caps != nil {
		auth, err := r.sessionAuth()
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrUnreachable, r.loc.URL, err)
		}
		if sess, err = r.conn.UploadWith(auth, caps); err != nil {
			return r.transportError("fetch", err)
		}
	} else {
		s, _, err := r.uploadSession(ctx)
		if err != nil {
			return err
		}
		sess = s
	}
	defer sess.Close()
	have, err := r.cache.ListRefs(ctx, "refs/")
	if err != nil {
		return err
	}
	var haves []wire.Hash
	for _, h := range have {
		if r.cache.objectExists(h.Hash) {
			haves = append(haves, h.Hash)
		}
	}
	ws := make([]wire.Hash, len(wants))
	for i, w := range wants {
		ws[i] = w
	}
	resp, err := sess.Fetch(ctx, ws, haves, depth)
	if errors.Is(err, wire.ErrNothingToFetch) {
		return nil
	}
	if err != nil {
		return r.transportError("fetch", err)
	}
	defer resp.Close()
	fresh, err := r.cache.storePack(resp, r.tr.IndexPack)
	if err != nil {
		return fmt.Errorf("fetch from %s: %w", r.loc.URL, err)
	}
	r.keepFresh(fresh)
	for _, w := range wants {
		if !r.cache.objectExists(w) {
			return fmt.Errorf("%w: fetch from %s did not bring %s", engine.ErrObjectNotFound, r.loc.URL, w)
		}
	}
	return nil
}

// keepFresh holds the objects the read-ahead fetch of OpenRemote
// inflated (storePack) for their first reader: a checkout reads each file
// once, right after that fetch, and takes it from memory instead of
// inflating it from the pack a second time. Each object is handed out
// once and then dropped, so the memory goes as the checkout proceeds;
// what is never read goes with the Remote. The objects are in the
// cache's pack already, durable, before they are handed out. Other
// fetches keep nothing (a long-lived Remote must not grow).
func (r *Remote) keepFresh(objs map[engine.Hash]freshObject) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(objs) == 0 || !r.handoff {
		return
	}
	if r.fresh == nil {
		r.fresh = objs
		return
	}
	maps.Copy(r.fresh, objs)
}

func (r *Remote) setHandoff(on bool) {
	r.mu.Lock()
	r.handoff = on
	r.mu.Unlock()
}

// takeFresh returns and forgets the fresh object id when it has type typ.
func (r *Remote) takeFresh(id engine.Hash, typ int) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.fresh[id]
	if !ok || o.typ != typ {
		return nil, false
	}
	delete(r.fresh, id)
	return o.data, true
}

// ReadCommit reads a commit from the cache.
func (r *Remote) ReadCommit(ctx context.Context, id engine.Hash) (*engine.Commit, error) {
	if data, ok := r.takeFresh(id, typeCommit); ok {
		return decodeCommit(id, data)
	}
	return r.cache.ReadCommit(ctx, id)
}

// ReadTree reads a tree from the cache.
func (r *Remote) ReadTree(ctx context.Context, id engine.Hash) ([]engine.TreeEntry, error) {
	if data, ok := r.takeFresh(id, typeTree); ok {
		return decodeTree(id, data)
	}
	return r.cache.ReadTree(ctx, id)
}

// OpenBlob streams a blob from the cache.
func (r *Remote) OpenBlob(ctx context.Context, id engine.Hash) (io.ReadCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if data, ok := r.takeFresh(id, typeBlob); ok {
		return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
	}
	return r.cache.OpenBlob(ctx, id)
}

// NewObjectWriter writes new objects into the cache; UpdateRefs sends the
// ones the server lacks.
func (r *Remote) NewObjectWriter(ctx context.Context) (engine.ObjectWriter, error) {
	return r.cache.NewObjectWriter(ctx)
}

// Stats counts the server's workspace and template refs; DiskBytes is the
// cache's size.
func (r *Remote) Stats(ctx context.Context) (VaultStats, error) {
	st, err := r.cache.Stats(ctx)
	if err != nil || r.offline != nil {
		return st, err
	}
	st.Workspaces, st.Templates = 0, 0
	for name := range r.snapshot() {
		switch {
		case strings.HasPrefix(name, "refs/tv/workspaces/"):
			st.Workspaces++
		case strings.HasPrefix(name, "refs/tv/templates/"):
			st.Templates++
		}
	}
	return st, nil
}

// transportError classifies a transport failure: authentication (wraps
// engine.ErrPermission), a missing repository (engine.ErrNotFound), or a
// server that was not reached (ErrUnreachable).
func (r *Remote) transportError(op string, err error) error {
	switch {
	case errors.Is(err, wire.ErrAuthRequired),
		strings.Contains(err.Error(), "unable to authenticate"), strings.Contains(err.Error(), "Permission denied"):
		return fmt.Errorf("%w: %s %s: authentication failed (%v); run `tv login --vault %s --user NAME --token-stdin`, set TV_TOKEN, or configure a git credential helper or ssh key",
			engine.ErrPermission, op, r.loc.URL, scrub(err), r.loc.URL)
	case strings.Contains(err.Error(), "DENIED"), strings.Contains(strings.ToLower(err.Error()), "access denied"):
		// gitolite and similar servers: authenticated, but not allowed.
		return fmt.Errorf("%w: %s %s: the server refused access: %v", engine.ErrPermission, op, r.loc.URL, scrub(err))
	case strings.Contains(err.Error(), "knownhosts"):
		return fmt.Errorf("%w: %s %s: the server's ssh host key is not trusted (%v); check it and add it to ~/.ssh/known_hosts (tv never accepts an unknown host key)",
			engine.ErrPermission, op, r.loc.URL, scrub(err))
	case errors.Is(err, wire.ErrRepoNotFound):
		return fmt.Errorf("%w: %s: no repository there (create one with `tv vault init --bare PATH` on the server)", engine.ErrNotFound, r.loc.URL)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("%w: %s %s: %v", ErrUnreachable, op, r.loc.URL, scrub(err))
}

// scrub renders a transport error without anything that could be a
// credential (go-git never puts the password in its errors; this guards
// against URLs with userinfo echoed by a server).
func scrub(err error) string {
	s := err.Error()
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/ \t\n")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		return s[:i+3] + "***@" + rest[at+1:]
	}
	return s
}

// newVaultID returns a fresh random vault id.
func newVaultID() (string, error) {
	var b [8]byte
	if _, err := randRead(b[:]); err != nil {
		return "", err
	}
	return "vault_" + hex.EncodeToString(b[:]), nil
}
