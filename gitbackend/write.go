package gitbackend

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
)

// Pack writing tunables.
const (
	packBufferBytes = 256 << 10
	// mergeBufferBytes buffers a merge's pack, written entry by entry
	// from the mapped packs (a fresh 256 KiB is 64 page faults).
	mergeBufferBytes = 64 << 10
	readBufferBytes  = 128 << 10
	// writebackBytes is how much new pack data starts its write to disk
	// while the batch goes on (see startWriteback).
	writebackBytes = 8 << 20
	// zlibLevel trades size for speed: git reads any zlib level, and a
	// fast level is what makes a big import beat `git add`.
	zlibLevel = zlib.BestSpeed
)

// NewObjectWriter starts a batch of new objects. On disk the batch becomes
// one packfile with its index at Finish; in memory, entries of the
// in-memory storage.
func (v *Vault) NewObjectWriter(ctx context.Context) (engine.ObjectWriter, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if v.mem != nil {
		return &memWriter{v: v, pending: map[engine.Hash]memObject{}}, nil
	}
	// Load packs written since the last lookup, so objects the vault has
	// are skipped instead of written again.
	if err := v.refreshPacks(); err != nil {
		return nil, err
	}
	return &packWriter{v: v, seen: map[engine.Hash]bool{}}, nil
}

// packEntry is one object in the pack being written.
type packEntry struct {
	id     engine.Hash
	offset int64
	crc    uint32
}

// packWriter writes one batch as a packfile (version 2, no deltas) in a
// temporary file in objects/pack, then its index, and renames both into
// place at Finish.
type packWriter struct {
	v       *Vault
	f       *os.File // temporary pack, nil until the first new object
	bw      *bufio.Writer
	pos     int64       // bytes written to the pack so far
	crc     hash.Hash32 // CRC32 of the current entry's packed bytes
	zw      *zlib.Writer
	entries []packEntry
	seen    map[engine.Hash]bool
	err     error // first failure: the batch is aborted
	done    bool

	// A merge knows how many entries it writes before the first: its
	// header carries count from the start and sum takes the SHA-1 of the
	// pack as its buffer is written out, so the trailer needs no second
	// read of the pack (a batch skips objects the vault has, so it fixes
	// its count at the end and hashes the file again).
	count uint32
	sum   hash.Hash

	writeback int64      // bytes of the pack handed to the disk early (startWriteback)
	pipe      *packPipe  // compression workers (packpipe.go), nil until used
	looseDirs *[256]bool // objects/xx folders that exist, listed on first use
}

var writerBufs = sync.Pool{New: func() any { b := make([]byte, readBufferBytes); return &b }}

// Write implements io.Writer for the pack stream: it counts and checksums
// the current entry's bytes.
func (w *packWriter) Write(p []byte) (int, error) {
	n, err := w.bw.Write(p)
	w.crc.Write(p[:n])
	w.pos += int64(n)
	if end := w.pos - int64(w.bw.Buffered()); end-w.writeback >= writebackBytes {
		startWriteback(w.f, w.writeback, end-w.writeback)
		w.writeback = end
	}
	return n, err
}

func (w *packWriter) usable() error {
	if w.err != nil {
		return fmt.Errorf("%w: an earlier write failed: %w", ErrWriterDone, w.err)
	}
	if w.done {
		return ErrWriterDone
	}
	return nil
}

// fail records the first error; the batch can then only be aborted.
func (w *packWriter) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

func (w *packWriter) start() error {
	if w.f != nil {
		return nil
	}
	dir := filepath.Join(w.v.path, "objects", "pack")
	f, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return err
	}
	w.f = f
	if w.sum != nil {
		// Counted: the pack is hashed as the buffer goes to the file, in
		// large pieces rather than entry by entry.
		w.bw = bufio.NewWriterSize(io.MultiWriter(f, w.sum), mergeBufferBytes)
	} else {
		w.bw = bufio.NewWriterSize(f, packBufferBytes)
	}
	w.crc = crc32.NewIEEE()
	// Header; a batch's object count is fixed up at Finish.
	hdr := binary.BigEndian.AppendUint32([]byte{'P', 'A', 'C', 'K', 0, 0, 0, 2}, w.count)
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	return nil
}

