package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/lebin"

	"github.com/thalix/tv/icm"
)

// ICMCacheName is the checkout's cache of ICM results: the findings of the
// tree it last validated, under a digest of that tree's listing and
// Markdown content ids, and the MarkdownFacts of its Markdown files by
// content id. Like the stat cache it is an accelerator: missing, damaged
// or made by other rules (icm.RulesVersion), it is ignored and rebuilt.
const ICMCacheName = ".thalix-workspace.icm"

// icmCacheMagic opens the ICM cache file; a CRC-32 (IEEE) of everything
// before it closes the file. (Version 1 used CRC-32C, whose tables cost
// every command ~0.15 ms to build.)
const icmCacheMagic = "TVIC2\n"

// factRecordBytes is one fixed-width record of the facts table: content
// id (20), line count (4), flags (4: bit 0 truncated), offset of its
// placeholders in the placeholder section (4, noPlaceholders for none).
const factRecordBytes = 32

const noPlaceholders = ^uint32(0)

// icmCache is a decoded ICM cache file. The facts table stays in the
// file's bytes, sorted by content id, and is searched in place: no
// per-file allocation however large the tree.
type icmCache struct {
	digest   [32]byte
	findings []icm.Finding
	records  []byte // the facts table, factRecordBytes each
	places   []byte // the placeholder section
	// fanout[b] is the first record whose id starts with a byte of at
	// least b, as in a git pack index: a lookup searches the ~1/256 of
	// the table its first byte selects (built on the first lookup).
	fanout *[257]int32
}

// validateCheckout returns the ICM findings of listing, the scanned
// checkout dir (or the part of its scan a commit stores, storedListing).
// A tree whose listing and Markdown contents are those the cache last
// validated (same digest, same rules) gets its remembered findings
// without a file being opened; otherwise the validator reads the
// contracts and only the Markdown files whose facts the cache does not
// hold for their content, and the cache is written afresh (an
// accelerator: a failure to write costs speed only).
func validateCheckout(dir string, disk *snapshot, listing []icm.Entry) ([]icm.Finding, error) {
	known := icm.KnownTools()
	digest := treeDigest(disk, listing, known)
	old := loadICMCache(dir, digest)
	if old != nil && old.digest == digest {
		return old.findings, nil
	}
	fc := &factCache{disk: disk, listing: listing, old: old}
	findings, err := icm.ValidateEntriesCached(disk.FS(), listing, known, fc)
	if err != nil {
		return nil, err
	}
	if !fc.recheck() {
		digest, findings = [32]byte{}, nil // not remembered: some file changed meanwhile
	}
	recs, ph := fc.all()
	_ = writeICMCache(dir, digest, findings, recs, ph)
	return findings, nil
}

// digestChunkBytes is how much of treeDigest's input is hashed at a time:
// one page of fresh memory. A 64 KiB buffer, filled at 1,000 files, was
// 16 page faults of every walk-test, check and commit (~20 µs each on a
// PVM guest, where every fresh page traps to the hypervisor).
const digestChunkBytes = 4 << 10

// treeDigest is a SHA-256 of what the ICM findings of a scanned tree
// depend on: the rules' version, the tool names a policy may use, every
// entry's path and type, and every Markdown file's content id.
func treeDigest(disk *snapshot, listing []icm.Entry, known []string) [32]byte {
	h := sha256.New()
	buf := make([]byte, 0, digestChunkBytes)
	flush := func() {
		h.Write(buf)
		buf = buf[:0]
	}
	buf = append(buf, "tv icm tree\x00"...)
	buf = binary.LittleEndian.AppendUint32(buf, icm.RulesVersion)
	for _, k := range known {
		buf = append(append(buf, k...), 0)
	}
	buf = append(buf, 0)
	k := 0
	for _, e := range listing {
		if len(buf)+len(e.Path)+1+4+len(Hash{}) > cap(buf) {
			flush()
		}
		buf = append(append(buf, e.Path...), 0)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(e.Type))
		if e.Type.IsRegular() {
			if f := disk.files[k]; isMarkdownPath(e.Path) {
				id := f.id()
				buf = append(buf, id[:]...)
			}
			k++
		}
	}
	flush()
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// isMarkdownPath reports whether p ends in ".md" in any case: the files
// the validator reads.
func isMarkdownPath(p string) bool {
	n := len(p)
	return n >= 3 && p[n-3] == '.' && p[n-2]|0x20 == 'm' && p[n-1]|0x20 == 'd'
}

