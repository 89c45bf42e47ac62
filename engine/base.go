package engine

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/thalix/tv/atomicfile"
	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/stackgrow"
	"github.com/thalix/tv/internal/statcache"
)

// A checkout's base is what it was written as: the manifest's identity
// and, per file, its version and the stat stamp the stat cache vouches
// for (a *statcache.Cache). It comes from the stat cache when that
// belongs to the current manifest and manifest log (a binary read, no
// JSON), else from the manifest with its log applied.
//
// The stat cache is a cache, not identity: when it is missing, stale or
// damaged, tv falls back to the manifest and hashes.

// loadBase reads checkout dir's base: from the stat cache when it belongs
// to the current manifest, else from the manifest (an error only when the
// manifest is missing or damaged).
func loadBase(dir string) (*statcache.Cache, error) {
	b := takeBaseAhead(dir)
	if b == nil {
		b = loadStatCache(dir)
	}
	if b != nil {
		if m := identityOf(&b.Header); m.checkIdentity() == nil {
			return b, nil
		}
	}
	m, state, err := readManifestAndLog(dir)
	if err != nil {
		return nil, err
	}
	b, err = baseOfManifest(m)
	if err != nil {
		return nil, err
	}
	b.Header.Log, b.Header.ManifestBaseline, b.Header.ManifestStamp = state.log, state.fileBaseline, state.stamp
	return b, nil
}

// baseAhead is the stat cache ReadBaseAhead is reading, for the next
// loadBase of its checkout to take.
var baseAhead struct {
	mu  sync.Mutex
	dir string
	c   chan *statcache.Cache // receives the cache (nil: none usable)
}

// ReadBaseAhead starts reading checkout dir's stat cache on another
// goroutine, for the next diff, update or walk-test of dir in this
// process to take instead of reading it then: a command calls it as soon
// as it knows the checkout, so that the read (a millisecond at 10k files)
// overlaps the rest of its start (opening the vault, reading the
// credentials) on a core that would otherwise idle. The cache is taken
// only if it still belongs to the manifest and log on disk when taken
// (an interrupted update completed in between moves the log); otherwise
// it is read again. Another ReadBaseAhead replaces the one before.
func ReadBaseAhead(dir string) {
	c := make(chan *statcache.Cache, 1)
	baseAhead.mu.Lock()
	baseAhead.dir, baseAhead.c = dir, c
	baseAhead.mu.Unlock()
	go func() {
		stackgrow.To8K() // the cache's decoding
		c <- loadStatCache(dir)
	}()
}

// takeBaseAhead returns the stat cache read ahead for dir, waiting for
// the read, when it still belongs to dir's manifest and log; else nil.
func takeBaseAhead(dir string) *statcache.Cache {
	baseAhead.mu.Lock()
	c := baseAhead.c
	if baseAhead.dir != dir {
		c = nil
	}
	if c != nil {
		baseAhead.dir, baseAhead.c = "", nil
	}
	baseAhead.mu.Unlock()
	if c == nil {
		return nil
	}
	b := <-c
	if b == nil || !cacheCurrent(dir, b) {
		return nil
	}
	return b
}

// identityOf is the manifest identity a base's header holds (no files).
func identityOf(h *statcache.Header) *Manifest {
	return &Manifest{Format: ManifestFormat, VaultID: h.VaultID, WorkspaceID: h.WorkspaceID, WorkspaceName: h.WorkspaceName, Baseline: h.Baseline, Scope: h.Scope}
}

// headerOf is the base header of manifest m (identity only; the caller
// fills in the manifest and log stamps).
func headerOf(m *Manifest) statcache.Header {
	return statcache.Header{VaultID: m.VaultID, WorkspaceID: m.WorkspaceID, WorkspaceName: m.WorkspaceName, Baseline: m.Baseline, Scope: m.Scope}
}

