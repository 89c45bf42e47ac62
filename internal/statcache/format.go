package statcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"unsafe"

	"github.com/thalix/tv/atomicfile"
	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/lebin"
)

// Magic opens a stat cache file (version 7: entries sorted by path,
// folder listings, the manifest log's stamp; CRC-32 (IEEE) checksums,
// whose hardware path needs no table, where version 6's CRC-32C cost
// every command ~0.15 ms building hash/crc32's Castagnoli tables). The
// file is a snapshot, then the records commits appended to it, all
// little-endian:
//
//	snapshot: Magic, u64 snapshot length (to the end of its CRC),
//	          stamp manifest, u64 log inode, u64 log size,
//	          [20] manifest baseline, str vault id, str workspace id,
//	          str workspace name, u32 n, n × str scope folder,
//	          [20] baseline, entries, dirs, u32 CRC-32 of all before it
//	record:   u32 length l, then l bytes: [20] baseline, u64 log inode,
//	          u64 log size, entries, u32 n, n × str deleted path, dirs;
//	          then u32 CRC-32 of those l bytes
//	entries:  u32 n, n × (str path, stamp, [20] blob id, [32] sha256,
//	          u32 git mode)
//	dirs:     u32 n, n × (str folder, stamp, u32 k, k × (str name,
//	          u32 type bits))
//	stamp:    u64 size, u64 mtime ns, u64 ctime ns, u64 inode, u32 mode
//	str:      u16 length, bytes
//
// A torn or damaged record ends the file there.
const Magic = "TVSC7\n"

const (
	entryBytes = 2 + 36 + 20 + 32 + 4 // an entry without its path
	dirBytes   = 2 + 36 + 4           // a folder without its name or entries
)

var errTruncated = errors.New("stat cache truncated")

// decode decodes a cache file's bytes (without building the index): its
// snapshot, then the records commits appended to it, each applied in
// turn. The strings it returns are cut from data itself, so the caller
// must not modify data afterwards.
func decode(data []byte) (*Cache, error) {
	if len(data) < len(Magic)+8 || string(data[:len(Magic)]) != Magic {
		return nil, errors.New("bad magic")
	}
	n := binary.LittleEndian.Uint64(data[len(Magic):])
	if n < uint64(len(Magic))+12 || n > uint64(len(data)) {
		return nil, errTruncated
	}
	snap := data[:n-4]
	r := lebin.NewReader(snap, len(Magic)+8)
	c := &Cache{size: int64(n)}
	h := &c.Header
	h.ManifestStamp = readStamp(r)
	h.Log = fastio.FileID{Ino: r.U64(), Size: int64(r.U64())}
	copy(h.ManifestBaseline[:], r.Take(20))
	h.VaultID = r.Str()
	h.WorkspaceID = r.Str()
	h.WorkspaceName = r.Str()
	for k := r.U32(); k > 0 && r.Err() == nil; k-- {
		h.Scope = append(h.Scope, r.Str())
	}
	copy(h.Baseline[:], r.Take(20))
	if err := c.decodeBody(snap, r, binary.LittleEndian.Uint32(data[n-4:])); err != nil {
		return nil, err
	}
	var records []Record
	for off := int(n); off+8 <= len(data); {
		l := int(binary.LittleEndian.Uint32(data[off:]))
		if l > len(data)-off-8 {
			break // torn
		}
		rec := data[off+4 : off+4+l]
		if crc32.ChecksumIEEE(rec) != binary.LittleEndian.Uint32(data[off+4+l:]) {
			break
		}
		t, ok := readRecord(rec)
		if !ok {
			break
		}
		records = append(records, t)
		off += l + 8
		c.tailBytes += int64(l + 8)
	}
	c.apply(records)
	return c, nil
}

// parallelEntries is how many entries a snapshot holds at least for
// decode to read it on several goroutines.
const parallelEntries = 2048

