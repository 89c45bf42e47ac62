package gitbackend

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/fastio"
)

// packSet is the vault's view of objects/pack: the decoded index of every
// pack it has seen. It grows when a lookup misses and the directory holds
// packs it has not loaded yet (written by another process), and drops
// packs that disappeared (git repack).
type packSet struct {
	mu    sync.RWMutex
	packs []*packIndex // newest first
	// gen counts the changes to packs: a lookup that missed stops
	// rescanning only when nothing changed the set since it looked,
	// whoever changed it (another goroutine's rescan may load the pack
	// this one needs between its lookup and its own rescan, which then
	// finds nothing new).
	gen uint64
}

type packIndex struct {
	name string // "pack-<hex>"
	idx  *rawIndex
	file packFile // the .pack, opened on first read (packread.go)
}

// findPacked returns the pack holding h, and the pack set's generation
// it looked in.
func (v *Vault) findPacked(h engine.Hash) (*packIndex, uint64, bool) {
	v.packs.mu.RLock()
	defer v.packs.mu.RUnlock()
	for _, p := range v.packs.packs {
		if _, ok := p.idx.find(h); ok {
			return p, v.packs.gen, true
		}
	}
	return nil, v.packs.gen, false
}

// packGen is the pack set's generation (packSet.gen).
func (v *Vault) packGen() uint64 {
	v.packs.mu.RLock()
	defer v.packs.mu.RUnlock()
	return v.packs.gen
}

// refreshPacks syncs the pack set with objects/pack, counting a change in
// packSet.gen. Only indexes not loaded yet are read.
func (v *Vault) refreshPacks() error {
	dir := filepath.Join(v.path, "objects", "pack")
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("list packs: %w", err)
	}
	onDisk := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "pack-") && strings.HasSuffix(n, ".idx") {
			onDisk[strings.TrimSuffix(n, ".idx")] = true
		}
	}
	v.packs.mu.Lock()
	defer v.packs.mu.Unlock()
	changed := false
	kept := v.packs.packs[:0:0]
	have := map[string]bool{}
	for _, p := range v.packs.packs {
		if onDisk[p.name] {
			kept = append(kept, p)
			have[p.name] = true
		} else {
			changed = true
		}
	}
	var added []*packIndex
	for name := range onDisk {
		if have[name] {
			continue
		}
		idx, err := loadPackIndex(filepath.Join(dir, name+".idx"), name)
		if errors.Is(err, fs.ErrNotExist) {
			// Removed since the listing (consolidated, git repack): the
			// pack that took its objects was renamed in before, maybe
			// after the listing, so the caller must list again.
			changed = true
			continue
		}
		if err != nil {
			return err
		}
		// The pack is opened with its index, not at its first read: a
		// consolidation may delete it any time after the listing, and an
		// open file stays readable, so a pack loaded here serves every
		// object its index names. Opened at the first read, it could be
		// gone by then, and a reader racing a run of merges could miss
		// the merged pack on every rescan.
		p := &packIndex{name: name, idx: idx}
		if _, _, err := p.open(dir); err != nil {
			changed = true // index without its pack (not yet renamed in, or removed): list again
			continue
		}
		added = append(added, p)
	}
	if len(added) > 0 {
		changed = true
		slices.SortFunc(added, func(a, b *packIndex) int { return strings.Compare(a.name, b.name) })
		kept = append(added, kept...)
	}
	v.packs.packs = kept
	if changed {
		v.packs.gen++
	}
	return nil
}

// addPack registers a pack this process just wrote.
func (v *Vault) addPack(name string) error {
	idx, err := loadPackIndex(filepath.Join(v.path, "objects", "pack", name+".idx"), name)
	if errors.Is(err, fs.ErrNotExist) {
		// Another process's consolidation merged it already: its objects
		// are in a pack renamed into place before it was deleted.
		return v.refreshPacks()
	}
	if err != nil {
		return err
	}
	v.packs.mu.Lock()
	defer v.packs.mu.Unlock()
	for _, p := range v.packs.packs {
		if p.name == name {
			return nil
		}
	}
	v.packs.packs = append([]*packIndex{{name: name, idx: idx}}, v.packs.packs...)
	v.packs.gen++
	return nil
}

// loadPackIndex maps a pack's index for the vault's lookups. A lookup
// reads a few of its pages where reading the file whole would fill fresh
// memory with it (a 100k-object index is 2.8 MiB: ~700 page faults per
// command here). The mapping is released when the index is no longer
// reachable (a pack merged away, the vault dropped); its methods keep it
// alive while they read (runtime.KeepAlive). Pack indexes are written
// whole and renamed into place, never changed in place.
func loadPackIndex(path, name string) (*rawIndex, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open pack index: %w", err)
	}
	b, release, err := fastio.MapFile(path, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("open pack index: %w", err)
	}
	idx, err := checkPackIndex(b, path, name)
	if err != nil {
		release()
		return nil, err
	}
	runtime.AddCleanup(idx, func(release func()) { release() }, release)
	return idx, nil
}