// startCounted starts a pack that will hold exactly n entries (a
// merge's), hashed as it is written (see packWriter.count).
func (w *packWriter) startCounted(n int) error {
	if int64(n) > 1<<32-1 {
		return fmt.Errorf("%w: %d objects do not fit in one pack", engine.ErrRefused, n)
	}
	w.count, w.sum = uint32(n), sha1.New()
	return w.start()
}

// writeEntryHeader writes a pack entry header: type and size in git's
// variable-length encoding.
func (w *packWriter) writeEntryHeader(typ int, size int64) error {
	_, err := w.Write(packEntryHeader(typ, size))
	return err
}

func (w *packWriter) zlibWriter() *zlib.Writer {
	if w.zw == nil {
		w.zw, _ = zlib.NewWriterLevel(w, zlibLevel) // level is valid
	} else {
		w.zw.Reset(w)
	}
	return w.zw
}

// WriteBlob reads exactly size bytes from r into the pack. A blob of up to
// pipeObjectBytes (1 MiB) is read and hashed here and compressed by the
// pipeline's workers (packpipe.go); a blob the vault or this batch already
// has is not written. A larger blob streams, hashed while it compresses,
// and is never held in memory whole; a duplicate is cut off the pack
// again. Either way its id is returned.
func (w *packWriter) WriteBlob(r io.Reader, size int64) (engine.Hash, error) {
	if err := w.usable(); err != nil {
		return engine.ZeroHash, err
	}
	if size < 0 {
		return engine.ZeroHash, w.fail(fmt.Errorf("%w: blob size %d is negative", engine.ErrUsage, size))
	}
	if size <= pipeObjectBytes {
		return w.writeBlobPipelined(r, size)
	}
	// A large blob streams: the objects queued before it go first.
	if err := w.drainPipe(); err != nil {
		return engine.ZeroHash, w.fail(err)
	}
	if err := w.start(); err != nil {
		return engine.ZeroHash, w.fail(fmt.Errorf("write pack: %w", err))
	}
	start := w.pos
	w.crc.Reset()
	if err := w.writeEntryHeader(typeBlob, size); err != nil {
		return engine.ZeroHash, w.fail(fmt.Errorf("write pack: %w", err))
	}
	sum := sha1.New()
	sum.Write(objectHeader(typeBlob, size))
	zw := w.zlibWriter()
	bufp := writerBufs.Get().(*[]byte)
	defer writerBufs.Put(bufp)
	buf := *bufp
	var n int64
	for n < size {
		chunk := buf[:min(int64(len(buf)), size-n)]
		k, err := io.ReadFull(r, chunk)
		if k > 0 {
			sum.Write(chunk[:k])
			if _, werr := zw.Write(chunk[:k]); werr != nil {
				return engine.ZeroHash, w.fail(fmt.Errorf("write pack: %w", werr))
			}
			n += int64(k)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return engine.ZeroHash, w.fail(fmt.Errorf("%w: blob is shorter than its size %d: got %d bytes", engine.ErrUsage, size, n))
		}
		if err != nil {
			return engine.ZeroHash, w.fail(fmt.Errorf("read blob: %w", err))
		}
	}
	// Exactly size bytes: the reader must be at its end now.
	if k, err := r.Read(buf[:1]); k > 0 {
		return engine.ZeroHash, w.fail(fmt.Errorf("%w: blob is longer than its size %d", engine.ErrUsage, size))
	} else if err != nil && !errors.Is(err, io.EOF) {
		return engine.ZeroHash, w.fail(fmt.Errorf("read blob: %w", err))
	} else if err == nil {
		// A reader may return 0, nil; ask once more to be sure.
		if k, _ := io.ReadFull(r, buf[:1]); k > 0 {
			return engine.ZeroHash, w.fail(fmt.Errorf("%w: blob is longer than its size %d", engine.ErrUsage, size))
		}
	}
	if err := zw.Close(); err != nil {
		return engine.ZeroHash, w.fail(fmt.Errorf("write pack: %w", err))
	}
	var id engine.Hash
	sum.Sum(id[:0])
	if w.seen[id] || w.exists(id) {
		if err := w.truncate(start); err != nil {
			return engine.ZeroHash, w.fail(err)
		}
		return id, nil
	}
	w.seen[id] = true
	w.entries = append(w.entries, packEntry{id: id, offset: start, crc: w.crc.Sum32()})
	return id, nil
}