// factCache is the icm.FactCache of one validation: facts come from the
// previous cache by the content id the scan found (hashed, or vouched for
// by the stat cache), and what the validator reads is remembered only
// when it is verifiably that content.
type factCache struct {
	disk *snapshot
	// listing is the listing validated: the scan's, or a part of it
	// holding every regular file in the same order (storedListing).
	listing []icm.Entry
	old     *icmCache
	fileAt  []int32 // listing index → index in disk.files, -1 for non-files
	// oldAt remembers, by index in disk.files, the old table's record
	// Facts found for the file (+1; 0: not looked up), so all need not
	// look the file up again.
	oldAt []int32
	// learned holds what this validation read, by content id: an index
	// into facts (pointer-free records, little for the collector to scan
	// on a first validation of 100k files) and, for the few files that
	// hold any, placeholders by that index.
	learned      map[Hash]int32
	facts        []factRecord
	placeholders map[int32][]icm.Placeholder
	// unsure are files read over MaxMarkdownBytes (their id cannot be
	// checked against a part): kept if their stamp holds after the read.
	unsure []learnedFile
	// mismatch says some file read was not the content the scan saw: the
	// tree's findings are not remembered.
	mismatch bool
}

type learnedFile struct {
	f     *diskFile
	facts icm.MarkdownFacts
}

func (c *factCache) file(i int) *diskFile {
	if c.fileAt == nil {
		c.fileAt = make([]int32, len(c.listing))
		k := int32(0)
		for j, e := range c.listing {
			c.fileAt[j] = -1
			if e.Type.IsRegular() {
				c.fileAt[j] = k
				k++
			}
		}
	}
	if i < 0 || i >= len(c.fileAt) || c.fileAt[i] < 0 {
		return nil
	}
	return c.disk.files[c.fileAt[i]]
}

// Facts implements icm.FactCache.
func (c *factCache) Facts(i int, p string) (icm.MarkdownFacts, bool) {
	f := c.file(i)
	if f == nil || f.path != p {
		return icm.MarkdownFacts{}, false
	}
	if k, ok := c.learned[f.id()]; ok {
		return c.factsAt(k), true
	}
	j := c.old.index(f.id())
	if j < 0 {
		return icm.MarkdownFacts{}, false
	}
	if c.oldAt == nil {
		c.oldAt = make([]int32, len(c.disk.files))
	}
	c.oldAt[c.fileAt[i]] = int32(j) + 1
	return c.old.facts(j)
}

// factRecord is one content id's facts but its placeholders.
type factRecord struct {
	id        Hash
	lines     uint32
	truncated bool
}

func (c *factCache) factsAt(k int32) icm.MarkdownFacts {
	r := &c.facts[k]
	return icm.MarkdownFacts{Lines: int(r.lines), Truncated: r.truncated, Placeholders: c.placeholders[k]}
}

// learn remembers facts for content id.
func (c *factCache) learn(id Hash, facts icm.MarkdownFacts) {
	if c.learned == nil {
		c.learned = map[Hash]int32{}
	}
	k := int32(len(c.facts))
	c.facts = append(c.facts, factRecord{id: id, lines: uint32(facts.Lines), truncated: facts.Truncated})
	if len(facts.Placeholders) > 0 {
		if c.placeholders == nil {
			c.placeholders = map[int32][]icm.Placeholder{}
		}
		c.placeholders[k] = facts.Placeholders
	}
	c.learned[id] = k
}

// Learned implements icm.FactCache.
func (c *factCache) Learned(i int, p string, data []byte, facts icm.MarkdownFacts) {
	f := c.file(i)
	if f == nil || f.path != p {
		c.mismatch = true
		return
	}
	if facts.Truncated {
		c.unsure = append(c.unsure, learnedFile{f, facts})
		return
	}
	h := blobHasher(int64(len(data)))
	h.Write(data)
	var id Hash
	h.Sum(id[:0])
	if id != f.id() {
		c.mismatch = true // changed since it was hashed: the next scan sees it
		return
	}
	c.learn(id, facts)
}