// decodeBody decodes the snapshot's entries and folder listings, which
// follow r's offset, and checks the snapshot against its checksum sum.
// A large snapshot is read in three parts at once — the entries' first
// half, their second half, the listings with the checksum — so that the
// fresh memory they fill (a 10k-file cache is ~1.4 MB of entries and
// listings, ~350 page faults) is faulted in on every core instead of one
// (decoding is most of a diff's start, where the other cores are idle).
// The parts are found by a pass over the entries' path lengths; a damaged
// snapshot is decoded like any other (every read is bounds-checked) and
// refused by its checksum.
func (c *Cache) decodeBody(snap []byte, r *lebin.Reader, sum uint32) error {
	start := r.Offset()
	n := r.U32()
	if r.Err() == nil && uint64(n)*entryBytes > uint64(r.Remaining()) {
		r.Fail(errTruncated)
	}
	if r.Err() != nil {
		return truncated(r)
	}
	if n < parallelEntries {
		r = lebin.NewReader(snap, start)
		if crc32.ChecksumIEEE(snap) != sum {
			return errChecksum
		}
		var err error
		if c.Files, err = readEntries(r); err != nil {
			return err
		}
		if err := checkOrder(c.Files); err != nil {
			return err
		}
		if c.Dirs, err = readDirs(r); err != nil {
			return err
		}
		if r.Remaining() != 0 {
			return errors.New("stat cache has trailing bytes")
		}
		return nil
	}
	half := int(n / 2)
	mid := skipEntries(r, half)
	end := skipEntries(r, int(n)-half)
	if r.Err() != nil {
		return truncated(r)
	}
	c.Files = make([]Entry, n)
	var wg sync.WaitGroup
	var errs [2]error
	wg.Add(2)
	go func() {
		defer wg.Done()
		errs[0] = guarded(func() error {
			return readPart(snap, mid, end, c.Files[half:])
		})
	}()
	go func() {
		defer wg.Done()
		errs[1] = guarded(func() error {
			if crc32.ChecksumIEEE(snap) != sum {
				return errChecksum
			}
			dr := lebin.NewReader(snap, end)
			var err error
			if c.Dirs, err = readDirs(dr); err == nil && dr.Remaining() != 0 {
				err = errors.New("stat cache has trailing bytes")
			}
			return err
		})
	}()
	err := readPart(snap, start+4, mid, c.Files[:half])
	wg.Wait()
	// The checksum's verdict first: a damaged file says so, whatever part
	// of it failed to decode.
	if errors.Is(errs[1], errChecksum) {
		return errChecksum
	}
	for _, e := range []error{err, errs[0], errs[1]} {
		if e != nil {
			return e
		}
	}
	return checkOrder(c.Files)
}

// errChecksum is decode's error for a snapshot that fails its checksum.
var errChecksum = errors.New("stat cache checksum mismatch")

// skipEntries moves r past k entries, reading only their path lengths.
func skipEntries(r *lebin.Reader, k int) int {
	for range k {
		l := int(binary.LittleEndian.Uint16(r.Take(2)))
		r.Take(l + entryBytes - 2)
		if r.Err() != nil {
			break
		}
	}
	return r.Offset()
}

// checkOrder refuses entries that are not sorted by path without
// duplicates.
func checkOrder(es []Entry) error {
	for i := 1; i < len(es); i++ {
		if es[i].Path <= es[i-1].Path {
			return errors.New("stat cache entries out of order")
		}
	}
	return nil
}

// guarded runs f on a goroutine that decodes mapped bytes: a fault (the
// file cut short while it is read) is an error, as in decodeMapped,
// rather than the end of the process.
func guarded(f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("stat cache changed while it was read: %v", r)
		}
	}()
	return f()
}

// readRecord decodes one appended record; ok is false when it is damaged.
func readRecord(rec []byte) (t Record, ok bool) {
	r := lebin.NewReader(rec, 0)
	copy(t.Baseline[:], r.Take(20))
	t.Log = fastio.FileID{Ino: r.U64(), Size: int64(r.U64())}
	var err error
	t.Set, err = readEntries(r)
	if err == nil {
		for k := r.U32(); k > 0 && r.Err() == nil; k-- {
			t.Deleted = append(t.Deleted, r.Str())
		}
		t.Dirs, err = readDirs(r)
	}
	return t, err == nil && r.Err() == nil && r.Remaining() == 0
}