// truncate cuts the pack back to off (dropping a duplicate entry).
func (w *packWriter) truncate(off int64) error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	if err := w.f.Truncate(off); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	if _, err := w.f.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	w.pos = off
	w.writeback = min(w.writeback, off)
	w.sum = nil // what it hashed is cut off: the trailer hashes the file again
	return nil
}

// writeSmall writes an object whose content is in memory.
func (w *packWriter) writeSmall(typ int, content []byte) (engine.Hash, error) {
	id := hashObject(typ, content)
	if w.seen[id] || w.exists(id) {
		return id, nil
	}
	w.seen[id] = true
	if err := w.writeSmallPipelined(typ, id, content); err != nil {
		return engine.ZeroHash, w.fail(err)
	}
	return id, nil
}

// WriteTree writes a tree; entries are sorted in git order.
func (w *packWriter) WriteTree(entries []engine.TreeEntry) (engine.Hash, error) {
	if err := w.usable(); err != nil {
		return engine.ZeroHash, err
	}
	content, err := encodeTree(entries)
	if err != nil {
		return engine.ZeroHash, err // invalid input: the batch stays usable
	}
	return w.writeSmall(typeTree, content)
}

// WriteCommit writes a commit (c.ID is ignored).
func (w *packWriter) WriteCommit(c *engine.Commit) (engine.Hash, error) {
	if err := w.usable(); err != nil {
		return engine.ZeroHash, err
	}
	content, err := encodeCommit(c)
	if err != nil {
		return engine.ZeroHash, err
	}
	return w.writeSmall(typeCommit, content)
}

// Finish completes the pack (object count, trailer), writes its index,
// fsyncs both and renames them into objects/pack, index last like git.
func (w *packWriter) Finish() error {
	if err := w.usable(); err != nil {
		w.Abort()
		return err
	}
	if err := w.drainPipe(); err != nil {
		w.fail(err)
		w.Abort()
		return err
	}
	w.stopPipe()
	if len(w.entries) == 0 {
		w.done = true
		return w.removeTemp()
	}
	// A batch that makes the vault hold too many packs folds its objects
	// into the consolidation's merged pack when the merge picks it: one
	// pack written and fsynced instead of two.
	if w.v.mem == nil && w.v.loadedPacks()+1 > w.v.packLimit {
		if p, err := w.seal(); err == nil {
			if _, folded, _ := w.v.consolidate(p); folded {
				w.done = true
				return w.removeTemp() // its objects are in the merged pack
			}
		}
	}
	if _, err := w.finish(); err != nil {
		w.fail(err)
		w.Abort()
		return err
	}
	w.done = true
	// The batch is durable. Merging small packs is best effort: a failure
	// loses no object (consolidate.go) and never fails the batch.
	// A batch that merged none leaves the trash a few files lighter
	// (trash.go): no commit pays for deleting a whole merge's packs.
	if n, _, _ := w.v.consolidate(nil); n == 0 {
		w.v.emptyTrash(TrashFilesPerBatch)
	}
	return nil
}

// seal completes the pack (object count, trailer) without installing it
// and returns it with its index in memory, for consolidate to fold into
// its merge. finish may still install it afterwards.
func (w *packWriter) seal() (*pendingPack, error) {
	packSum, err := w.writeTrailer()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	sum := sha1.New()
	if err := encodeIndex(io.MultiWriter(&b, sum), w.entries, packSum); err != nil {
		return nil, err
	}
	b.Write(sum.Sum(nil))
	idx, err := parseIndex(b.Bytes())
	if err != nil {
		return nil, err
	}
	return &pendingPack{path: w.f.Name(), size: w.pos + 20, objects: len(w.entries), idx: idx}, nil
}

