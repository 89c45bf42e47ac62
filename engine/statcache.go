package engine

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/thalix/tv/atomicfile"
)

// base is what a checkout was written as: the manifest's identity and,
// per file, its version and the stat stamp the stat cache vouches for.
// It comes from the stat cache when that belongs to the current manifest
// and manifest log (a binary read, no JSON), else from the manifest with
// its log applied.
//
// The stat cache remembers, per file, the lstat facts seen when its
// content was last hashed, so walk-test re-hashes only files whose size,
// mtime, ctime, inode or mode changed. It is a cache, not identity: when
// it is missing, stale or damaged, tv falls back to the manifest and
// hashes.
type base struct {
	header Manifest     // identity; Files is nil
	files  []cacheEntry // sorted by path, no duplicates
	index  map[string]int32
	// written is the cache file's own mtime (ns), git's racy-entry cutoff
	// at read time; 0 when no stamp is vouched for (no cache). A second
	// guard: the writer already leaves recent stamps out (racySmudge).
	written int64
	// manifestStamp is the manifest file the cache was built from,
	// manifestBaseline the baseline that file names (the log's may be
	// later), and log the manifest log the cache includes.
	manifestStamp    fileStamp
	manifestBaseline Hash
	log              logStamp
	cached           bool
	// size is the cache snapshot's length, and tailBytes how much of the
	// cache file follows it: records appended by commits since (see
	// appendStatCache).
	size      int64
	tailBytes int64
	// cacheFile is the cache file this base was read from (inode, size):
	// a commit appends its record only to that very file.
	cacheFile logStamp
	// dirs holds, by slash path ("." for the root), each folder's listing
	// as the last scan saw it: while a folder's own stamp is unchanged
	// (adding, removing or renaming an entry changes its mtime and ctime),
	// the scan reuses the listing instead of reading the folder again.
	dirs map[string]*cachedDir
}

// cachedDir is a folder's stamp and its raw listing (every entry, sorted
// by name, as dirLister.entries returns it).
type cachedDir struct {
	stamp   fileStamp
	entries []dirent
}

// fileStamp identifies a version of a file without reading it.
type fileStamp struct {
	Size  int64
	Mtime int64 // ns
	// Ctime (ns) changes on every write and on any mtime reset (touch -d,
	// cp -p, rsync -t, tar x), so a same-size edit whose mtime was put back
	// is still seen.
	Ctime int64
	Ino   uint64
	Mode  uint32
}

// cacheEntry is one file of a checkout's base. stamp.Size is the size of
// the version; the other stamp fields are zero when no lstat vouches for
// the file.
type cacheEntry struct {
	path   string
	stamp  fileStamp
	id     Hash
	sha256 [32]byte
	mode   FileMode
}

// statCacheMagic opens a stat cache file; a CRC-32C of everything before
// it closes the snapshot, which records appended by commits may follow
// (see writeStatCache, appendStatCache). Version 6 keeps entries sorted
// by path, folder listings, and the manifest log's stamp.
const statCacheMagic = "TVSC6\n"

func stampOf(fi os.FileInfo) fileStamp {
	s := fileStamp{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode())}
	s.Ino, s.Ctime = inodeCtime(fi)
	return s
}

// clean reports whether a file whose lstat gives st and whose mode is
// mode still holds e's content: same stamp, and not modified in the same
// clock tick as the cache was written (git's "racy" rule).
func (b *base) clean(e *cacheEntry, st fileStamp, mode FileMode) bool {
	return e.stamp == st && st.Mtime < b.written && e.mode == mode
}

// listing returns the cached listing of folder rel when its stamp st is
// unchanged and older than the cache (the racy rule again), else nil.
func (b *base) listing(rel string, st fileStamp) []dirent {
	if d := b.dirs[rel]; d != nil && d.stamp == st && st.Mtime < b.written {
		return d.entries
	}
	return nil
}

// lookup returns the index of path in b.files, or -1.
func (b *base) lookup(path string) int {
	if i, ok := b.index[path]; ok {
		return int(i)
	}
	return -1
}

// loadBase reads checkout dir's base: from the stat cache when it belongs
// to the current manifest, else from the manifest (an error only when the
// manifest is missing or damaged).
func loadBase(dir string) (*base, error) {
	if b := loadStatCache(dir); b != nil {
		if err := b.header.checkIdentity(); err == nil {
			return b, nil
		}
	}
	m, state, err := readManifestAndLog(dir)
	if err != nil {
		return nil, err
	}
	b, err := baseOfManifest(m)
	if err != nil {
		return nil, err
	}
	b.log, b.manifestBaseline, b.manifestStamp = state.log, state.fileBaseline, state.stamp
	return b, nil
}