// checkPackIndex wraps index file b (at path, of pack name).
func checkPackIndex(b []byte, path, name string) (*rawIndex, error) {
	idx, err := parseIndex(b)
	if err != nil {
		return nil, fmt.Errorf("pack index %s: %w", path, err)
	}
	if want := strings.TrimPrefix(name, "pack-"); engine.Hash(idx.sum).String() != want {
		return nil, fmt.Errorf("pack index %s: checksum does not match the name", path)
	}
	return idx, nil
}

// hasObject reports whether the vault has h, without rescanning packs.
func (v *Vault) hasObject(h engine.Hash) (bool, uint64) {
	_, gen, ok := v.findPacked(h)
	if ok {
		return true, gen
	}
	_, err := os.Lstat(v.loosePath(h))
	return err == nil, gen
}

// objectExists reports whether the vault has h, rescanning packs on a
// miss (another process may have just written it, or merged the pack that
// held it into a new one).
func (v *Vault) objectExists(h engine.Hash) bool {
	if v.mem != nil {
		v.memMu.RLock()
		defer v.memMu.RUnlock()
		return v.mem.hasObject(h)
	}
	for attempt := 0; ; attempt++ {
		ok, gen := v.hasObject(h)
		if ok {
			return true
		}
		if attempt >= packRescans {
			return false
		}
		if err := v.refreshPacks(); err != nil || attempt > 0 && v.packGen() == gen {
			return false
		}
	}
}

// packRescans bounds how often one lookup rescans objects/pack. A miss
// rescans at least twice: a pack can be replaced by another (consolidation,
// git repack: the new one renamed in, then the old one deleted) while the
// directory is being listed, and a listing spanning several getdents calls
// is no snapshot, so one listing may show neither. The next listing shows
// the new pack. A hit in a pack loaded earlier is good even if that pack is
// gone since: a pack is only deleted once its objects are in another one.
// Under many concurrent writers each rescan may find the pack it points
// to merged away in turn; a rescan after which the set is what the lookup
// missed in (no rescan, add or drop by anyone since) ends the search, so
// the bound only matters while consolidations keep landing.
const packRescans = 8

func (v *Vault) loosePath(h engine.Hash) string {
	s := h.String()
	return filepath.Join(v.path, "objects", s[:2], s[2:])
}

// openObject returns the type, size and a reader of object h's content.
func (v *Vault) openObject(h engine.Hash) (int, int64, io.ReadCloser, error) {
	if v.mem != nil {
		return v.memOpenObject(h)
	}
	for attempt := 0; ; attempt++ {
		p, gen, ok := v.findPacked(h)
		if ok {
			typ, size, rc, err := v.openPacked(p, h)
			if err == nil || !errors.Is(err, fs.ErrNotExist) {
				return typ, size, rc, err
			}
			// The pack vanished (merged by consolidation, git repack):
			// its objects are in a pack added before it was deleted.
		} else {
			typ, size, rc, err := v.openLoose(h)
			if err == nil || !errors.Is(err, fs.ErrNotExist) {
				return typ, size, rc, err
			}
		}
		if attempt >= packRescans {
			break
		}
		if err := v.refreshPacks(); err != nil {
			return 0, 0, nil, err
		}
		if attempt > 0 && v.packGen() == gen {
			break // nothing changed the pack set since this lookup missed
		}
	}
	return 0, 0, nil, fmt.Errorf("%w: %s", engine.ErrObjectNotFound, h)
}

// objectType is the pack type of loose object h's type name. A tag is
// refused as an object tv does not read, a name git does not write as a
// corrupt object.
func objectType(name string, h engine.Hash) (int, error) {
	for typ, n := range typeNames {
		if n != "" && n == name {
			return typ, nil
		}
	}
	if name == "tag" {
		return 0, fmt.Errorf("%w: %s is a tag, which tv does not read", engine.ErrObjectNotFound, h)
	}
	return 0, fmt.Errorf("loose object %s is corrupt: unknown type %q", h, name)
}

// openLoose streams a loose object (written by git, never by tv).
func (v *Vault) openLoose(h engine.Hash) (int, int64, io.ReadCloser, error) {
	return openLooseFile(v.loosePath(h), h)
}

