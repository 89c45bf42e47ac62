package gitbackend

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/fastio"
)

// Merging packs with deltas. A batch writes whole objects (a commit stays
// cheap); consolidation, which reads the small packs anyway, is where
// objects become deltas, as in `git gc`:
//
//  1. scan: every merged pack is mapped and read once from start to end,
//     each entry checked against its index's CRC-32 and the pack against
//     its SHA-1 trailer (a corrupt pack is never spread: the merge stops),
//     and its header parsed; the chains of the packs' own deltas are
//     measured. Every later step reads the packs through the mappings:
//     an entry copied is a slice of its pack. The packs are scanned on
//     mergeWorkers goroutines, and the candidates inflated so (the
//     commit waits for its merge while the other cores idle).
//  2. candidates (loadCandidates): whole trees and blobs from 64 bytes to
//     DeltaMaxObjectBytes are inflated, up to mergeContentBytes in all:
//     all of a batch's pack, but of a pack that holds deltas only the
//     bases of its chains (its other objects found no base when it was
//     written). Their trees name their entries: a blob or tree gets the
//     hash of its name, so versions of one file meet. Commits stay whole.
//  3. select: the candidates, sorted by type, name, size and recency
//     (largest and newest first: the newest version of a file stays
//     whole, older ones become deltas of it, as git does), each try the
//     DeltaWindow objects before them as a base (deltaenc.go) and keep
//     the smallest delta under half the object's size; a delta under
//     1/64 of it is taken at once. A chain base from a merged pack, which no tree of the
//     merge names, tries the candidates nearest in size instead (the next
//     versions of its file). A chain never gets deeper than DeltaDepth,
//     counting the deltas the merged packs already hang on the object.
//  4. write: first the candidates, every base before its deltas
//     (OFS_DELTA points back), whole ones copied raw; then every other
//     whole entry copied raw; then the merged packs' own delta entries,
//     their zlib data copied raw behind a new header whose OFS_DELTA
//     offset points at the base's new place (a REF_DELTA becomes an
//     OFS_DELTA). A delta whose base is missing or whose chain would grow
//     past DeltaDepth is written whole, read through the vault.
//
// So a merge inflates and compares the objects written since the last
// merges, and copies the rest as bytes; geometric merging
// (consolidate.go) keeps the bytes copied to the packs written since the
// last merges, amortised. Measured on bench/history's 1,000 one-file
// commits through the vault API: the vault is 0.94× the same objects in
// git after `git gc`, a merge of 16 batch packs takes 10–40 ms, and the
// rare merge of the whole vault (4,481 entries) 40 ms, on a machine at
// load 18–20. On an idle 2-core machine, through `tv workspace commit`
// (session 10): the whole-vault merge at commit 894 (16 packs, 549 KB,
// 5,379 entries, 712 KB inflated) costs ~9 ms over a commit that merges
// nothing, a merge of 16 batch packs ~4 ms; the merge's fresh memory,
// a page fault per 4 KiB, is a good part of that, hence the reused
// delta index, the packed entries and the stored small deltas.

// mergeContentBytes bounds the inflated objects one merge holds for delta
// selection; objects beyond it are copied as they are.
const mergeContentBytes = 32 << 20

// mergeMinDeltaBytes is the size under which an object is not worth a
// delta (the entry header and base offset eat the gain).
const mergeMinDeltaBytes = 64

// mergeZlibLevel compresses the deltas a merge writes from
// mergeStoredDeltaBytes on: they are written once, so a better level
// costs little.
const mergeZlibLevel = zlib.DefaultCompression

// mergeStoredDeltaBytes is the delta size under which a merge stores a
// delta in zlib's stored blocks instead of compressing it: a delta that
// small is copy instructions, an object id or a line or two of text,
// which deflate barely shrinks, and a deflate writer is ~1 MiB of fresh
// memory (a page fault per 4 KiB) for a merge that may write only such
// deltas (bench/history's 16-pack merges write 39 deltas of under 200
// bytes).
const mergeStoredDeltaBytes = 1 << 10

// mergeSource is one pack being merged.
type mergeSource struct {
	name    string
	data    []byte        // the pack, mapped read-only (fastio.MapFile)
	release func()        // unmaps data
	entries []*mergeEntry // in pack order
	idx     *rawIndex

	hasDeltas bool      // it holds delta entries: a merge or git wrote it
	written   time.Time // the pack file's modification time: its recency
}

