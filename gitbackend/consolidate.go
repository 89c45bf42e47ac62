package gitbackend

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/thalix/tv/engine"
)

// Pack consolidation. Every batch adds one pack, so a vault in daily use
// would gather thousands; opening it reads every index and a lookup that
// misses searches them all. When a batch's pack makes objects/pack hold
// more than AutoPackLimit packs, the batch merges the smallest packs under
// ConsolidateMaxBytes into one new pack, chosen geometrically like
// `git repack --geometric=2` (mergeable), so the vault's large packs are
// left alone:
//
//   - entries are copied raw (header and zlib stream, no inflating), in the
//     order of their offsets; each is checked against its old index's
//     CRC-32 and each old pack against its SHA-1 trailer, so a corrupt pack
//     is never spread (the consolidation stops and leaves everything);
//   - an object in several packs is written once;
//   - the new pack and its index are written, fsynced and renamed into
//     place like a batch's (packWriter.finish), then the directory is
//     fsynced, and only then are the merged packs deleted, index first.
//
// So no object is ever lost: a pack is deleted only after every object in
// it is in a durable pack that was renamed into place. A crash leaves the
// old packs, the new one or both (a duplicate is harmless; the next
// consolidation merges it away), and at worst an old .pack without its
// .idx, which no reader uses. Readers that loaded an old index find a
// vanished pack's objects after a rescan (openObject, objectExists), and a
// writer that skipped an object because an old pack held it made no
// mistake: the object is in the new pack.
//
// That argument holds whoever deletes what: a consolidation only deletes
// packs it copied itself. The lock file only keeps two consolidations from
// doing the same work; correctness does not depend on it, which is why a
// stale lock may simply be removed.
//
// Left alone: packs of ConsolidateMaxBytes or more, packs git keeps extra
// files for (.keep, .promisor, .mtimes, .bitmap, .rev), packs with delta
// entries (an OFS_DELTA's offset would break when copied; git's own
// packs), and every pack while a multi-pack-index exists.

// consolidateLockName is the lock file in objects/pack, created O_EXCL.
const consolidateLockName = "tv-consolidate.lock"

// packOnDisk is a complete pack in objects/pack.
type packOnDisk struct {
	name  string // "pack-<hex>"
	size  int64  // of the .pack
	extra bool   // git keeps another file for it (.keep, .bitmap, …)
}

// listPacks returns the complete packs of dir (.pack and .idx present)
// and whether a multi-pack-index is there.
func listPacks(dir string) ([]packOnDisk, bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	files := map[string]bool{}
	midx := false
	for _, e := range entries {
		files[e.Name()] = true
		if strings.HasPrefix(e.Name(), "multi-pack-index") {
			midx = true
		}
	}
	var packs []packOnDisk
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, "pack-") || !strings.HasSuffix(n, ".pack") {
			continue
		}
		name := strings.TrimSuffix(n, ".pack")
		if !files[name+".idx"] {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed since the listing
		}
		p := packOnDisk{name: name, size: fi.Size()}
		for _, ext := range []string{".keep", ".promisor", ".mtimes", ".bitmap", ".rev"} {
			p.extra = p.extra || files[name+ext]
		}
		packs = append(packs, p)
	}
	return packs, midx, nil
}

// mergeable returns the packs a consolidation merges, in name order, or
// nil when there is nothing to do: the directory holds at most
// v.packLimit packs, or fewer than two of them may be merged. Of the packs
// that may be merged, it picks the smallest ones the way
// `git repack --geometric=2` does (geometricSplit), so the large packs of
// a vault's history are not copied again by every consolidation: a
// consolidation's cost follows the packs written since the last ones, not
// the vault.
func (v *Vault) mergeable(dir string) ([]string, error) {
	packs, midx, err := listPacks(dir)
	if err != nil || midx || len(packs) <= v.packLimit {
		return nil, err
	}
	var cands []packOnDisk
	v.packs.mu.RLock()
	for _, p := range packs {
		if p.size < v.packMaxBytes && !p.extra && !v.packs.noMerge[p.name] {
			cands = append(cands, p)
		}
	}
	v.packs.mu.RUnlock()
	slices.SortFunc(cands, func(a, b packOnDisk) int { return cmp.Or(cmp.Compare(a.size, b.size), cmp.Compare(a.name, b.name)) })
	split := geometricSplit(cands)
	if split < 2 {
		// Already a progression, yet too many packs: merge the two
		// smallest (the count must not grow by one per batch forever).
		split = min(2, len(cands))
	}
	if split < 2 {
		return nil, nil
	}
	names := make([]string, split)
	for i := range split {
		names[i] = cands[i].name
	}
	slices.Sort(names)
	return names, nil
}