// baseOfManifest is the base of manifest m, with no stamp vouched for.
func baseOfManifest(m *Manifest) (*base, error) {
	b := &base{header: *m, files: make([]cacheEntry, len(m.Files))}
	b.header.Files = nil
	for i := range m.Files {
		mf := &m.Files[i]
		mode, err := parseMode(mf.Mode)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s: %v", ErrRefused, ManifestName, mf.Path, err)
		}
		e := &b.files[i]
		*e = cacheEntry{path: mf.Path, id: mf.Version, mode: mode, stamp: fileStamp{Size: mf.Size}}
		if _, err := hex.Decode(e.sha256[:], []byte(mf.SHA256)); err != nil || len(mf.SHA256) != 2*len(e.sha256) {
			return nil, fmt.Errorf("%w: %s: %s: sha256 %q is not 64 hex digits; check out again", ErrRefused, ManifestName, mf.Path, mf.SHA256)
		}
	}
	slices.SortFunc(b.files, func(x, y cacheEntry) int { return strings.Compare(x.path, y.path) })
	for i := 1; i < len(b.files); i++ {
		if b.files[i].path == b.files[i-1].path {
			return nil, fmt.Errorf("%w: %s lists %s twice; check out again", ErrRefused, ManifestName, b.files[i].path)
		}
	}
	b.buildIndex()
	return b, nil
}

func (b *base) buildIndex() {
	b.index = make(map[string]int32, len(b.files))
	for i := range b.files {
		b.index[b.files[i].path] = int32(i)
	}
}

// loadStatCache reads dir's cache if it belongs to the current manifest.
// Any problem yields nil: the caller falls back to the manifest.
func loadStatCache(dir string) *base {
	mfi, err := os.Lstat(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil
	}
	path := filepath.Join(dir, StatCacheName)
	cfi, err := os.Lstat(path)
	if err != nil || !cfi.Mode().IsRegular() || cfi.Size() > MaxStatCacheBytes {
		return nil
	}
	data, release, err := mapFile(path, cfi.Size())
	if err != nil || int64(len(data)) != cfi.Size() {
		return nil
	}
	b, err := decodeMappedStatCache(data)
	release()
	if err != nil || b.manifestStamp != stampOf(mfi) || b.log != currentLogStamp(dir) {
		return nil
	}
	b.written = cfi.ModTime().UnixNano()
	b.cached = true
	b.cacheFile = logStamp{Ino: inodeOf(cfi), Size: cfi.Size()}
	b.buildIndex()
	return b
}

// decodeMappedStatCache decodes a stat cache from mapped bytes (mapFile)
// and moves its strings out of them (internStrings), so that nothing
// points into the mapping once it is released. A file cut short while it
// was read faults; that is an unusable cache, not a crash.
func decodeMappedStatCache(data []byte) (b *base, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("stat cache changed while it was read: %v", r)
		}
	}()
	if b, err = decodeStatCache(data); err != nil {
		return nil, err
	}
	b.internStrings()
	return b, nil
}