// recheck keeps the facts of files read only in part when their stamp
// still is the one the scan saw, and reports whether everything the
// validator read was the content the scan saw.
func (c *factCache) recheck() bool {
	for _, u := range c.unsure {
		fi, err := os.Lstat(filepath.Join(c.disk.dir.root.Name(), filepath.FromSlash(u.f.path)))
		if err != nil || fastio.StampOf(fi) != u.f.stamp() {
			c.mismatch = true
			continue
		}
		c.learn(u.f.id(), u.facts)
	}
	return !c.mismatch
}

// all returns the known facts of every Markdown file of the tree, sorted
// by content id, one per id (the facts of files gone from the tree are
// forgotten): pointer-free records, and the placeholders of the few that
// hold any by record index. The old table is sorted by content id
// already: the records still in use are taken in its order and merged
// with the few learned now, sorted on their own (sorting the whole table
// again was a tenth of a 10k-file commit's time).
func (c *factCache) all() ([]factRecord, map[int][]icm.Placeholder) {
	var used []bool
	if c.old != nil {
		used = make([]bool, len(c.old.records)/factRecordBytes)
	}
	var fresh []factRecord
	ph := map[Hash][]icm.Placeholder{}
	k := 0
	for _, e := range c.listing {
		if !e.Type.IsRegular() {
			continue
		}
		f, at := c.disk.files[k], k
		k++
		if !isMarkdownPath(e.Path) {
			continue
		}
		id := f.id()
		if j, ok := c.learned[id]; ok {
			fresh = append(fresh, c.facts[j])
			if p := c.placeholders[j]; len(p) > 0 {
				ph[id] = p
			}
		} else if c.oldAt != nil && c.oldAt[at] > 0 {
			used[c.oldAt[at]-1] = true
		} else if i := c.old.index(id); i >= 0 {
			used[i] = true
		}
	}
	fresh, byFresh := factTable(fresh, ph)
	n := len(fresh)
	for _, u := range used {
		if u {
			n++
		}
	}
	out := make([]factRecord, 0, n)
	byIndex := map[int][]icm.Placeholder{}
	add := func(r factRecord, p []icm.Placeholder) {
		if len(p) > 0 {
			byIndex[len(out)] = p
		}
		out = append(out, r)
	}
	j := 0
	for i, u := range used {
		if !u {
			continue
		}
		r, p, ok := c.old.record(i)
		if !ok {
			continue // placeholders unreadable: forgotten, as lookup does
		}
		for ; j < len(fresh) && bytes.Compare(fresh[j].id[:], r.id[:]) < 0; j++ {
			add(fresh[j], byFresh[j])
		}
		if j < len(fresh) && fresh[j].id == r.id {
			continue // learned again now: the new facts win
		}
		add(r, p)
	}
	for ; j < len(fresh); j++ {
		add(fresh[j], byFresh[j])
	}
	return out, byIndex
}

// factTable sorts facts by content id, one record per id, and indexes
// the placeholders (by content id in ph) by record: the facts section of
// the ICM cache file.
func factTable(facts []factRecord, ph map[Hash][]icm.Placeholder) ([]factRecord, map[int][]icm.Placeholder) {
	slices.SortFunc(facts, func(a, b factRecord) int { return bytes.Compare(a.id[:], b.id[:]) })
	facts = slices.CompactFunc(facts, func(a, b factRecord) bool { return a.id == b.id })
	byIndex := map[int][]icm.Placeholder{}
	for i := range facts {
		if p, ok := ph[facts[i].id]; ok {
			byIndex[i] = p
		}
	}
	return facts, byIndex
}

// facts returns the facts of record i.
func (c *icmCache) facts(i int) (icm.MarkdownFacts, bool) {
	r, ph, ok := c.record(i)
	if !ok {
		return icm.MarkdownFacts{}, false
	}
	return icm.MarkdownFacts{Lines: int(r.lines), Truncated: r.truncated, Placeholders: ph}, true
}