// geometricFactor is the ratio between consecutive pack sizes that
// consolidation keeps (git repack --geometric=2).
const geometricFactor = 2

// geometricSplit returns how many of packs (sorted by size, smallest
// first) to merge so that the merged pack and the rest form a geometric
// progression of geometricFactor, as git's repack computes it: the
// largest packs that already form a progression stay; the smaller ones
// are merged, together with any pack of the progression under
// geometricFactor times their total.
func geometricSplit(packs []packOnDisk) int {
	if len(packs) < 2 {
		return 0
	}
	i := len(packs) - 1
	for ; i > 0; i-- {
		if packs[i].size < geometricFactor*packs[i-1].size {
			break
		}
	}
	split := i
	if split > 0 {
		split++ // packs[i] is the larger of a pair out of progression
	}
	var total int64
	for _, p := range packs[:split] {
		total += p.size
	}
	for ; split < len(packs) && packs[split].size < geometricFactor*total; split++ {
		total += packs[split].size
	}
	return split
}

// consolidate merges the small packs into one when the vault holds more
// than v.packLimit packs (see the top of this file). It returns how many
// packs were merged; 0 with a nil error when there was nothing to do or
// another consolidation holds the lock. Callers treat it as best effort.
func (v *Vault) consolidate() (int, error) {
	if v.mem != nil {
		return 0, nil
	}
	// The pack set loaded in memory is recent (NewObjectWriter refreshes
	// it): a batch below the limit costs no syscall here.
	v.packs.mu.RLock()
	loaded := len(v.packs.packs)
	v.packs.mu.RUnlock()
	if loaded <= v.packLimit {
		return 0, nil
	}
	dir := filepath.Join(v.path, "objects", "pack")
	if names, err := v.mergeable(dir); err != nil || names == nil {
		return 0, err
	}
	unlock, ok := lockConsolidation(dir, v.lockStale)
	if !ok {
		return 0, nil
	}
	defer unlock()
	// List again under the lock: another process may just have merged.
	names, err := v.mergeable(dir)
	if err != nil || names == nil {
		return 0, err
	}
	name, merged, err := v.mergePacks(dir, names)
	if err != nil || len(merged) == 0 {
		return 0, err
	}
	// The new pack is durable and in place: the merged ones can go. A pack
	// that came out byte for byte like the new one has its name: it stays.
	for _, m := range merged {
		if m == name {
			continue
		}
		os.Remove(filepath.Join(dir, m+".idx")) // first: no reader loads it any more
		os.Remove(filepath.Join(dir, m+".pack"))
	}
	// No fsync of the directory: a deletion a crash undoes only leaves a
	// duplicate pack, which the next consolidation merges away.
	// Drop the deleted packs from this process's lookups.
	if _, err := v.refreshPacks(); err != nil {
		return len(merged), err
	}
	return len(merged), nil
}

// lockConsolidation takes the consolidation lock in dir. It reports false
// when another consolidation holds it. A lock older than stale is the
// leftover of a killed process (a consolidation takes seconds): it is
// removed and taken once more.
func lockConsolidation(dir string, stale time.Duration) (unlock func(), ok bool) {
	path := filepath.Join(dir, consolidateLockName)
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid()) // for whoever finds it
			f.Close()
			return func() { os.Remove(path) }, true
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, false
		}
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // released meanwhile
		case err != nil, time.Since(fi.ModTime()) < stale:
			return nil, false
		}
		// Stale. Two processes may both remove it and both go on; that
		// only duplicates work (see the top of this file).
		os.Remove(path)
	}
	return nil, false
}

// mergePacks copies the entries of the packs names into one new pack and
// installs it. It returns the new pack's name and the packs whose every
// object is in it; a pack with delta entries is skipped. On error nothing
// was installed.
func (v *Vault) mergePacks(dir string, names []string) (string, []string, error) {
	w := &packWriter{v: v, seen: map[engine.Hash]bool{}}
	defer w.removeTemp() // nothing once finish renamed it
	if err := w.start(); err != nil {
		return "", nil, fmt.Errorf("consolidate: %w", err)
	}
	var merged []string
	br := bufio.NewReaderSize(nil, packBufferBytes)
	for _, name := range names {
		ok, err := w.copyPack(dir, name, br)
		if err != nil {
			return "", nil, fmt.Errorf("consolidate %s: %w", name, err)
		}
		if ok {
			merged = append(merged, name)
		} else {
			v.packs.mu.Lock()
			if v.packs.noMerge == nil {
				v.packs.noMerge = map[string]bool{}
			}
			v.packs.noMerge[name] = true
			v.packs.mu.Unlock()
		}
	}
	if len(merged) < 2 {
		return "", nil, nil // nothing worth a new pack
	}
	name, err := w.finish()
	if err != nil {
		return "", nil, fmt.Errorf("consolidate: %w", err)
	}
	return name, merged, nil
}