// writeTrailer writes the pack's object count and its trailer (the SHA-1
// of everything before it) and returns the trailer.
func (w *packWriter) writeTrailer() ([20]byte, error) {
	var packSum [20]byte
	if int64(len(w.entries)) > 1<<32-1 {
		return packSum, fmt.Errorf("%w: %d objects do not fit in one pack", engine.ErrRefused, len(w.entries))
	}
	if err := w.bw.Flush(); err != nil {
		return packSum, fmt.Errorf("write pack: %w", err)
	}
	if w.sum != nil && int64(len(w.entries)) == int64(w.count) {
		// Counted and hashed as written (startCounted).
		w.sum.Sum(packSum[:0])
		if _, err := w.f.WriteAt(packSum[:], w.pos); err != nil {
			return packSum, fmt.Errorf("write pack: %w", err)
		}
		return packSum, nil
	}
	var count [4]byte
	binary.BigEndian.PutUint32(count[:], uint32(len(w.entries)))
	if _, err := w.f.WriteAt(count[:], 8); err != nil {
		return packSum, fmt.Errorf("write pack: %w", err)
	}
	// The trailer is the SHA-1 of everything before it; the count changed
	// the header, so hash the file once more (it is in the page cache).
	sum := sha1.New()
	bufp := writerBufs.Get().(*[]byte)
	_, err := io.CopyBuffer(sum, io.NewSectionReader(w.f, 0, w.pos), *bufp)
	writerBufs.Put(bufp)
	if err != nil {
		return packSum, fmt.Errorf("checksum pack: %w", err)
	}
	sum.Sum(packSum[:0])
	if _, err := w.f.WriteAt(packSum[:], w.pos); err != nil {
		return packSum, fmt.Errorf("write pack: %w", err)
	}
	return packSum, nil
}

// finish completes the pack and its index, installs both (installPack)
// and returns the pack's name ("pack-<hex>").
func (w *packWriter) finish() (string, error) {
	packSum, err := w.writeTrailer()
	if err != nil {
		return "", err
	}
	f := w.f
	w.f = nil // installPack closes it, and removes it when it fails
	name, err := installPack(f, filepath.Dir(f.Name()), w.entries, packSum)
	if err != nil {
		return "", err
	}
	return name, w.v.addPack(name)
}

// writeIndexFile writes a version 2 pack index for entries into a
// temporary file in dir, fsynced, and returns its name.
func writeIndexFile(dir string, entries []packEntry, packSum [20]byte) (string, error) {
	f, err := os.CreateTemp(dir, "tmp_idx_")
	if err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, sum), 64<<10)
	if err := encodeIndex(bw, entries, packSum); err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	if _, err := f.Write(sum.Sum(nil)); err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	if err := f.Chmod(0o444); err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("fsync pack index: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("close pack index: %w", err)
	}
	ok = true
	return f.Name(), nil
}

// encodeIndex writes a version 2 pack index up to (not including) its own
// trailing checksum: magic, version, fanout, sorted ids, CRC32s, 31-bit
// offsets, 64-bit offsets, pack checksum.
func encodeIndex(w io.Writer, entries []packEntry, packSum [20]byte) error {
	sortEntriesByID(entries)
	var b4 [4]byte
	put := func(v uint32) error {
		binary.BigEndian.PutUint32(b4[:], v)
		_, err := w.Write(b4[:])
		return err
	}
	if _, err := w.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}); err != nil {
		return err
	}
	var fanout [256]uint32
	for _, e := range entries {
		fanout[e.id[0]]++
	}
	var total uint32
	for i := range fanout {
		total += fanout[i]
		if err := put(total); err != nil {
			return err
		}
	}
	for i := range entries { // e.id[:] of a copy e would move each copy to the heap
		if _, err := w.Write(entries[i].id[:]); err != nil {
			return err
		}
	}
	for _, e := range entries {
		if err := put(e.crc); err != nil {
			return err
		}
	}
	var large []int64
	for _, e := range entries {
		off := uint32(e.offset)
		if e.offset >= 1<<31 {
			off = 1<<31 | uint32(len(large))
			large = append(large, e.offset)
		}
		if err := put(off); err != nil {
			return err
		}
	}
	for _, off := range large {
		var b8 [8]byte
		binary.BigEndian.PutUint64(b8[:], uint64(off))
		if _, err := w.Write(b8[:]); err != nil {
			return err
		}
	}
	_, err := w.Write(packSum[:])
	return err
}

