package gitbackend

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Pack consolidation. Every batch adds one pack, so a vault in daily use
// would gather thousands; opening it reads every index and a lookup that
// misses searches them all. When a batch's pack makes objects/pack hold
// more than AutoPackLimit packs, the batch merges the smallest packs under
// ConsolidateMaxBytes into one new pack, chosen geometrically like
// `git repack --geometric=2` (mergeable), so the vault's large packs are
// left alone:
//
//   - every old pack is read once and checked (each entry against its
//     index's CRC-32, the pack against its SHA-1 trailer), so a corrupt
//     pack is never spread (the consolidation stops and leaves
//     everything); similar objects become deltas of each other and the
//     old packs' deltas are kept (packmerge.go);
//   - an object in several packs is written once;
//   - the new pack and its index are written, fsynced and renamed into
//     place like a batch's (packWriter.finish), then the directory is
//     fsynced, and only then are the merged packs retired, index first:
//     renamed into the vault's trash, which later batches empty a few
//     files at a time (trash.go), so the commit that merges does not pay
//     for freeing their blocks;
//   - this process's pack list drops the merged packs and holds the new
//     one without listing the directory again.
//
// So no object is ever lost: a pack leaves objects/pack only after every
// object in it is in a durable pack that was renamed into place. A crash
// leaves the old packs, the new one or both (a duplicate is harmless; the
// next consolidation merges it away), at worst an old .pack without its
// .idx, which no reader uses, and files in the trash, which nothing
// reads. Readers that loaded an old index find a vanished pack's objects
// after a rescan (openObject, objectExists), and a writer that skipped an
// object because an old pack held it made no mistake: the object is in
// the new pack.
//
// That argument holds whoever retires what: a consolidation only retires
// packs it copied itself. The lock file only keeps two consolidations from
// doing the same work; correctness does not depend on it, which is why a
// stale lock may simply be removed.
//
// Left alone: packs of ConsolidateMaxBytes or more, packs git keeps extra
// files for (.keep, .promisor, .mtimes, .bitmap, .rev), and every pack
// while a multi-pack-index exists.

// consolidateLockName is the lock file in objects/pack, created O_EXCL.
const consolidateLockName = "tv-consolidate.lock"

// packOnDisk is a complete pack in objects/pack.
type packOnDisk struct {
	name  string // "pack-<hex>"
	size  int64  // objects in it (idxObjects): what geometric merging weighs
	bytes int64  // of the .pack
	extra bool   // git keeps another file for it (.keep, .bitmap, …)
}

// idxObjects estimates how many objects a pack's index of idxBytes
// lists: 28 bytes an object after the fixed 1,072 (packs over 2 GiB add
// 8 bytes per large offset, which only makes them weigh more). Like
// `git repack --geometric`, geometric merging weighs object counts, not
// bytes: a batch's pack of whole objects is large for its few objects
// next to a merged pack of deltas, and weighing bytes would merge the
// large pack again and again.
func idxObjects(idxBytes int64) int64 { return max(0, idxBytes-(8+256*4+40)) / 28 }

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
		ii, err := os.Stat(filepath.Join(dir, name+".idx"))
		if err != nil {
			continue // removed since the listing
		}
		p := packOnDisk{name: name, size: idxObjects(ii.Size()), bytes: fi.Size()}
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
// the vault; and at least as many of the smallest as bring the count back
// to v.packLimit (usually two: a batch adds one pack). A batch's pack not
// installed yet (batch, may be nil) counts as one more pack, named
// batchPackName.
func (v *Vault) mergeable(dir string, batch *pendingPack) ([]string, error) {
	packs, midx, err := listPacks(dir)
	if batch != nil {
		packs = append(packs, packOnDisk{name: batchPackName, size: int64(batch.objects), bytes: batch.size})
	}
	if err != nil || midx || len(packs) <= v.packLimit {
		return nil, err
	}
	var cands []packOnDisk
	for _, p := range packs {
		if p.bytes < v.packMaxBytes && !p.extra {
			cands = append(cands, p)
		}
	}
	slices.SortFunc(cands, func(a, b packOnDisk) int { return cmp.Or(cmp.Compare(a.size, b.size), cmp.Compare(a.name, b.name)) })
	// At least enough of the smallest to bring the count to the limit
	// (merging k packs into one takes k-1 away): merging only two of a
	// vault that crashes or concurrent writers left two or more packs
	// over it would add a batch's pack and take one away forever, and
	// the count would never come down.
	split := max(geometricSplit(cands), min(len(packs)-v.packLimit+1, len(cands)))
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

// batchPackName stands for a batch's pending pack among the names of
// packs to merge.
const batchPackName = ""

// consolidate merges the small packs into one when the vault holds more
// than v.packLimit packs (see the top of this file). When batch is not nil
// it is a batch's complete pack not installed yet: if the merge picks it,
// its objects go into the merged pack, which saves writing, fsyncing and
// installing it on its own (folded reports that; the caller then only
// removes its temporary file); if not, nothing is done and the caller
// installs it and calls consolidate(nil). It returns how many packs were
// merged; 0 with a nil error when there was nothing to do or another
// consolidation holds the lock. Callers treat it as best effort.
func (v *Vault) consolidate(batch *pendingPack) (n int, folded bool, err error) {
	if v.mem != nil {
		return 0, false, nil
	}
	// The pack set loaded in memory is recent (NewObjectWriter refreshes
	// it): a batch below the limit costs no syscall here.
	loaded := v.loadedPacks()
	if batch != nil {
		loaded++
	}
	if loaded <= v.packLimit {
		return 0, false, nil
	}
	dir := v.packDir()
	if names, err := v.mergeable(dir, batch); err != nil || !worthMerging(names, batch) {
		return 0, false, err
	}
	unlock, ok := lockConsolidation(dir, v.lockStale)
	if !ok {
		return 0, false, nil
	}
	defer unlock()
	// List again under the lock: another process may just have merged.
	names, err := v.mergeable(dir, batch)
	if err != nil || !worthMerging(names, batch) {
		return 0, false, err
	}
	name, err := v.mergePacks(dir, names, batch)
	if err != nil {
		return 0, false, err
	}
	// The new pack is durable and in place: the merged ones can go, into
	// the trash (trash.go). A pack that came out byte for byte like the
	// new one has its name: it stays.
	var gone []string
	for _, m := range names {
		if m != name && m != batchPackName {
			gone = append(gone, m)
		}
	}
	v.retirePacks(dir, gone)
	// This process's lookups: the new pack was added by its install;
	// the merged ones go without listing the directory again.
	v.dropPacks(gone)
	return len(names), batch != nil, nil
}

// loadedPacks is how many packs this process has loaded.
func (v *Vault) loadedPacks() int {
	v.packs.mu.RLock()
	defer v.packs.mu.RUnlock()
	return len(v.packs.packs)
}

// worthMerging reports whether a consolidation merges names: some, and
// the batch's pack among them when there is one.
func worthMerging(names []string, batch *pendingPack) bool {
	return len(names) > 0 && (batch == nil || slices.Contains(names, batchPackName))
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