func readStamp(r *lebin.Reader) fastio.Stamp {
	return fastio.Stamp{Size: int64(r.U64()), Mtime: int64(r.U64()), Ctime: int64(r.U64()), Ino: r.U64(), Mode: r.U32()}
}

// truncated is r's error, as the stat cache names it.
func truncated(r *lebin.Reader) error {
	if errors.Is(r.Err(), lebin.ErrTruncated) {
		return errTruncated
	}
	return r.Err()
}

// readEntries reads a count and that many file entries.
func readEntries(r *lebin.Reader) ([]Entry, error) {
	n := r.U32()
	if r.Err() == nil && uint64(n)*entryBytes > uint64(r.Remaining()) {
		r.Fail(errTruncated)
	}
	if r.Err() != nil {
		return nil, truncated(r)
	}
	es := make([]Entry, n)
	return es, readEntriesInto(r, es)
}

// readEntriesInto reads len(es) file entries (without their count) into es.
func readEntriesInto(r *lebin.Reader, es []Entry) error {
	for i := range es {
		e := &es[i]
		e.Path = r.Str()
		e.Stamp = readStamp(r)
		copy(e.ID[:], r.Take(20))
		copy(e.SHA256[:], r.Take(32))
		e.Mode = r.U32()
	}
	if r.Err() != nil {
		return truncated(r)
	}
	return nil
}

// readPart reads the entries es from snap[from:to], which they must fill.
func readPart(snap []byte, from, to int, es []Entry) error {
	r := lebin.NewReader(snap[:to], from)
	if err := readEntriesInto(r, es); err != nil {
		return err
	}
	if r.Remaining() != 0 {
		return errors.New("stat cache entries do not end where their lengths say")
	}
	return nil
}

// readDirs reads a count and that many folder listings.
func readDirs(r *lebin.Reader) (map[string]*Dir, error) {
	ndirs := r.U32()
	if r.Err() == nil && uint64(ndirs)*dirBytes > uint64(r.Remaining()) {
		r.Fail(errTruncated)
	}
	if r.Err() != nil {
		return nil, truncated(r)
	}
	dirs := make(map[string]*Dir, ndirs)
	for range ndirs {
		rel := r.Str()
		d := &Dir{Stamp: readStamp(r)}
		n := r.U32()
		if r.Err() == nil && uint64(n)*6 > uint64(r.Remaining()) {
			r.Fail(errTruncated)
		}
		if r.Err() != nil {
			return nil, truncated(r)
		}
		d.Entries = make([]fastio.Dirent, n)
		for i := range d.Entries {
			e := &d.Entries[i]
			e.Name = r.Str()
			e.Type = fs.FileMode(r.U32())
			// Each name is one element: the scan stats it relative to
			// its folder and must never be led elsewhere.
			if r.Err() == nil && (!oneElem(e.Name) || i > 0 && e.Name <= d.Entries[i-1].Name) {
				r.Fail(fmt.Errorf("stat cache: bad listing of %q", rel))
			}
		}
		if r.Err() != nil {
			return nil, truncated(r)
		}
		dirs[rel] = d
	}
	return dirs, nil
}

// oneElem reports whether name is a single path element a folder can
// hold (the scan's rules on what a checkout may hold come later).
func oneElem(name string) bool {
	if name == "" || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ { // strings.ContainsAny was a tenth of a load
		if c := name[i]; c == '/' || c == '\\' || c == 0 {
			return false
		}
	}
	return true
}

// Save writes c whole to path, bound to the manifest and log its Header
// names: if either changed meanwhile, the cache is stale the moment it
// lands, and is never used. Stamps from racyFrom (ns) on are written
// unstamped (RacySmudge). The file replaces path atomically but is not
// synced: its checksum rejects a file a crash left torn, and an fsync of
// megabytes of cache would cost a commit more than its objects. The old
// file is removed before the new one is renamed into place: ext4 flushes
// a file renamed over another (auto_da_alloc), which cost a commit
// milliseconds; a reader in between finds no cache and falls back to the
// manifest.
func (c *Cache) Save(path string, racyFrom int64) error {
	return atomicfile.WriteFunc(path, atomicfile.Options{Mode: 0o644, Sync: atomicfile.SyncNone}, func(out io.Writer) error {
		return c.encode(out, racyFrom)
	})
}