// currentLogStamp is the manifest log's stamp as it is now: its inode and
// size (zero when there is none).
func currentLogStamp(dir string) logStamp {
	fi, err := os.Lstat(filepath.Join(dir, ManifestLogName))
	if err != nil {
		return logStamp{}
	}
	return logStamp{Ino: inodeOf(fi), Size: fi.Size()}
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

// decodeStatCache decodes a cache file's bytes (without building the
// index): its snapshot, then the records commits appended to it, each
// applied in turn; a torn or damaged record ends the file there (the
// cache's log stamp then no longer matches, and the caller falls back to
// the manifest). The paths it returns are cut from data itself, so the
// caller must not modify data afterwards. Entries out of order are
// refused.
func decodeStatCache(data []byte) (*base, error) {
	if len(data) < len(statCacheMagic)+8 || string(data[:len(statCacheMagic)]) != statCacheMagic {
		return nil, errors.New("bad magic")
	}
	n := binary.LittleEndian.Uint64(data[len(statCacheMagic):])
	if n < uint64(len(statCacheMagic))+12 || n > uint64(len(data)) {
		return nil, errors.New("stat cache truncated")
	}
	snap := data[:n-4]
	if crc32.Checksum(snap, castagnoli) != binary.LittleEndian.Uint32(data[n-4:]) {
		return nil, errors.New("stat cache checksum mismatch")
	}
	all := unsafe.String(unsafe.SliceData(data), len(data))
	d := &decoder{b: snap, s: all[:len(snap)], off: len(statCacheMagic) + 8}
	b := &base{size: int64(n)}
	b.manifestStamp = d.stamp()
	b.log = logStamp{Ino: d.u64(), Size: int64(d.u64())}
	copy(b.manifestBaseline[:], d.take(20))
	b.header.Format = ManifestFormat
	b.header.VaultID = d.str()
	b.header.WorkspaceID = d.str()
	b.header.WorkspaceName = d.str()
	for n := d.u32(); n > 0 && d.err == nil; n-- {
		b.header.Scope = append(b.header.Scope, d.str())
	}
	copy(b.header.Baseline[:], d.take(20))
	var err error
	if b.files, err = d.entries(); err != nil {
		return nil, err
	}
	for i := 1; i < len(b.files); i++ {
		if b.files[i].path <= b.files[i-1].path {
			return nil, errors.New("stat cache entries out of order")
		}
	}
	if b.dirs, err = d.dirs(); err != nil {
		return nil, err
	}
	if d.off != len(d.b) {
		return nil, errors.New("stat cache has trailing bytes")
	}
	// The records appended by commits.
	var tails []tailRecord
	for off := int(n); off+8 <= len(data); {
		l := int(binary.LittleEndian.Uint32(data[off:]))
		if l > len(data)-off-8 {
			break // torn
		}
		rec := data[off+4 : off+4+l]
		if crc32.Checksum(rec, castagnoli) != binary.LittleEndian.Uint32(data[off+4+l:]) {
			break
		}
		r := &decoder{b: rec, s: all[off+4 : off+4+l]}
		var t tailRecord
		copy(t.baseline[:], r.take(20))
		t.log = logStamp{Ino: r.u64(), Size: int64(r.u64())}
		t.set, err = r.entries()
		if err == nil {
			for k := r.u32(); k > 0 && r.err == nil; k-- {
				t.deleted = append(t.deleted, r.str())
			}
			t.dirs, err = r.dirs()
		}
		if err != nil || r.err != nil || r.off != len(rec) {
			break
		}
		tails = append(tails, t)
		off += l + 8
		b.tailBytes += int64(l + 8)
	}
	b.apply(tails)
	return b, nil
}

// tailRecord is what a commit appends to the stat cache: the new
// baseline and log stamp, the files it wrote or stamped, the files it
// deleted, and the folders it listed.
type tailRecord struct {
	baseline Hash
	log      logStamp
	set      []cacheEntry
	deleted  []string
	dirs     map[string]*cachedDir
}

// apply applies commits' records, in order, to the base: the last
// record's baseline and log stamp, every file set or deleted (the last
// word on a path wins), every folder listed. One merge, however many
// records: files stay sorted.
func (b *base) apply(tails []tailRecord) {
	if len(tails) == 0 {
		return
	}
	type change struct {
		e       cacheEntry
		deleted bool
	}
	changes := map[string]change{}
	for i := range tails {
		t := &tails[i]
		b.header.Baseline, b.log = t.baseline, t.log
		for _, e := range t.set {
			changes[e.path] = change{e: e}
		}
		for _, p := range t.deleted {
			changes[p] = change{deleted: true}
		}
		for rel, d := range t.dirs {
			if b.dirs == nil {
				b.dirs = map[string]*cachedDir{}
			}
			b.dirs[rel] = d
		}
	}
	kept := b.files[:0]
	for _, e := range b.files {
		c, ok := changes[e.path]
		switch {
		case !ok:
			kept = append(kept, e)
		case !c.deleted:
			kept = append(kept, c.e)
		}
		delete(changes, e.path)
	}
	var added []cacheEntry
	for _, c := range changes {
		if !c.deleted {
			added = append(added, c.e)
		}
	}
	b.files = mergeEntries(kept, added)
}

// entries reads a count and that many file entries.
func (d *decoder) entries() ([]cacheEntry, error) {
	n := d.u32()
	const minEntry = 2 + 36 + 20 + 32 + 4 // empty path
	if d.err == nil && uint64(n)*minEntry > uint64(len(d.b)-d.off) {
		d.err = errors.New("stat cache truncated")
	}
	if d.err != nil {
		return nil, d.err
	}
	es := make([]cacheEntry, n)
	for i := range es {
		e := &es[i]
		e.path = d.str()
		e.stamp = d.stamp()
		copy(e.id[:], d.take(20))
		copy(e.sha256[:], d.take(32))
		e.mode = FileMode(d.u32())
	}
	return es, d.err
}

// dirs reads a count and that many folder listings.
func (d *decoder) dirs() (map[string]*cachedDir, error) {
	ndirs := d.u32()
	const minDir = 2 + 36 + 4 // the root, empty
	if d.err == nil && uint64(ndirs)*minDir > uint64(len(d.b)-d.off) {
		d.err = errors.New("stat cache truncated")
	}
	if d.err != nil {
		return nil, d.err
	}
	dirs := make(map[string]*cachedDir, ndirs)
	for range ndirs {
		rel := d.str()
		cd := &cachedDir{stamp: d.stamp()}
		n := d.u32()
		if d.err == nil && uint64(n)*6 > uint64(len(d.b)-d.off) {
			d.err = errors.New("stat cache truncated")
		}
		if d.err != nil {
			return nil, d.err
		}
		cd.entries = make([]dirent, n)
		for i := range cd.entries {
			e := &cd.entries[i]
			e.name = d.str()
			e.typ = fs.FileMode(d.u32())
			// Each name is one element: the scan stats it relative to
			// its folder and must never be led elsewhere.
			if d.err == nil && (!oneElem(e.name) || i > 0 && e.name <= cd.entries[i-1].name) {
				d.err = fmt.Errorf("stat cache: bad listing of %q", rel)
			}
		}
		if d.err != nil {
			return nil, d.err
		}
		dirs[rel] = cd
	}
	return dirs, nil
}

// oneElem reports whether name is a single path element a folder can
// hold (the scan's rules on what a checkout may hold come later).
func oneElem(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// decoder reads the stat cache's little-endian fields; a short buffer
// sets err and yields zeros. s holds the same bytes as b.
type decoder struct {
	b   []byte
	s   string
	off int
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil || len(d.b)-d.off < n {
		d.err = errors.New("stat cache truncated")
		return make([]byte, n)
	}
	v := d.b[d.off : d.off+n]
	d.off += n
	return v
}

func (d *decoder) u32() uint32 { return binary.LittleEndian.Uint32(d.take(4)) }
func (d *decoder) u64() uint64 { return binary.LittleEndian.Uint64(d.take(8)) }
func (d *decoder) str() string {
	n := int(binary.LittleEndian.Uint16(d.take(2)))
	if d.err != nil || len(d.s)-d.off < n {
		d.err = errors.New("stat cache truncated")
		return ""
	}
	v := d.s[d.off : d.off+n]
	d.off += n
	return v
}
func (d *decoder) stamp() fileStamp {
	return fileStamp{Size: int64(d.u64()), Mtime: int64(d.u64()), Ctime: int64(d.u64()), Ino: d.u64(), Mode: d.u32()}
}

// writeStatCache writes the cache of checkout dir for the base b, bound
// to the manifest and log b was read from (b.manifestStamp, b.log): if
// either changed meanwhile, the cache is stale the moment it lands, and
// is never used. Stamps from racyFrom (ns) on are written unstamped (see
// racySmudge). Failure is not fatal to callers: the cache is only an
// accelerator.
func writeStatCache(dir string, b *base, racyFrom int64) error {
	m := &b.header
	size := 256 + len(m.VaultID) + len(m.WorkspaceID) + len(m.WorkspaceName) + entriesSize(b.files) + dirsSize(b.dirs)
	for _, f := range m.Scope {
		size += 2 + len(f)
	}
	e := &encoder{b: make([]byte, 0, size), racy: racyFrom} // one allocation
	e.b = append(e.b, statCacheMagic...)
	e.b = binary.LittleEndian.AppendUint64(e.b, 0) // the snapshot's length, below
	e.stamp(b.manifestStamp)
	e.u64(b.log.Ino)
	e.u64(uint64(b.log.Size))
	e.b = append(e.b, b.manifestBaseline[:]...)
	e.str(m.VaultID)
	e.str(m.WorkspaceID)
	e.str(m.WorkspaceName)
	e.u32(uint32(len(m.Scope)))
	for _, f := range m.Scope {
		e.str(f)
	}
	e.b = append(e.b, m.Baseline[:]...)
	e.entries(b.files)
	e.dirs(b.dirs)
	binary.LittleEndian.PutUint64(e.b[len(statCacheMagic):], uint64(len(e.b)+4))
	e.u32(crc32.Checksum(e.b, castagnoli))
	return replaceUnsynced(filepath.Join(dir, StatCacheName), e.b, 0o644)
}

// errCacheMoved says the stat cache file is not the one a commit read.
var errCacheMoved = errors.New("the stat cache was replaced since it was read")

// appendStatCache appends a commit's record to dir's stat cache (one
// write, not synced: a torn record is ignored when read), but only to the
// very file the commit's base was read from (inode and size): appended to
// another, the record could stand on a snapshot that lacks an earlier
// commit. Otherwise it returns errCacheMoved and the caller writes the
// cache whole. Stamps from racyFrom (ns) on are written unstamped.
func appendStatCache(dir string, t *tailRecord, from logStamp, racyFrom int64) error {
	f, err := os.OpenFile(filepath.Join(dir, StatCacheName), os.O_WRONLY|os.O_APPEND|noFollow|nonBlock, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || (logStamp{Ino: inodeOf(fi), Size: fi.Size()}) != from {
		return errCacheMoved
	}
	e := &encoder{b: make([]byte, 4, 64+entriesSize(t.set)+dirsSize(t.dirs)), racy: racyFrom}
	e.b = append(e.b, t.baseline[:]...)
	e.u64(t.log.Ino)
	e.u64(uint64(t.log.Size))
	e.entries(t.set)
	e.u32(uint32(len(t.deleted)))
	for _, p := range t.deleted {
		e.str(p)
	}
	e.dirs(t.dirs)
	binary.LittleEndian.PutUint32(e.b, uint32(len(e.b)-4))
	e.u32(crc32.Checksum(e.b[4:], castagnoli))
	_, err = f.Write(e.b)
	return err
}

// racySmudge is how recent a stamp may be and still be written into the
// stat cache: a file changed again within the file system's timestamp
// tick of its lstat could keep the very same stamp, so such an entry (or
// folder listing) is written without one and checked again next time,
// as git does with "racy" index entries. Checkout waits racyTick, longer.
const racySmudge = 10 * time.Millisecond

// encoder appends the stat cache's little-endian fields.
type encoder struct {
	b    []byte
	racy int64 // stamps from this time (ns) on are written unstamped
}

func (e *encoder) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) str(s string) {
	e.b = binary.LittleEndian.AppendUint16(e.b, uint16(len(s)))
	e.b = append(e.b, s...)
}
func (e *encoder) stamp(s fileStamp) {
	e.u64(uint64(s.Size))
	e.u64(uint64(s.Mtime))
	e.u64(uint64(s.Ctime))
	e.u64(s.Ino)
	e.u32(s.Mode)
}

// recent reports whether stamp s is too recent to vouch for (racySmudge).
func (e *encoder) recent(s fileStamp) bool { return s.Mtime >= e.racy || s.Ctime >= e.racy }

func (e *encoder) entries(es []cacheEntry) {
	e.u32(uint32(len(es)))
	for i := range es {
		c := &es[i]
		st := c.stamp
		if e.recent(st) {
			st = fileStamp{Size: st.Size}
		}
		e.str(c.path)
		e.stamp(st)
		e.b = append(e.b, c.id[:]...)
		e.b = append(e.b, c.sha256[:]...)
		e.u32(uint32(c.mode))
	}
}

func (e *encoder) dirs(dirs map[string]*cachedDir) {
	n := 0
	for _, d := range dirs {
		if !e.recent(d.stamp) {
			n++
		}
	}
	e.u32(uint32(n))
	for rel, d := range dirs {
		if e.recent(d.stamp) {
			continue // listed again next time
		}
		e.str(rel)
		e.stamp(d.stamp)
		e.u32(uint32(len(d.entries)))
		for _, de := range d.entries {
			e.str(de.name)
			e.u32(uint32(de.typ))
		}
	}
}

func entriesSize(es []cacheEntry) int {
	const entryBytes = 2 + 36 + 20 + 32 + 4 // without the path
	n := 4 + len(es)*entryBytes
	for i := range es {
		n += len(es[i].path)
	}
	return n
}

func dirsSize(dirs map[string]*cachedDir) int {
	n := 4
	for rel, d := range dirs {
		n += 2 + len(rel) + 36 + 4 + len(d.entries)*6
		for _, e := range d.entries {
			n += len(e.name)
		}
	}
	return n
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// replaceUnsynced replaces path with data, without fsync: the stat cache
// is an accelerator whose checksum rejects a file a crash left torn, and
// an fsync of megabytes of cache would cost a commit more than its
// objects. The old file is removed before the new one is renamed into
// place: ext4 flushes a file renamed over another (auto_da_alloc), which
// cost a commit milliseconds; a reader in between finds no cache and falls
// back to the manifest.
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