// index returns the index of content id's record, or -1 (also for a nil
// cache). Ids are compared as two big-endian words and a half, not with
// bytes.Compare: a commit of a 10,000-file tree looks up every Markdown
// file's facts, twice, and the generic comparison through sort.Search's
// closure was a quarter of its validation.
func (c *icmCache) index(id Hash) int {
	if c == nil {
		return -1
	}
	if c.fanout == nil {
		c.fanout = new([257]int32)
		n := len(c.records) / factRecordBytes
		b := 0
		for i := range n {
			for first := int(c.records[i*factRecordBytes]); b <= first; b++ {
				c.fanout[b] = int32(i)
			}
		}
		for ; b <= 256; b++ {
			c.fanout[b] = int32(n)
		}
	}
	want := idKey(id[:])
	lo, hi := int(c.fanout[id[0]]), int(c.fanout[int(id[0])+1])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch got := idKey(c.records[m*factRecordBytes:]); {
		case got == want:
			return m
		case got.less(want):
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

// idWords is a content id as comparable words, big-endian: their order
// is the ids' byte order.
type idWords struct {
	hi, mid uint64
	lo      uint32
}

// idKey returns the content id in the first 20 bytes of b as idWords.
func idKey(b []byte) idWords {
	_ = b[19]
	return idWords{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:]), binary.BigEndian.Uint32(b[16:])}
}

func (a idWords) less(b idWords) bool {
	if a.hi != b.hi {
		return a.hi < b.hi
	}
	if a.mid != b.mid {
		return a.mid < b.mid
	}
	return a.lo < b.lo
}

// record decodes record i and its placeholders; false when they cannot be
// read.
func (c *icmCache) record(i int) (factRecord, []icm.Placeholder, bool) {
	b := c.records[i*factRecordBytes : (i+1)*factRecordBytes]
	r := factRecord{lines: binary.LittleEndian.Uint32(b[20:]), truncated: binary.LittleEndian.Uint32(b[24:])&1 != 0}
	copy(r.id[:], b[:20])
	off := binary.LittleEndian.Uint32(b[28:])
	if off == noPlaceholders {
		return r, nil, true
	}
	ph, ok := decodePlaceholders(c.places, off)
	return r, ph, ok
}

func decodePlaceholders(b []byte, off uint32) ([]icm.Placeholder, bool) {
	d := lebin.NewReader(b, int(off))
	n := d.U32()
	if d.Err() != nil || uint64(n)*10 > uint64(len(b)) {
		return nil, false
	}
	out := make([]icm.Placeholder, n)
	for i := range out {
		out[i] = icm.Placeholder{Line: int(d.U32()), More: int(d.U32()), Text: d.Str()}
	}
	return out, d.Err() == nil
}

// loadICMCache reads checkout dir's ICM cache; nil when it is missing,
// damaged or made by other rules. digest is the tree's (treeDigest): when
// the cache validated that very tree, only its findings are kept (own).
// The file is mapped, not read: at 100k files it is 3 MiB, which read
// into fresh memory cost each walk-test ~800 page faults.
func loadICMCache(dir string, digest [32]byte) (c *icmCache) {
	path := filepath.Join(dir, ICMCacheName)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxStatCacheBytes {
		return nil
	}
	data, release, err := fastio.MapFile(path, fi.Size())
	if err != nil {
		return nil
	}
	defer release()
	if int64(len(data)) != fi.Size() {
		return nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			c = nil // the file was cut short while it was read
		}
	}()
	if c, err = decodeICMCache(data); err != nil {
		return nil
	}
	c.own(c.digest == digest)
	return c
}

// own copies out of the mapped file what c keeps: the findings, and the
// facts unless findingsOnly (the tree is the one the cache validated, so
// no fact is looked up: an unchanged tree reads a few pages of the file,
// not the whole of it into fresh memory).
func (c *icmCache) own(findingsOnly bool) {
	for i := range c.findings {
		f := &c.findings[i]
		f.Rule, f.Path, f.Message = strings.Clone(f.Rule), strings.Clone(f.Path), strings.Clone(f.Message)
		f.Severity = icm.Severity(strings.Clone(string(f.Severity)))
	}
	if findingsOnly {
		c.records, c.places = nil, nil
		return
	}
	c.records, c.places = bytes.Clone(c.records), bytes.Clone(c.places)
}