// saveChunk is how much of the cache Save encodes before it writes: the
// file is streamed, not built whole (at 100k files it is 16 MiB, which a
// walk-test or checkout would otherwise hold on top of its live heap).
const saveChunk = 64 << 10

// encode writes the cache file to out in saveChunk pieces. The snapshot's
// length, near its start, is computed ahead; the checksum follows the
// pieces.
func (c *Cache) encode(out io.Writer, racyFrom int64) error {
	h := &c.Header
	w := &writer{Writer: lebin.Writer{B: make([]byte, 0, saveChunk+4<<10)}, racy: racyFrom, out: out}
	w.B = append(w.B, Magic...)
	w.U64(0) // the snapshot's length, below
	w.stamp(h.ManifestStamp)
	w.U64(h.Log.Ino)
	w.U64(uint64(h.Log.Size))
	w.Bytes(h.ManifestBaseline[:])
	w.Str(h.VaultID)
	w.Str(h.WorkspaceID)
	w.Str(h.WorkspaceName)
	w.U32(uint32(len(h.Scope)))
	for _, f := range h.Scope {
		w.Str(f)
	}
	w.Bytes(h.Baseline[:])
	total := len(w.B) + entriesSize(c.Files) + w.dirsSize(c.Dirs) + 4
	binary.LittleEndian.PutUint64(w.B[len(Magic):], uint64(total))
	w.entries(c.Files)
	w.dirs(c.Dirs)
	if err := w.Err(); err != nil {
		return fmt.Errorf("stat cache: %w", err)
	}
	w.flush()
	if w.werr == nil && w.n+4 != int64(total) {
		return fmt.Errorf("stat cache: encoded %d bytes, expected %d", w.n+4, total)
	}
	w.U32(w.crc)
	w.flush()
	return w.werr
}

