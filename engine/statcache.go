package engine

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// statCache remembers, per file of a checkout, the lstat facts seen when
// its content was last hashed, so walk-test re-hashes only files whose
// size, mtime, inode or mode changed. It also copies the manifest, so an
// unchanged checkout is checked without parsing the JSON manifest. It is
// a cache, not identity: when it is missing, stale or damaged, tv falls
// back to the manifest and hashes.
type statCache struct {
	manifest fileStamp // the manifest file this cache was built from
	written  int64     // the cache file's own mtime (ns): racy-entry cutoff
	header   Manifest  // manifest identity, Files left empty
	entries  map[string]*cacheEntry
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

type cacheEntry struct {
	stamp  fileStamp
	id     Hash
	sha256 [32]byte
	mode   FileMode
}

// statCacheMagic opens a stat cache file; a CRC-32C of everything before
// it closes the file (see writeStatCache).
const statCacheMagic = "TVSC4\n"

func stampOf(fi os.FileInfo) fileStamp {
	s := fileStamp{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode())}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.Ino = uint64(st.Ino)
		s.Ctime = ctimeNanos(st)
	}
	return s
}

// clean reports whether a file whose lstat gives st still holds e's
// content: same stamp, and not modified in the same clock tick as the
// cache was written (git's "racy" rule).
func (c *statCache) clean(e *cacheEntry, st fileStamp) bool {
	return e.stamp == st && st.Mtime < c.written
}

// loadStatCache reads dir's cache if it belongs to the current manifest.
// Any problem yields nil: the caller falls back to the manifest.
func loadStatCache(dir string) *statCache {
	mfi, err := os.Lstat(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil
	}
	path := filepath.Join(dir, StatCacheName)
	cfi, err := os.Lstat(path)
	if err != nil || !cfi.Mode().IsRegular() {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	c, err := decodeStatCache(b)
	if err != nil || c.manifest != stampOf(mfi) {
		return nil
	}
	c.written = cfi.ModTime().UnixNano()
	return c
}

// manifestFromCache rebuilds the manifest from the cache. The sha256
// texts are cut from one string, not allocated one by one.
func (c *statCache) toManifest(paths []string) *Manifest {
	m := c.header
	m.Files = make([]ManifestFile, len(paths))
	hexes := make([]byte, 2*len(cacheEntry{}.sha256)*len(paths))
	for i, p := range paths {
		e := c.entries[p]
		hex.Encode(hexes[64*i:], e.sha256[:])
		m.Files[i] = ManifestFile{Path: p, Version: e.id, Size: e.stamp.Size, Mode: modeText(e.mode)}
	}
	all := unsafe.String(unsafe.SliceData(hexes), len(hexes)) // hexes is not written again
	for i := range m.Files {
		m.Files[i].SHA256 = all[64*i : 64*i+64]
	}
	return &m
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

// decodeStatCache decodes a cache file's bytes. The paths it returns are
// cut from b itself (no copy, a handful of allocations for 10k+ entries),
// so the caller must not modify b afterwards.
func decodeStatCache(b []byte) (*statCache, error) {
	if len(b) < len(statCacheMagic)+4 {
		return nil, errors.New("stat cache truncated")
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(body):]) {
		return nil, errors.New("stat cache checksum mismatch")
	}
	d := &decoder{b: body, s: unsafe.String(unsafe.SliceData(body), len(body))}
	if string(d.take(len(statCacheMagic))) != statCacheMagic {
		return nil, errors.New("bad magic")
	}
	c := &statCache{}
	c.manifest = d.stamp()
	c.header.Format = ManifestFormat
	c.header.VaultID = d.str()
	c.header.WorkspaceID = d.str()
	c.header.WorkspaceName = d.str()
	for n := d.u32(); n > 0 && d.err == nil; n-- {
		c.header.Scope = append(c.header.Scope, d.str())
	}
	copy(c.header.Baseline[:], d.take(20))
	n := d.u32()
	const minEntry = 2 + 28 + 20 + 32 + 4 // empty path
	if d.err == nil && uint64(n)*minEntry > uint64(len(d.b)-d.off) {
		d.err = errors.New("stat cache truncated")
	}
	if d.err != nil {
		return nil, d.err
	}
	es := make([]cacheEntry, n)
	c.entries = make(map[string]*cacheEntry, n)
	for i := uint32(0); i < n && d.err == nil; i++ {
		p := d.str()
		e := &es[i]
		e.stamp = d.stamp()
		copy(e.id[:], d.take(20))
		copy(e.sha256[:], d.take(32))
		e.mode = FileMode(d.u32())
		c.entries[p] = e
	}
	if d.err != nil {
		return nil, d.err
	}
	return c, nil
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

// writeStatCache writes the cache for dir's current manifest m and the
// given entries (by path). Failure is not fatal to callers: the cache is
// only an accelerator.
func writeStatCache(dir string, m *Manifest, entries map[string]*cacheEntry) error {
	mfi, err := os.Lstat(filepath.Join(dir, ManifestName))
	if err != nil {
		return err
	}
	const entryBytes = 2 + 36 + 20 + 32 + 4 // without the path
	size := 256 + len(m.VaultID) + len(m.WorkspaceID) + len(m.WorkspaceName) + len(entries)*entryBytes
	for _, f := range m.Scope {
		size += 2 + len(f)
	}
	for p := range entries {
		size += len(p)
	}
	b := make([]byte, 0, size) // one allocation, no copies
	le := binary.LittleEndian
	str := func(s string) {
		b = le.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	stamp := func(s fileStamp) {
		b = le.AppendUint64(b, uint64(s.Size))
		b = le.AppendUint64(b, uint64(s.Mtime))
		b = le.AppendUint64(b, uint64(s.Ctime))
		b = le.AppendUint64(b, s.Ino)
		b = le.AppendUint32(b, s.Mode)
	}
	b = append(b, statCacheMagic...)
	stamp(stampOf(mfi))
	str(m.VaultID)
	str(m.WorkspaceID)
	str(m.WorkspaceName)
	b = le.AppendUint32(b, uint32(len(m.Scope)))
	for _, f := range m.Scope {
		str(f)
	}
	b = append(b, m.Baseline[:]...)
	b = le.AppendUint32(b, uint32(len(entries)))
	for p, e := range entries {
		str(p)
		stamp(e.stamp)
		b = append(b, e.id[:]...)
		b = append(b, e.sha256[:]...)
		b = le.AppendUint32(b, uint32(e.mode))
	}
	b = le.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return replaceUnsynced(filepath.Join(dir, StatCacheName), b, 0o644)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// replaceUnsynced replaces path with data by a rename, so readers see the
// old or the new file, but without fsync: the stat cache is an
// accelerator whose checksum rejects a file a crash left torn, and an
// fsync of megabytes of cache would cost a commit more than its objects.
func replaceUnsynced(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