var errICMCache = errors.New("icm cache damaged")

func decodeICMCache(data []byte) (*icmCache, error) {
	if len(data) < len(icmCacheMagic)+4+32+4 || string(data[:len(icmCacheMagic)]) != icmCacheMagic {
		return nil, errICMCache
	}
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, errICMCache
	}
	d := lebin.NewReader(body, len(icmCacheMagic))
	if d.U32() != icm.RulesVersion {
		return nil, errICMCache
	}
	c := &icmCache{}
	copy(c.digest[:], d.Take(32))
	n := d.U32()
	if d.Err() == nil && uint64(n)*12 > uint64(len(body)) {
		return nil, errICMCache
	}
	if d.Err() == nil && n > 0 {
		c.findings = make([]icm.Finding, n)
		for i := range c.findings {
			c.findings[i] = icm.Finding{Rule: d.Str(), Severity: icm.Severity(d.Str()), Path: d.Str(), Line: int(d.U32()), Message: d.Str()}
		}
	}
	nrec := d.U32()
	if d.Err() == nil && uint64(nrec)*factRecordBytes > uint64(d.Remaining()) {
		return nil, errICMCache
	}
	c.records = d.Take(int(nrec) * factRecordBytes)
	c.places = d.Take(int(d.U32()))
	if d.Err() != nil || d.Remaining() != 0 {
		return nil, errICMCache
	}
	return c, nil
}

// writeICMCache replaces checkout dir's ICM cache: the tree's digest and
// findings (a zero digest remembers none) and the facts, sorted by id,
// with the placeholders of the records that have any.
func writeICMCache(dir string, digest [32]byte, findings []icm.Finding, facts []factRecord, ph map[int][]icm.Placeholder) error {
	for _, f := range findings {
		if max(len(f.Rule), len(f.Severity), len(f.Path), len(f.Message)) > 0xffff {
			findings, digest = nil, [32]byte{} // too long for the format: not remembered
			break
		}
	}
	e := &lebin.Writer{B: make([]byte, 0, 64+len(facts)*factRecordBytes)}
	e.B = append(e.B, icmCacheMagic...)
	e.U32(icm.RulesVersion)
	e.B = append(e.B, digest[:]...)
	e.U32(uint32(len(findings)))
	for _, f := range findings {
		e.Str(f.Rule)
		e.Str(string(f.Severity))
		e.Str(f.Path)
		e.U32(uint32(f.Line))
		e.Str(f.Message)
	}
	var places []byte
	pe := &lebin.Writer{}
	e.U32(uint32(len(facts)))
	for i, fr := range facts {
		e.B = append(e.B, fr.id[:]...)
		e.U32(fr.lines)
		flags := uint32(0)
		if fr.truncated {
			flags = 1
		}
		e.U32(flags)
		phs := ph[i]
		if len(phs) == 0 {
			e.U32(noPlaceholders)
			continue
		}
		e.U32(uint32(len(pe.B)))
		pe.U32(uint32(len(phs)))
		for _, ph := range phs {
			if len(ph.Text) > 0xffff {
				ph.Text = ph.Text[:0xffff]
			}
			pe.U32(uint32(ph.Line))
			pe.U32(uint32(ph.More))
			pe.Str(ph.Text)
		}
	}
	places = pe.B
	e.U32(uint32(len(places)))
	e.B = append(e.B, places...)
	if err := errors.Join(e.Err(), pe.Err()); err != nil {
		return fmt.Errorf("icm cache: %w", err)
	}
	e.U32(crc32.ChecksumIEEE(e.B))
	return replaceUnsynced(filepath.Join(dir, ICMCacheName), e.B, 0o644)
}

// openedHook, when set (by tests only), is called with the slash path of
// every checkout file a scan opens for reading (to hash or to validate).
var openedHook atomic.Pointer[func(p string)]

func noteOpen(p string) {
	if h := openedHook.Load(); h != nil {
		(*h)(p)
	}
}
