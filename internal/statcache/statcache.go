package statcache

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/thalix/tv/internal/fastio"
)

// ErrMoved is Append's error when the cache file is not the one Load read
// (or none was read): the caller writes the cache whole with Save.
var ErrMoved = errors.New("the stat cache was replaced since it was read")

// RacySmudge is how recent a stamp may be and still be written into the
// stat cache: a file changed again within the file system's timestamp
// tick of its lstat could keep the very same stamp, so such an entry (or
// folder listing) is written without one and checked again next time,
// as git does with "racy" index entries.
const RacySmudge = 10 * time.Millisecond

// Header is what a cache says about the checkout it was built for.
type Header struct {
	// ManifestStamp is the manifest file the cache was built from,
	// ManifestBaseline the baseline that file names (the log's may be
	// later), and Log the manifest log the cache includes.
	ManifestStamp    fastio.Stamp
	ManifestBaseline [20]byte
	Log              fastio.FileID
	// The checkout's identity, as its manifest (and log) say.
	VaultID       string
	WorkspaceID   string
	WorkspaceName string
	Scope         []string
	Baseline      [20]byte
}

// Entry is one file of a checkout: its version, and the stamp that
// vouches for it. Stamp.Size is the version's size; the other stamp
// fields are zero when no lstat vouches for the file.
type Entry struct {
	Path   string
	Stamp  fastio.Stamp
	ID     [20]byte // git blob id
	SHA256 [32]byte
	Mode   uint32 // git mode
}

// Dir is a folder's stamp and its raw listing (every entry, sorted by
// name, as fastio.Lister.Entries returns it).
type Dir struct {
	Stamp   fastio.Stamp
	Entries []fastio.Dirent
}

// Cache is a checkout's files as a stat cache holds them: read by Load, or
// built by the caller (Files sorted by path before Lookup).
type Cache struct {
	Header Header
	Files  []Entry // sorted by path, no duplicates
	// Dirs holds, by slash path ("." for the root), each folder's listing
	// as the last scan saw it: while a folder's own stamp is unchanged
	// (adding, removing or renaming an entry changes its mtime and ctime),
	// the scan reuses the listing instead of reading the folder again.
	Dirs map[string]*Dir

	// written is the cache file's own mtime (ns), git's racy-entry cutoff
	// at read time; 0 when no stamp is vouched for (not loaded).
	written int64
	loaded  bool
	// size is the snapshot's length, and tailBytes how much of the file
	// follows it: records appended by commits since.
	size      int64
	tailBytes int64
	// file is the file Load read (inode, size): Append adds only to it.
	file fastio.FileID
}

// Load reads the cache file at path, of at most max bytes, mapped rather
// than read into the heap. Any problem is an error: the caller falls
// back to the manifest.
func Load(path string, max int64) (*Cache, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, fmt.Errorf("%s is not a regular file of at most %d bytes", path, max)
	}
	data, release, err := fastio.MapFile(path, fi.Size())
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != fi.Size() {
		release()
		return nil, fmt.Errorf("%s changed while it was read", path)
	}
	retain := retainMappings.Load() && len(data) <= MaxRetainedBytes
	c, err := decodeMapped(data, !retain)
	if err != nil || !retain {
		release()
	}
	if err != nil {
		return nil, err
	}
	c.written = fi.ModTime().UnixNano()
	c.loaded = true
	c.file = fastio.IDOf(fi)
	return c, nil
}

// retainMappings is RetainMappings' setting.
var retainMappings atomic.Bool

// RetainMappings(true) makes every later Load of this process leave the
// cache file (of at most MaxRetainedBytes) mapped until the process exits, with the cache's paths and
// names cut from the mapping instead of copied out of it (internStrings):
// a 10k-file cache's strings are ~660 KB of fresh memory per command,
// ~165 page faults that cost more than the rest of reading the cache
// here. A tv command, which loads a few caches and exits, turns it on; a
// server, which loads caches for as long as it runs, turns it off before
// it serves. tv writes a cache file by renaming a new one into place or
// by appending to it, never by cutting it short, so a retained mapping
// stays whole; a file cut short by something else faults.
func RetainMappings(on bool) { retainMappings.Store(on) }

// RetainsMappings reports RetainMappings' setting.
func RetainsMappings() bool { return retainMappings.Load() }

// decodeMapped decodes a cache from mapped bytes (fastio.MapFile); with
// intern it moves the cache's strings out of them (internStrings), so
// that nothing points into the mapping once it is released. A file cut
// short while it was read faults; that is an unusable cache, not a
// crash.
func decodeMapped(data []byte, intern bool) (c *Cache, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("stat cache changed while it was read: %v", r)
		}
	}()
	if c, err = decode(data); err != nil {
		return nil, err
	}
	if intern {
		c.internStrings()
	}
	return c, nil
}