// mergeEntry is one entry of a merged pack and what the merge does with it:
// 112 bytes, its header's fields packed in (a packEntryHead, with room
// for a REF_DELTA's base id, made it 160: 258 KB more fresh memory for a
// merge of 5,379 entries). A REF_DELTA's base id is read from the pack.
type mergeEntry struct {
	src     *mergeSource
	id      engine.Hash
	typ     uint8 // the entry's type: 1–4 whole, 6 OFS_DELTA, 7 REF_DELTA
	dataOff uint8 // where its zlib stream starts, relative to off
	written bool
	srcDep  int32 // chain length in the old pack (-1: not known yet)
	below   int32 // longest old chain hanging on it (a whole entry)
	depth   int32 // chain length in the new pack

	off, end   int64 // in the old pack
	size       int64 // inflated (of the delta, for a delta)
	baseOff    int64 // OFS_DELTA: the base's offset in the old pack
	*mergeCand       // a delta candidate's part (loadCandidates); nil for the rest

	dup    *mergeEntry // the same object, written in its place
	root   *mergeEntry // the whole entry its old chain ends at
	newOff int64
}

// baseID is a REF_DELTA's base: the 20 bytes before its zlib stream.
func (e *mergeEntry) baseID() engine.Hash {
	start := e.off + int64(e.dataOff)
	return engine.Hash(e.src.data[start-20 : start])
}

// mergeCand is the part of a merge entry only delta candidates have: a
// merge of bench/history's 1,000 commits holds 5,385 entries and 73
// candidates, and every byte of mergeEntry is a fresh page's worth of
// memory every 4,096 / size entries.
type mergeCand struct {
	content []byte      // inflated
	name    uint32      // hash of the name a tree gives it; 0 unknown
	base    *mergeEntry // the new delta base, a candidate too
	delta   []byte
}

// isDelta reports whether the entry is a delta in its old pack.
func (e *mergeEntry) isDelta() bool {
	return e.typ == typeOfsDelta || e.typ == typeRefDelta
}

// canonical is the entry written for e's object.
func (e *mergeEntry) canonical() *mergeEntry {
	if e.dup != nil {
		return e.dup
	}
	return e
}

// pendingPack is a batch's pack, complete (count and trailer written) but
// neither fsynced nor installed, with its index in memory.
type pendingPack struct {
	path    string
	size    int64 // bytes
	objects int
	idx     *rawIndex
}