// openLooseFile streams loose object h from the file at path. A file of
// at most inlineEntryBytes is read whole (readSmallFile: four system
// calls) and inflated from memory by a pooled inflater, so reading a few
// small objects (a hook judging a push) costs little beyond them; a
// larger one streams.
func openLooseFile(path string, h engine.Hash) (int, int64, io.ReadCloser, error) {
	b, f, err := readSmallFile(path, inlineEntryBytes)
	if err != nil {
		return 0, 0, nil, err
	}
	l := &looseReader{f: f}
	fail := func(err error) (int, int64, io.ReadCloser, error) {
		l.Close()
		return 0, 0, nil, err
	}
	corrupt := func(why any) (int, int64, io.ReadCloser, error) {
		return fail(fmt.Errorf("loose object %s is corrupt: %v", h, why))
	}
	var src interface {
		io.Reader
		io.ByteReader
	}
	if f == nil {
		src = bytes.NewReader(b)
	} else {
		src = bufio.NewReaderSize(f, 32<<10)
	}
	if z, ok := inflaters.Get().(io.ReadCloser); ok {
		l.zr = z
		if err := z.(zlib.Resetter).Reset(src, nil); err != nil {
			return corrupt(err)
		}
	} else if l.zr, err = zlib.NewReader(src); err != nil {
		return corrupt(err)
	}
	br := bufio.NewReaderSize(l.zr, 64) // the header; longer reads pass through
	hdr, err := br.ReadString(0)
	if err != nil || len(hdr) > 32 {
		return corrupt("bad header")
	}
	tname, sizeStr, _ := strings.Cut(strings.TrimSuffix(hdr, "\x00"), " ")
	size, err := strconv.ParseInt(sizeStr, 10, 64)
	if err != nil || size < 0 {
		return corrupt("bad size")
	}
	typ, err := objectType(tname, h)
	if err != nil {
		return fail(err)
	}
	l.r = io.LimitReader(br, size)
	return typ, size, l, nil
}

type looseReader struct {
	r  io.Reader
	zr io.ReadCloser // pooled (inflaters) once closed
	f  *os.File      // nil when the file was read whole
}

func (l *looseReader) Read(p []byte) (int, error) { return l.r.Read(p) }
func (l *looseReader) Close() error {
	if l.zr != nil {
		inflaters.Put(l.zr)
		l.zr = nil
	}
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// readWhole reads object h of type want into memory (commits and trees).
func (v *Vault) readWhole(ctx context.Context, h engine.Hash, want int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	typ, size, rc, err := v.openObject(h)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if typ != want {
		return nil, fmt.Errorf("%w: %s is a %s, not a %s", engine.ErrObjectNotFound, h, typeNames[typ], typeNames[want])
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	if _, err := io.Copy(buf, rc); err != nil {
		return nil, fmt.Errorf("read %s %s: %w", typeNames[want], h, err)
	}
	if int64(buf.Len()) != size {
		return nil, fmt.Errorf("read %s %s: got %d bytes, want %d", typeNames[want], h, buf.Len(), size)
	}
	return buf.Bytes(), nil
}

// ReadCommit returns commit id, or an error wrapping engine.ErrObjectNotFound.
func (v *Vault) ReadCommit(ctx context.Context, id engine.Hash) (*engine.Commit, error) {
	data, err := v.readWhole(ctx, id, typeCommit)
	if err != nil {
		return nil, err
	}
	return decodeCommit(id, data)
}

// ReadTree returns the entries of tree id in git order, or an error
// wrapping engine.ErrObjectNotFound.
func (v *Vault) ReadTree(ctx context.Context, id engine.Hash) ([]engine.TreeEntry, error) {
	data, err := v.readWhole(ctx, id, typeTree)
	if err != nil {
		return nil, err
	}
	return decodeTree(id, data)
}

// OpenBlob streams blob id and returns its size; the caller closes the
// reader. Blobs over StreamThreshold are never read into memory whole.
func (v *Vault) OpenBlob(ctx context.Context, id engine.Hash) (io.ReadCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	typ, size, rc, err := v.openObject(id)
	if err != nil {
		return nil, 0, err
	}
	if typ != typeBlob {
		rc.Close()
		return nil, 0, fmt.Errorf("%w: %s is a %s, not a blob", engine.ErrObjectNotFound, id, typeNames[typ])
	}
	return rc, size, nil
}

// memOpenObject reads from the in-memory storage.
func (v *Vault) memOpenObject(h engine.Hash) (int, int64, io.ReadCloser, error) {
	v.memMu.RLock()
	o, err := v.mem.object(h)
	v.memMu.RUnlock()
	if err != nil {
		return 0, 0, nil, err
	}
	return o.typ, int64(len(o.content)), io.NopCloser(bytes.NewReader(o.content)), nil
}