// Lookup returns the index of path in c.Files, or -1. It searches the
// sorted entries rather than a map: a map of 10k paths is ~430 KB of
// fresh heap per walk-test or diff, ~100 page faults that cost more here
// (~20 µs each on a PVM guest) than the searches do.
func (c *Cache) Lookup(path string) int {
	i, ok := slices.BinarySearchFunc(c.Files, path, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
	if !ok {
		return -1
	}
	return i
}

// Under returns the range [lo, hi) of c.Files whose paths begin with
// prefix (a folder's "dir/" or "" for all), for FindIn.
func (c *Cache) Under(prefix string) (lo, hi int) {
	if prefix == "" {
		return 0, len(c.Files)
	}
	lo, _ = slices.BinarySearchFunc(c.Files, prefix, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
	hi = lo + sort.Search(len(c.Files)-lo, func(i int) bool { return !strings.HasPrefix(c.Files[lo+i].Path, prefix) })
	return lo, hi
}

// FindIn returns the index of the path prefix+name in c.Files, searching
// only [lo, hi) (Under(prefix)), or -1. The path is never built: the
// scan takes the cache's own string for a file it finds.
func (c *Cache) FindIn(lo, hi int, prefix, name string) int {
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch p := c.Files[mid].Path[len(prefix):]; {
		case p < name:
			lo = mid + 1
		case p > name:
			hi = mid
		default:
			return mid
		}
	}
	return -1
}

// Clean reports whether a file whose lstat gives st and whose git mode
// is mode still holds e's content: the same stamp, not modified in the
// clock tick the cache was written in (git's "racy" rule).
func (c *Cache) Clean(e *Entry, st fastio.Stamp, mode uint32) bool {
	return e.Stamp == st && st.Mtime < c.written && e.Mode == mode
}

// Listing returns the cached listing of folder rel when its stamp st is
// unchanged and older than the cache (the racy rule again), else nil.
func (c *Cache) Listing(rel string, st fastio.Stamp) []fastio.Dirent {
	if d := c.Dirs[rel]; d != nil && d.Stamp == st && st.Mtime < c.written {
		return d.Entries
	}
	return nil
}

// HasUnder reports whether some file lies below folder dir.
func (c *Cache) HasUnder(dir string) bool {
	lo, hi := c.Under(dir + "/")
	return lo < hi
}

// Loaded reports whether c was read from a cache file (Load).
func (c *Cache) Loaded() bool { return c.loaded }

// WantsRewrite reports whether the file c was read from should be written
// afresh: there was none, or commits' records make up much of it.
func (c *Cache) WantsRewrite() bool { return !c.loaded || c.tailBytes > c.size/4 }

// Record is what a commit appends to the cache: the new baseline and
// manifest log, the files it wrote or stamped, the files it deleted, and
// the folders it listed.
type Record struct {
	Baseline [20]byte
	Log      fastio.FileID
	Set      []Entry
	Deleted  []string
	Dirs     map[string]*Dir
}

// apply applies commits' records, in order, to the cache: the last
// record's baseline and log, every file set or deleted (the last word on
// a path wins), every folder listed. One merge, however many records:
// files stay sorted.
func (c *Cache) apply(records []Record) {
	if len(records) == 0 {
		return
	}
	type change struct {
		e       Entry
		deleted bool
	}
	changes := map[string]change{}
	for i := range records {
		r := &records[i]
		c.Header.Baseline, c.Header.Log = r.Baseline, r.Log
		for _, e := range r.Set {
			changes[e.Path] = change{e: e}
		}
		for _, p := range r.Deleted {
			changes[p] = change{deleted: true}
		}
		for rel, d := range r.Dirs {
			if c.Dirs == nil {
				c.Dirs = map[string]*Dir{}
			}
			c.Dirs[rel] = d
		}
	}
	kept := c.Files[:0]
	for _, e := range c.Files {
		ch, ok := changes[e.Path]
		switch {
		case !ok:
			kept = append(kept, e)
		case !ch.deleted:
			kept = append(kept, ch.e)
		}
		delete(changes, e.Path)
	}
	var added []Entry
	for _, ch := range changes {
		if !ch.deleted {
			added = append(added, ch.e)
		}
	}
	c.Files = MergeEntries(kept, added)
}

// MergeEntries merges disjoint entries b (any order; sorted in place)
// into sorted a.
func MergeEntries(a, b []Entry) []Entry {
	if len(b) == 0 {
		return a
	}
	slices.SortFunc(b, func(x, y Entry) int { return strings.Compare(x.Path, y.Path) })
	out := make([]Entry, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Path < b[0].Path {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}