// mergePacks merges the packs names (batchPackName: batch) into one new
// pack with deltas and installs it. It returns the new pack's name; on
// error nothing was installed.
func (v *Vault) mergePacks(dir string, names []string, batch *pendingPack) (name string, err error) {
	var srcs []*mergeSource
	defer func() {
		for _, s := range srcs {
			if s != nil {
				s.release()
			}
		}
	}()
	// The packs are mapped: a pack cut short under the merge (by
	// something other than tv: packs are never changed in place) faults
	// on read, which becomes this merge's error instead of a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); fault {
				name, err = "", fmt.Errorf("consolidate: a merged pack changed under the merge: %v", r)
				return
			}
			panic(r)
		}
	}()
	srcs = make([]*mergeSource, len(names))
	err = inParallel(len(names), func(_, i int) error {
		var err error
		if names[i] == batchPackName {
			srcs[i], err = scanPack(batch.path, "this batch's pack", batch.idx)
		} else {
			srcs[i], err = scanPackNamed(dir, names[i])
		}
		if err != nil {
			return fmt.Errorf("consolidate %s: %w", names[i], err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	all := markDuplicates(srcs)
	for _, e := range all {
		sourceDepth(e, 0)
	}
	cands, err := loadCandidates(all)
	if err != nil {
		return "", fmt.Errorf("consolidate: %w", err)
	}
	cands = selectDeltas(cands)

	// No seen set: markDuplicates already chose the one entry written
	// for each object, and every one is written (writeMerged), so the
	// pack's count is known before its first entry.
	unique := 0
	for _, e := range all {
		if e.dup == nil {
			unique++
		}
	}
	w := &packWriter{v: v, entries: make([]packEntry, 0, unique)}
	defer w.removeTemp() // nothing once finish renamed it
	if err := w.startCounted(unique); err != nil {
		return "", fmt.Errorf("consolidate: %w", err)
	}
	if err := w.writeMerged(all, cands); err != nil {
		return "", fmt.Errorf("consolidate: %w", err)
	}
	if name, err = w.finish(); err != nil {
		return "", fmt.Errorf("consolidate: %w", err)
	}
	return name, nil
}

// scanPackNamed scans pack name of dir (scanPack).
func scanPackNamed(dir, name string) (*mergeSource, error) {
	idx, err := loadPackIndex(filepath.Join(dir, name+".idx"), name)
	if err != nil {
		return nil, err
	}
	return scanPack(filepath.Join(dir, name+".pack"), name, idx)
}

// scanPack maps the pack at path, indexed by idx, and reads it once,
// checking every entry's CRC-32 and the trailer, and parses the entry
// headers. Mapped, the merge's copies of its entries are slices of the
// mapping: reading them through a buffer made one pread per entry
// copied out of pack order (5,457 of them for bench/history's merge at
// commit 894, a third of that commit's time).
func scanPack(path, name string, idx *rawIndex) (*mergeSource, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	data, release, err := fastio.MapFile(path, fi.Size())
	if err != nil {
		return nil, err
	}
	s := &mergeSource{name: name, data: data, release: release, idx: idx, written: fi.ModTime()}
	if err := s.scan(); err != nil {
		release()
		return nil, err
	}
	return s, nil
}

func (s *mergeSource) scan() error {
	defer runtime.KeepAlive(s.idx) // it may be mapped (loadPackIndex)
	n := len(s.idx.names) / 20
	order := make([]keyed, n) // index positions in pack order
	for i := range n {
		order[i] = keyed{uint64(s.idx.offset(i)), int32(i)}
	}
	sortKeyed(order)

	data := s.data
	if len(data) < 12+20 {
		return errors.New("pack too short for its header and trailer")
	}
	hdr := data[:12]
	if !bytes.Equal(hdr[:4], []byte("PACK")) || binary.BigEndian.Uint32(hdr[4:]) != 2 && binary.BigEndian.Uint32(hdr[4:]) != 3 {
		return errors.New("not a version 2 pack")
	}
	if int(binary.BigEndian.Uint32(hdr[8:])) != n {
		return fmt.Errorf("pack holds %d objects, its index %d", binary.BigEndian.Uint32(hdr[8:]), n)
	}
	end := int64(len(data)) - 20
	s.entries = make([]*mergeEntry, 0, n)
	backing := make([]mergeEntry, n) // one allocation for the pack's entries
	pos := int64(len(hdr))
	var rd bytes.Reader // parses every entry's header
	for k, o := range order {
		i, off := int(o.pos), int64(o.key)
		next := end
		if k+1 < n {
			next = int64(order[k+1].key)
		}
		if off != pos || next <= pos || next > end {
			return fmt.Errorf("entry at %d does not follow the previous one (at %d) inside the pack", off, pos)
		}
		e := &backing[k]
		*e = mergeEntry{src: s, off: pos, end: next, srcDep: -1}
		copy(e.id[:], s.idx.names[20*i:])
		entry := data[pos:next]
		h, err := parseEntryHeadWith(&rd, entry, pos)
		if err != nil {
			return fmt.Errorf("entry at %d: %w", pos, err)
		}
		if h.dataOff > 0xff { // a header is at most 10 + 20 bytes
			return fmt.Errorf("entry at %d: a header of %d bytes", pos, h.dataOff)
		}
		e.typ, e.dataOff, e.size, e.baseOff = uint8(h.typ), uint8(h.dataOff), h.size, h.baseOff
		if crc, want := crc32.ChecksumIEEE(entry), binary.BigEndian.Uint32(s.idx.crcs[4*i:]); crc != want {
			return fmt.Errorf("entry %s at %d: CRC-32 %08x, index says %08x", e.id, pos, crc, want)
		}
		s.entries = append(s.entries, e)
		s.hasDeltas = s.hasDeltas || e.isDelta()
		pos = next
	}
	if pos != end {
		return errors.New("pack has bytes after its last entry")
	}
	sum := sha1.Sum(data[:end])
	if !bytes.Equal(sum[:], data[end:]) || [20]byte(data[end:]) != s.idx.sum {
		return errors.New("pack checksum does not match its content or its index")
	}
	return nil
}

// isCandidateType reports whether objects of pack type typ may become
// deltas: trees and blobs. Commits stay whole: their tree and parent ids
// are 80 hex digits no base shares, and `git gc` of bench/history's
// vault made 1 of 227 commits a delta.
func isCandidateType(typ int) bool {
	return typ == typeTree || typ == typeBlob
}

// markDuplicates returns every entry of srcs and marks each object's
// entries but one as duplicates of it, preferring a whole entry.
func markDuplicates(srcs []*mergeSource) []*mergeEntry {
	n := 0
	for _, s := range srcs {
		n += len(s.entries)
	}
	all := make([]*mergeEntry, 0, n)
	for _, deltas := range []bool{false, true} {
		for _, s := range srcs {
			for _, e := range s.entries {
				if e.isDelta() == deltas {
					all = append(all, e)
				}
			}
		}
	}
	// The entries' positions sorted by object, then position: each run
	// of one object starts with its first entry. (A map from object to
	// entry cost 368 KB of fresh memory for a merge of 5,385 entries.)
	byID := sortByID(len(all), func(i int32) *engine.Hash { return &all[i].id })
	for k := 1; k < len(byID); k++ {
		if e, prev := all[byID[k].pos], all[byID[k-1].pos]; e.id == prev.id {
			e.dup = prev.canonical()
		}
	}
	return all
}

// oldBase returns the entry of its own pack that delta entry e is based
// on, or nil.
func (e *mergeEntry) oldBase() *mergeEntry {
	if e.typ == typeOfsDelta {
		return e.src.at(e.baseOff)
	}
	if off, ok := e.src.idx.find(e.baseID()); ok {
		return e.src.at(off)
	}
	return nil
}

// at returns the entry that starts at off in the source pack, nil if
// none does.
func (s *mergeSource) at(off int64) *mergeEntry {
	i, found := slices.BinarySearchFunc(s.entries, off, func(e *mergeEntry, off int64) int { return cmp.Compare(e.off, off) })
	if !found {
		return nil
	}
	return s.entries[i]
}

// sourceDepth computes e's chain length in its old pack and records it
// as the "below" of the whole entry the chain ends at. A broken or
// over-long chain counts as MaxDeltaChain: its root is never made a delta.
func sourceDepth(e *mergeEntry, steps int) int32 {
	if e.srcDep >= 0 {
		return e.srcDep
	}
	if !e.isDelta() {
		e.srcDep, e.root = 0, e
		return 0
	}
	b := e.oldBase()
	if b == nil || steps >= MaxDeltaChain {
		e.srcDep = MaxDeltaChain
		return e.srcDep
	}
	d := sourceDepth(b, steps+1)
	e.srcDep, e.root = min(d+1, MaxDeltaChain), b.root
	if e.root != nil {
		e.root.below = max(e.root.below, e.srcDep)
	}
	return e.srcDep
}

// nameHash hashes a tree entry's name for delta selection.
func nameHash(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32() | 1 // never 0, which means unknown
}

// loadCandidates returns the entries of all that may become deltas,
// inflated (read again from their packs), while mergeContentBytes lasts:
// whole trees and blobs of a size worth a delta, from a pack without
// deltas (a batch's), or, from a pack with deltas (a merge's, git's),
// only the bases of its chains: its other whole objects were tried
// against each other when it was written and found no base, so a merge
// that takes in a large pack inflates a few of its objects, not all.
func loadCandidates(all []*mergeEntry) ([]*mergeEntry, error) {
	budget := int64(mergeContentBytes)
	var cands []*mergeEntry
	for _, e := range all {
		if e.dup != nil || !isCandidateType(int(e.typ)) || e.size < mergeMinDeltaBytes || e.size > min(DeltaMaxObjectBytes, budget) {
			continue
		}
		if e.src.hasDeltas && e.below == 0 {
			continue
		}
		budget -= e.size
		e.mergeCand = &mergeCand{}
		cands = append(cands, e)
	}
	inflaters := make([]entryInflater, mergeWorkers())
	defer func() {
		for i := range inflaters {
			inflaters[i].close()
		}
	}()
	err := inParallel(len(cands), func(worker, i int) error {
		e := cands[i]
		content, err := inflaters[worker].inflate(e)
		if err != nil {
			return fmt.Errorf("entry %s: %w", e.id, err)
		}
		e.content = content
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cands, nil
}

// entryInflater inflates entries of the merged packs, each read from its
// mapped pack through one zlib reader reused for all. What it
// allocates is the object's size (at most DeltaMaxObjectBytes), never the
// entry's compressed span: a valid zlib stream may be padded with empty
// deflate blocks to any length up to the pack's.
type entryInflater struct {
	span bytes.Reader
	zr   io.ReadCloser
}

// inflate returns e's inflated content, exactly e.size bytes.
func (in *entryInflater) inflate(e *mergeEntry) ([]byte, error) {
	in.span.Reset(e.src.data[e.off+int64(e.dataOff) : e.end])
	var err error
	if in.zr == nil {
		in.zr, err = zlib.NewReader(&in.span)
	} else {
		err = in.zr.(zlib.Resetter).Reset(&in.span, nil)
	}
	if err != nil {
		return nil, err
	}
	return readExact(in.zr, e.size)
}

// close releases the zlib reader.
func (in *entryInflater) close() {
	if in.zr != nil {
		in.zr.Close()
	}
}

// selectDeltas picks a base for the candidates and returns them in write
// order, every base before its deltas.
func selectDeltas(cands []*mergeEntry) []*mergeEntry {
	byID := make(map[engine.Hash]*mergeEntry, len(cands))
	for _, e := range cands {
		byID[e.id] = e
	}
	for _, e := range cands {
		if e.typ != typeTree {
			continue
		}
		entries, err := decodeTree(e.id, e.content)
		if err != nil {
			continue // copied as it is; only a hint is lost
		}
		for _, te := range entries {
			if c := byID[te.ID]; c != nil && c.name == 0 {
				c.name = nameHash(te.Name)
			}
		}
	}
	// Within a name and size, newer packs first: the newest version of a
	// tree stays whole, so the next commit, which reads it, resolves no
	// chain (git orders by recency there too).
	slices.SortStableFunc(cands, func(a, b *mergeEntry) int {
		return cmp.Or(cmp.Compare(a.typ, b.typ), cmp.Compare(a.name, b.name), cmp.Compare(b.size, a.size), b.src.written.Compare(a.src.written))
	})
	var enc deltaEncoder
	for i, e := range cands {
		bestDelta(&enc, e, cands[max(0, i-DeltaWindow):i], false)
	}
	nearestSizeDeltas(&enc, cands)
	return baseFirst(cands)
}

// nearestSizeDeltas tries, for each candidate no tree of the merge names
// and that stayed whole and is no candidate's base (the base of a chain
// in a merged pack: the newest version the pack had of some file), the
// nearestSizeTries candidates of its type closest in size, whatever their
// name: the next versions of that file are among them.
func nearestSizeDeltas(enc *deltaEncoder, cands []*mergeEntry) {
	based := map[*mergeEntry]bool{}
	for _, e := range cands {
		if e.base != nil {
			based[e.base] = true
		}
	}
	bySize := slices.Clone(cands)
	slices.SortFunc(bySize, func(a, b *mergeEntry) int {
		return cmp.Or(cmp.Compare(a.typ, b.typ), cmp.Compare(a.size, b.size))
	})
	for i, e := range bySize {
		if e.name != 0 || e.base != nil || based[e] {
			continue
		}
		var window []*mergeEntry
		for lo, hi := i-1, i+1; len(window) < nearestSizeTries && (lo >= 0 || hi < len(bySize)); {
			// the closer of the two neighbours first
			if hi >= len(bySize) || lo >= 0 && e.size-bySize[lo].size <= bySize[hi].size-e.size {
				window = append(window, bySize[lo])
				lo--
			} else {
				window = append(window, bySize[hi])
				hi++
			}
		}
		window = slices.DeleteFunc(window, func(b *mergeEntry) bool { return b.typ != e.typ || dependsOn(b, e) })
		slices.Reverse(window) // bestDelta tries the end first
		bestDelta(enc, e, window, true)
		if e.base != nil {
			based[e.base] = true // its depth is final now
		}
	}
}

// nearestSizeTries is how many candidates close in size nearestSizeDeltas
// tries as the base of an unnamed one.
const nearestSizeTries = 4

// dependsOn reports whether b's chain of new bases reaches e.
func dependsOn(b, e *mergeEntry) bool {
	for ; b != nil; b = b.base {
		if b == e {
			return true
		}
	}
	return false
}

// baseFirst orders cands so that every base comes before its deltas.
func baseFirst(cands []*mergeEntry) []*mergeEntry {
	out := make([]*mergeEntry, 0, len(cands))
	placed := map[*mergeEntry]bool{}
	var place func(e *mergeEntry)
	place = func(e *mergeEntry) {
		if placed[e] {
			return
		}
		placed[e] = true
		if e.base != nil {
			place(e.base)
		}
		out = append(out, e)
	}
	for _, e := range cands {
		place(e)
	}
	return out
}

// bestDelta makes e a delta of the window's object that gives the
// smallest delta under half e's size, if any (enc makes them); a base must have e's name
// unless anyName. Two objects of one pack
// that holds deltas (a merge wrote it, or git) were tried against each
// other when it was written: they are not tried again, so a merge's cost
// follows its new objects, not the whole objects of the packs it takes
// in. A delta under 1/64 of the object (a version one line away) is
// taken at once.
func bestDelta(enc *deltaEncoder, e *mergeEntry, window []*mergeEntry, anyName bool) {
	limit := e.size/2 - 20
	good := e.size/64 + 32
	for j := len(window) - 1; j >= 0 && limit > good; j-- {
		b := window[j]
		if b.typ != e.typ || b.name != e.name && !anyName || b.depth+1+e.below > DeltaDepth || b.src == e.src && e.src.hasDeltas {
			continue
		}
		if diff := b.size - e.size; diff >= limit || -diff >= limit {
			continue
		}
		if d := enc.delta(b.content, e.content, limit); d != nil {
			e.base, e.delta, e.depth, limit = b, d, b.depth+1, int64(len(d))
		}
	}
}

// writeMerged writes the merge's entries (see the top of this file).
func (w *packWriter) writeMerged(all, cands []*mergeEntry) error {
	var zbuf bytes.Buffer
	var zw *zlib.Writer // made for the first delta that is compressed
	for _, e := range cands {
		if e.base == nil {
			if err := w.copyEntry(e, nil); err != nil {
				return err
			}
			continue
		}
		zbuf.Reset()
		if len(e.delta) < mergeStoredDeltaBytes {
			zbuf.Write(appendStoredZlib(zbuf.AvailableBuffer(), e.delta))
		} else {
			if zw == nil {
				zw, _ = zlib.NewWriterLevel(&zbuf, mergeZlibLevel) // level is valid
			} else {
				zw.Reset(&zbuf)
			}
			zw.Write(e.delta)
			if err := zw.Close(); err != nil {
				return err
			}
		}
		hdr := appendOfsOffset(packEntryHeader(typeOfsDelta, int64(len(e.delta))), w.pos-e.base.newOff)
		if err := w.putEntry(e, hdr, zbuf.Bytes()); err != nil {
			return err
		}
	}
	for _, e := range all {
		if !e.written && e.dup == nil && !e.isDelta() {
			if err := w.copyEntry(e, nil); err != nil {
				return err
			}
		}
	}
	// The old packs' deltas, a base before its deltas; a REF_DELTA may
	// name a base later in its pack, so repeat while that helps.
	pending := slices.DeleteFunc(slices.Clone(all), func(e *mergeEntry) bool { return e.written || e.dup != nil })
	for progress := true; len(pending) > 0 && progress; {
		progress = false
		rest := pending[:0]
		for _, e := range pending {
			b := e.oldBase()
			if b == nil || !b.canonical().written {
				rest = append(rest, e) // base missing or not yet written
				continue
			}
			c := b.canonical()
			if c.depth+1 > DeltaDepth {
				if err := w.writeWhole(e); err != nil {
					return err
				}
			} else {
				e.depth = c.depth + 1
				hdr := appendOfsOffset(packEntryHeader(typeOfsDelta, e.size), w.pos-c.newOff)
				if err := w.copyEntry(e, hdr); err != nil {
					return err
				}
			}
			progress = true
		}
		pending = rest
	}
	for _, e := range pending {
		if err := w.writeWhole(e); err != nil {
			return err
		}
	}
	return nil
}

// putEntry appends one entry made of parts for e's object.
func (w *packWriter) putEntry(e *mergeEntry, parts ...[]byte) error {
	e.newOff = w.pos
	w.crc.Reset()
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return fmt.Errorf("write pack: %w", err)
		}
	}
	e.written = true
	w.entries = append(w.entries, packEntry{id: e.id, offset: e.newOff, crc: w.crc.Sum32()})
	return nil
}

// copyEntry appends e's entry from its old pack: raw when hdr is nil,
// else hdr followed by the old entry's zlib data. Entries copied in their
// old order are written from the mapped pack (mergeSource.copyTo).
func (w *packWriter) copyEntry(e *mergeEntry, hdr []byte) error {
	from := e.off
	if hdr != nil {
		from += int64(e.dataOff)
	}
	e.newOff = w.pos
	w.crc.Reset()
	if _, err := w.Write(hdr); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	if err := e.src.copyTo(w, from, e.end); err != nil {
		return fmt.Errorf("copy entry %s: %w", e.id, err)
	}
	e.written = true
	w.entries = append(w.entries, packEntry{id: e.id, offset: e.newOff, crc: w.crc.Sum32()})
	return nil
}

// copyTo copies bytes from..to of the source pack to dst.
func (s *mergeSource) copyTo(dst io.Writer, from, to int64) error {
	_, err := dst.Write(s.data[from:to])
	return err
}

// writeWhole appends e's object whole, read through the vault (its old
// pack is still in place), for a delta the merge cannot keep as one.
func (w *packWriter) writeWhole(e *mergeEntry) error {
	typ, size, rc, err := w.v.openObject(e.id)
	if err != nil {
		return fmt.Errorf("read %s for the merge: %w", e.id, err)
	}
	defer rc.Close()
	e.newOff = w.pos
	e.depth = 0
	w.crc.Reset()
	if err := w.writeEntryHeader(typ, size); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	zw := w.zlibWriter()
	if n, err := io.Copy(zw, rc); err != nil || n != size {
		return fmt.Errorf("read %s for the merge: %d of %d bytes: %v", e.id, n, size, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	e.written = true
	w.entries = append(w.entries, packEntry{id: e.id, offset: e.newOff, crc: w.crc.Sum32()})
	return nil
}

// appendStoredZlib appends p to dst as a zlib stream of stored
// (uncompressed) deflate blocks (RFC 1950, RFC 1951 §3.2.4), which any
// zlib reader, git's among them, inflates.
func appendStoredZlib(dst, p []byte) []byte {
	sum := adler32.Checksum(p)
	dst = append(dst, 0x78, 0x01) // deflate, 32 KiB window, no dictionary; check bits
	for {
		n := min(len(p), 0xffff)
		final := byte(0)
		if n == len(p) {
			final = 1 // the last block
		}
		dst = append(dst, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		dst = append(dst, p[:n]...)
		if p = p[n:]; final == 1 {
			return binary.BigEndian.AppendUint32(dst, sum)
		}
	}
}

// mergeWorkers is how many goroutines a merge scans its packs and
// inflates its candidates with: a commit waits for its merge, and the
// other cores are idle meanwhile (bench/history's merge of the whole
// vault scans 16 packs, 2,793 of their 5,379 entries in one, and
// inflates 712 KB).
func mergeWorkers() int { return max(1, min(runtime.GOMAXPROCS(0), 4)) }

// inParallel calls work(worker, i) for every i in 0..n-1 on up to
// mergeWorkers goroutines (worker tells them apart) and returns the
// error of the lowest i that failed. A fault reading a mapped pack in a
// worker is that call's error, as it is mergePacks' on its own goroutine
// (SetPanicOnFault is per goroutine).
func inParallel(n int, work func(worker, i int) error) error {
	workers := min(n, mergeWorkers())
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			i := -1
			defer func() {
				if r := recover(); r != nil {
					if _, fault := r.(interface{ Addr() uintptr }); fault && i >= 0 {
						errs[i] = fmt.Errorf("a merged pack changed under the merge: %v", r)
						return
					}
					panic(r)
				}
			}()
			for {
				if i = int(next.Add(1) - 1); i >= n {
					return
				}
				if errs[i] = work(w, i); errs[i] != nil {
					next.Store(int64(n)) // the others stop after their current call
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