func (w *packWriter) removeTemp() error {
	if w.f == nil {
		return nil
	}
	name := w.f.Name()
	w.f.Close()
	w.f = nil
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Abort discards the batch and its temporary files. After Finish it does
// nothing.
func (w *packWriter) Abort() error {
	if w.done && w.err == nil {
		return nil
	}
	w.done = true
	w.stopPipe()
	return w.removeTemp()
}

// memWriter collects a batch for the in-memory storage and stores it at
// Finish.
type memWriter struct {
	v       *Vault
	pending map[engine.Hash]memObject
	err     error
	done    bool
}

func (w *memWriter) usable() error {
	if w.err != nil {
		return fmt.Errorf("%w: an earlier write failed: %w", ErrWriterDone, w.err)
	}
	if w.done {
		return ErrWriterDone
	}
	return nil
}

func (w *memWriter) add(typ int, content []byte) engine.Hash {
	id := hashObject(typ, content)
	if _, ok := w.pending[id]; ok {
		return id
	}
	w.pending[id] = memObject{typ: typ, content: content}
	return id
}

// WriteBlob reads exactly size bytes from r (in memory, by nature).
func (w *memWriter) WriteBlob(r io.Reader, size int64) (engine.Hash, error) {
	if err := w.usable(); err != nil {
		return engine.ZeroHash, err
	}
	if size < 0 {
		w.err = fmt.Errorf("%w: blob size %d is negative", engine.ErrUsage, size)
		return engine.ZeroHash, w.err
	}
	content, err := io.ReadAll(io.LimitReader(r, size+1))
	if err != nil {
		w.err = fmt.Errorf("read blob: %w", err)
		return engine.ZeroHash, w.err
	}
	if int64(len(content)) != size {
		w.err = fmt.Errorf("%w: blob has %s bytes, not its size %d", engine.ErrUsage, lenDesc(len(content), size), size)
		return engine.ZeroHash, w.err
	}
	return w.add(typeBlob, content), nil
}

func lenDesc(n int, size int64) string {
	if int64(n) > size {
		return "more"
	}
	return fmt.Sprint(n)
}

// WriteTree writes a tree; entries are sorted in git order.
func (w *memWriter) WriteTree(entries []engine.TreeEntry) (engine.Hash, error) {
	if err := w.usable(); err != nil {
		return engine.ZeroHash, err
	}
	content, err := encodeTree(entries)
	if err != nil {
		return engine.ZeroHash, err
	}
	return w.add(typeTree, content), nil
}

// WriteCommit writes a commit (c.ID is ignored).
func (w *memWriter) WriteCommit(c *engine.Commit) (engine.Hash, error) {
	if err := w.usable(); err != nil {
		return engine.ZeroHash, err
	}
	content, err := encodeCommit(c)
	if err != nil {
		return engine.ZeroHash, err
	}
	return w.add(typeCommit, content), nil
}

// Finish stores the batch in the in-memory storage.
func (w *memWriter) Finish() error {
	if err := w.usable(); err != nil {
		w.Abort()
		return err
	}
	w.done = true
	w.v.memMu.Lock()
	defer w.v.memMu.Unlock()
	for id, o := range w.pending {
		w.v.mem.setObject(id, o)
	}
	w.pending = nil
	return nil
}

// Abort discards the batch.
func (w *memWriter) Abort() error {
	w.done = true
	w.pending = nil
	return nil
}

// compareIDs orders object ids as their bytes do, the first eight bytes
// compared as one number (ids are uniform: they almost always decide).
func compareIDs(a, b *engine.Hash) int {
	if c := cmp.Compare(binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])); c != 0 {
		return c
	}
	return bytes.Compare(a[8:], b[8:])
}

// sortEntriesByID sorts entries by object id (sortByID), moving each
// entry once.
func sortEntriesByID(entries []packEntry) {
	if len(entries) <= keyedInsertionMax {
		slices.SortFunc(entries, func(a, b packEntry) int { return compareIDs(&a.id, &b.id) })
		return
	}
	ks := sortByID(len(entries), func(i int32) *engine.Hash { return &entries[i].id })
	// entries[k] is to become entries[ks[k].pos]: follow each cycle of
	// the permutation, marking the places done.
	for start := range ks {
		if ks[start].pos < 0 {
			continue
		}
		tmp := entries[start]
		k := start
		for {
			from := int(ks[k].pos)
			ks[k].pos = -1
			if from == start {
				entries[k] = tmp
				break
			}
			entries[k] = entries[from]
			k = from
		}
	}
}