// Append appends a commit's record r to the cache file at path (one
// write, not synced: a torn record is ignored when read), but only to the
// very file c was loaded from (inode and size): appended to another, the
// record could stand on a snapshot that lacks an earlier commit.
// Otherwise it returns ErrMoved and the caller saves the cache whole.
// Stamps from racyFrom (ns) on are written unstamped.
func (c *Cache) Append(path string, r *Record, racyFrom int64) error {
	if !c.loaded {
		return ErrMoved
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|fastio.NoFollow|fastio.NonBlock, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fastio.IDOf(fi) != c.file {
		return ErrMoved
	}
	w := &writer{racy: racyFrom}
	w.B = make([]byte, 4, 64+entriesSize(r.Set)+w.dirsSize(r.Dirs))
	w.Bytes(r.Baseline[:])
	w.U64(r.Log.Ino)
	w.U64(uint64(r.Log.Size))
	w.entries(r.Set)
	w.U32(uint32(len(r.Deleted)))
	for _, p := range r.Deleted {
		w.Str(p)
	}
	w.dirs(r.Dirs)
	binary.LittleEndian.PutUint32(w.B, uint32(len(w.B)-4))
	if err := w.Err(); err != nil {
		return fmt.Errorf("stat cache: %w", err)
	}
	w.U32(crc32.ChecksumIEEE(w.B[4:]))
	_, err = f.Write(w.B)
	return err
}

// writer appends the cache's fields; with out set, it writes them there
// every saveChunk bytes and keeps their checksum.
type writer struct {
	lebin.Writer
	racy int64     // stamps from this time (ns) on are written unstamped
	out  io.Writer // nil: everything stays in B
	n    int64     // bytes written to out
	crc  uint32    // CRC-32 (IEEE) of those bytes
	werr error     // out's first error
}

// grown writes B out when it holds a chunk (a no-op without out).
func (w *writer) grown() {
	if w.out != nil && len(w.B) >= saveChunk {
		w.flush()
	}
}

// flush writes B to out and empties it.
func (w *writer) flush() {
	if w.werr == nil {
		w.crc = crc32.Update(w.crc, crc32.IEEETable, w.B)
		w.n += int64(len(w.B))
		_, w.werr = w.out.Write(w.B)
	}
	w.B = w.B[:0]
}

func (w *writer) stamp(s fastio.Stamp) {
	w.U64(uint64(s.Size))
	w.U64(uint64(s.Mtime))
	w.U64(uint64(s.Ctime))
	w.U64(s.Ino)
	w.U32(s.Mode)
}

// recent reports whether stamp s is too recent to vouch for (RacySmudge).
func (w *writer) recent(s fastio.Stamp) bool { return s.Mtime >= w.racy || s.Ctime >= w.racy }

func (w *writer) entries(es []Entry) {
	w.U32(uint32(len(es)))
	for i := range es {
		e := &es[i]
		st := e.Stamp
		if w.recent(st) {
			st = fastio.Stamp{Size: st.Size}
		}
		w.Str(e.Path)
		w.stamp(st)
		w.Bytes(e.ID[:])
		w.Bytes(e.SHA256[:])
		w.U32(e.Mode)
		w.grown()
	}
}

func (w *writer) dirs(dirs map[string]*Dir) {
	n := 0
	for _, d := range dirs {
		if !w.recent(d.Stamp) {
			n++
		}
	}
	w.U32(uint32(n))
	for rel, d := range dirs {
		if w.recent(d.Stamp) {
			continue // listed again next time
		}
		w.Str(rel)
		w.stamp(d.Stamp)
		w.U32(uint32(len(d.Entries)))
		for _, de := range d.Entries {
			w.Str(de.Name)
			w.U32(uint32(de.Type))
		}
		w.grown()
	}
}

func entriesSize(es []Entry) int {
	n := 4 + len(es)*entryBytes
	for i := range es {
		n += len(es[i].Path)
	}
	return n
}

// dirsSize is the size of the folders' listings as w writes them (those
// stamped too recently are left out).
func (w *writer) dirsSize(dirs map[string]*Dir) int {
	n := 4
	for rel, d := range dirs {
		if w.recent(d.Stamp) {
			continue
		}
		n += 2 + len(rel) + 36 + 4 + len(d.Entries)*6
		for _, e := range d.Entries {
			n += len(e.Name)
		}
	}
	return n
}

// internStrings moves the cache's paths and folder-listing names into one
// new allocation of just their bytes. decode cuts them from the file's
// bytes, which would otherwise stay alive for as long as the cache (at
// 100k files 16 MiB, of which the paths are a third), or, mapped, go away
// under them. A smaller live heap is also less for the collector to do.
func (c *Cache) internStrings() {
	n := 0
	for i := range c.Files {
		n += len(c.Files[i].Path)
	}
	for rel, d := range c.Dirs {
		n += len(rel)
		for _, e := range d.Entries {
			n += len(e.Name)
		}
	}
	arena := make([]byte, 0, n) // never grows: the strings cut from it stay put
	cut := func(s string) string {
		if s == "" {
			return ""
		}
		start := len(arena)
		arena = append(arena, s...)
		return unsafe.String(&arena[start], len(s))
	}
	for i := range c.Files {
		c.Files[i].Path = cut(c.Files[i].Path)
	}
	if c.Dirs != nil {
		dirs := make(map[string]*Dir, len(c.Dirs))
		for rel, d := range c.Dirs {
			for i := range d.Entries {
				d.Entries[i].Name = cut(d.Entries[i].Name)
			}
			dirs[cut(rel)] = d
		}
		c.Dirs = dirs
	}
	h := &c.Header
	h.VaultID, h.WorkspaceID, h.WorkspaceName = strings.Clone(h.VaultID), strings.Clone(h.WorkspaceID), strings.Clone(h.WorkspaceName)
	for i := range h.Scope {
		h.Scope[i] = strings.Clone(h.Scope[i])
	}
}