// copyPack appends the entries of pack name to the pack being written,
// skipping objects it already has. It reads the old pack once from start
// to end, checking every entry's CRC-32 against the old index and the
// whole pack against its trailer; any mismatch is an error. It reports
// false, with the new pack as it was before, for a pack with delta
// entries. br is a reusable read buffer.
func (w *packWriter) copyPack(dir, name string, br *bufio.Reader) (bool, error) {
	idx, err := loadPackIndex(filepath.Join(dir, name+".idx"), name)
	if err != nil {
		return false, err
	}
	f, err := os.Open(filepath.Join(dir, name+".pack"))
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	n := len(idx.names) / 20
	order := make([]int, n) // index positions in pack order
	offs := make([]int64, n)
	for i := range n {
		order[i] = i
		o := binary.BigEndian.Uint32(idx.off32[4*i:])
		if o&0x80000000 == 0 {
			offs[i] = int64(o)
		} else {
			offs[i] = int64(binary.BigEndian.Uint64(idx.off64[8*int(o&0x7fffffff):]))
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(offs[a], offs[b]) })

	sum := sha1.New() // of everything before the trailer
	br.Reset(f)
	defer br.Reset(nil)
	var hdr [12]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return false, fmt.Errorf("read pack header: %w", err)
	}
	sum.Write(hdr[:])
	if !bytes.Equal(hdr[:4], []byte("PACK")) || binary.BigEndian.Uint32(hdr[4:]) != 2 && binary.BigEndian.Uint32(hdr[4:]) != 3 {
		return false, errors.New("not a version 2 pack")
	}
	if int(binary.BigEndian.Uint32(hdr[8:])) != n {
		return false, fmt.Errorf("pack holds %d objects, its index %d", binary.BigEndian.Uint32(hdr[8:]), n)
	}
	end := fi.Size() - 20
	from := w.pos // where this pack's entries start in the new one
	var added []packEntry
	mine := map[engine.Hash]bool{} // the objects added from this pack
	bufp := writerBufs.Get().(*[]byte)
	defer writerBufs.Put(bufp)
	buf := *bufp
	pos := int64(len(hdr))
	for k, i := range order {
		next := end
		if k+1 < n {
			next = offs[order[k+1]]
		}
		if offs[i] != pos || next <= pos || next > end {
			return false, fmt.Errorf("entry at %d does not follow the previous one (at %d) inside the pack", offs[i], pos)
		}
		first, err := br.Peek(1)
		if err != nil {
			return false, fmt.Errorf("read entry at %d: %w", pos, err)
		}
		switch first[0] >> 4 & 7 {
		case typeCommit, typeTree, typeBlob, 4: // 4: a tag
		case 6, 7: // OFS_DELTA, REF_DELTA: not copyable, leave the pack
			if err := w.truncate(from); err != nil {
				return false, err
			}
			return false, nil
		default:
			return false, fmt.Errorf("entry at %d has an invalid type", pos)
		}
		var id engine.Hash
		copy(id[:], idx.names[20*i:])
		keep := !w.seen[id] && !mine[id]
		start := w.pos
		crc := uint32(0)
		for left := next - pos; left > 0; {
			chunk := buf[:min(int64(len(buf)), left)]
			if _, err := io.ReadFull(br, chunk); err != nil {
				return false, fmt.Errorf("read entry at %d: %w", pos, err)
			}
			crc = crc32.Update(crc, crc32.IEEETable, chunk)
			sum.Write(chunk)
			if keep {
				if _, err := w.Write(chunk); err != nil {
					return false, fmt.Errorf("write pack: %w", err)
				}
			}
			left -= int64(len(chunk))
		}
		if want := binary.BigEndian.Uint32(idx.crcs[4*i:]); crc != want {
			return false, fmt.Errorf("entry %s at %d: CRC-32 %08x, index says %08x", id, pos, crc, want)
		}
		if keep {
			mine[id] = true
			added = append(added, packEntry{id: id, offset: start, crc: crc})
		}
		pos = next
	}
	if pos != end {
		return false, errors.New("pack has bytes after its last entry")
	}
	var trailer [20]byte
	if _, err := io.ReadFull(br, trailer[:]); err != nil {
		return false, fmt.Errorf("read pack trailer: %w", err)
	}
	if !bytes.Equal(sum.Sum(nil), trailer[:]) || trailer != idx.sum {
		return false, errors.New("pack checksum does not match its content or its index")
	}
	for id := range mine {
		w.seen[id] = true
	}
	w.entries = append(w.entries, added...)
	return true, nil
}