// baseOfManifest is the base of manifest m, with no stamp vouched for.
func baseOfManifest(m *Manifest) (*statcache.Cache, error) {
	b := &statcache.Cache{Header: headerOf(m), Files: make([]statcache.Entry, len(m.Files))}
	for i := range m.Files {
		mf := &m.Files[i]
		mode, err := parseMode(mf.Mode)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s: %v", ErrRefused, ManifestName, mf.Path, err)
		}
		e := &b.Files[i]
		*e = statcache.Entry{Path: mf.Path, ID: mf.Version, Mode: uint32(mode), Stamp: fastio.Stamp{Size: mf.Size}}
		if _, err := hex.Decode(e.SHA256[:], []byte(mf.SHA256)); err != nil || len(mf.SHA256) != 2*len(e.SHA256) {
			return nil, fmt.Errorf("%w: %s: %s: sha256 %q is not 64 hex digits; check out again", ErrRefused, ManifestName, mf.Path, mf.SHA256)
		}
	}
	slices.SortFunc(b.Files, func(x, y statcache.Entry) int { return strings.Compare(x.Path, y.Path) })
	for i := 1; i < len(b.Files); i++ {
		if b.Files[i].Path == b.Files[i-1].Path {
			return nil, fmt.Errorf("%w: %s lists %s twice; check out again", ErrRefused, ManifestName, b.Files[i].Path)
		}
	}
	return b, nil
}

// loadStatCache reads dir's stat cache if it belongs to the current
// manifest and log. Any problem yields nil: the caller falls back to the
// manifest.
func loadStatCache(dir string) *statcache.Cache {
	mfi, err := os.Lstat(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil
	}
	b, err := statcache.Load(filepath.Join(dir, StatCacheName), MaxStatCacheBytes)
	if err != nil || b.Header.ManifestStamp != fastio.StampOf(mfi) || b.Header.Log != currentLogStamp(dir) {
		return nil
	}
	return b
}

// cacheCurrent reports whether stat cache b still belongs to checkout
// dir's manifest and log as they are now.
func cacheCurrent(dir string, b *statcache.Cache) bool {
	mfi, err := os.Lstat(filepath.Join(dir, ManifestName))
	return err == nil && b.Header.ManifestStamp == fastio.StampOf(mfi) && b.Header.Log == currentLogStamp(dir)
}

// saveStatCache writes checkout dir's stat cache for base b (see
// statcache.Cache.Save). Failure is not fatal to callers: the cache is
// only an accelerator.
func saveStatCache(dir string, b *statcache.Cache, racyFrom int64) error {
	return b.Save(filepath.Join(dir, StatCacheName), racyFrom)
}

// currentLogStamp is the manifest log's stamp as it is now: its inode and
// size (zero when there is none).
func currentLogStamp(dir string) fastio.FileID {
	fi, err := os.Lstat(filepath.Join(dir, ManifestLogName))
	if err != nil {
		return fastio.FileID{}
	}
	return fastio.IDOf(fi)
}

// modeText is modeString without an allocation for the two modes a
// checkout holds.
func modeText(m FileMode) string {
	switch m {
	case ModeFile:
		return "100644"
	case ModeExecutable:
		return "100755"
	}
	return modeString(m)
}

// replaceUnsynced replaces path with data, without fsync (see
// statcache.Cache.Save for why a cache is written so).
func replaceUnsynced(path string, data []byte, mode os.FileMode) error {
	return replaceFile(path, data, mode, false)
}

// replaceFile replaces path with data (atomicfile). With syncData the
// new file's data is on disk before the rename, so after a power loss
// path holds the old or the new content, complete; the rename itself is
// not made durable (no fsync of the folder). Without it, the old file is
// removed first (see replaceUnsynced).
func replaceFile(path string, data []byte, mode os.FileMode, syncData bool) error {
	sync := atomicfile.SyncNone
	if syncData {
		sync = atomicfile.SyncData
	}
	return atomicfile.WriteFile(path, data, atomicfile.Options{Mode: mode, Sync: sync})
}

// replaceFileWith is replaceFile with data written by fill, through a
// small buffer, and always synced before the rename: a writer of a large
// file (the manifest of 100k files is 23 MiB) need not hold it whole.
func replaceFileWith(path string, mode os.FileMode, fill func(w io.Writer) error) error {
	return atomicfile.WriteFunc(path, atomicfile.Options{Mode: mode, Sync: atomicfile.SyncData}, fill)
}
