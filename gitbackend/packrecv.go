package gitbackend

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha1"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
)

// Receiving a fetched pack. go-git's PackWriter copies the stream to a
// file and only then indexes it, single-threaded, inflating every entry
// twice with a seek and a read per entry (Parser.indexObjects, then
// resolveDeltas). On bench/remote's first checkout (a 10,000-file
// workspace, a 0.5 MB pack of 10,119 objects) that took 300–420 ms after
// the last byte had arrived (20–40 ms after the answer began), a third of
// the whole checkout. receivePack indexes while the pack streams instead,
// as `git index-pack` does: each entry is inflated once as it arrives, its
// id hashed and its CRC-32 taken from the raw bytes on their way to the
// file, and deltas are patched in memory against the pack's own objects.
// The index is ready when the trailer has been checked.
//
// The objects it inflated (up to ReceiveKeepBytes of them, each at most
// StreamThreshold) are returned, so a checkout that reads them next takes
// them from memory instead of inflating them from the pack a second time.
//
// Anything the fast path does not handle (a delta whose base it did not
// keep or that is not in the pack, a tag, an object over StreamThreshold
// that a delta builds on) hands the whole pack, read back from the
// temporary file, to go-git's writer as before: the result is the same
// pack and index.

// recvObject is one entry of a received pack.
type recvObject struct {
	offset int64
	crc    uint32
	typ    int         // whole type once resolved; 0 while a delta waits for its base
	id     engine.Hash // set once resolved
	data   []byte      // the content (resolved) or the delta (waiting); nil when not kept
	base   int         // a waiting delta's base entry, -1 when only baseID is known
	baseID engine.Hash
}

// freshObject is an object a fetch inflated, kept for its first reader.
type freshObject struct {
	typ  int
	data []byte
}

// errRecvFallback says the fast path cannot index this pack.
var errRecvFallback = errors.New("pack needs go-git's indexer")

// errEmptyPack says the pack received holds no objects (or none was sent).
var errEmptyPack = errors.New("empty pack")

// recvStream reads the pack: every byte consumed passes, in order, to the
// temporary file, the running SHA-1 of the pack and the CRC-32 of the
// current entry. It is an io.ByteReader, so zlib reads exactly the bytes
// of each entry and no further.
type recvStream struct {
	src     io.Reader
	buf     []byte
	r, n    int
	mark    int   // buf[mark:r] is consumed but not yet given to the sinks
	pos     int64 // pack offset of buf[r]
	crc     uint32
	sum     hash.Hash
	hashing bool
	file    *bufio.Writer
	err     error // the file's first write error
}

func (s *recvStream) sink() {
	b := s.buf[s.mark:s.r]
	if len(b) == 0 {
		return
	}
	s.crc = crc32.Update(s.crc, crc32.IEEETable, b)
	if s.hashing {
		s.sum.Write(b)
	}
	if _, err := s.file.Write(b); err != nil && s.err == nil {
		s.err = err
	}
	s.mark = s.r
}

func (s *recvStream) fill() error {
	s.sink()
	if s.err != nil {
		return s.err
	}
	n, err := io.ReadAtLeast(s.src, s.buf, 1)
	s.r, s.mark, s.n = 0, 0, n
	if n == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// ReadByte reads one byte of the pack.
func (s *recvStream) ReadByte() (byte, error) {
	if s.r == s.n {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	c := s.buf[s.r]
	s.r++
	s.pos++
	return c, nil
}

// Read reads bytes of the pack.
func (s *recvStream) Read(p []byte) (int, error) {
	if s.r == s.n {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	k := copy(p, s.buf[s.r:s.n])
	s.r += k
	s.pos += int64(k)
	return k, nil
}

// drain copies everything not yet consumed to the file.
func (s *recvStream) drain() error {
	s.sink()
	if s.err != nil {
		return s.err
	}
	if _, err := s.file.Write(s.buf[s.r:s.n]); err != nil {
		return err
	}
	s.r, s.mark = s.n, s.n
	_, err := io.Copy(s.file, s.src)
	return err
}

// receiver indexes one pack as it streams.
type receiver struct {
	s     *recvStream
	zr    io.ReadCloser // a zlib.Resetter
	objs  []recvObject
	byID  map[engine.Hash]int
	kept  int64 // bytes of content and deltas held
	waits int   // deltas waiting for their base
}

// storePack stores a received pack with its index in objects/pack and
// makes both durable; it returns the objects it kept in memory (see
// receivePack).
func (v *Vault) storePack(pack io.Reader, indexPack func(gitDir string, pack io.Reader) error) (map[engine.Hash]freshObject, error) {
	dir := v.packDir()
	f, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return nil, fmt.Errorf("receive pack: %w", err)
	}
	defer func() {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	s := &recvStream{src: pack, buf: make([]byte, 64<<10), sum: sha1.New(), hashing: true, file: bufio.NewWriterSize(f, 64<<10)}
	rc := &receiver{s: s, byID: map[engine.Hash]int{}}
	packSum, err := rc.run()
	if errors.Is(err, errEmptyPack) {
		return nil, nil
	}
	if errors.Is(err, errRecvFallback) {
		if err := s.drain(); err != nil {
			return nil, fmt.Errorf("receive pack: %w", err)
		}
		if err := s.file.Flush(); err != nil {
			return nil, fmt.Errorf("receive pack: %w", err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("receive pack: %w", err)
		}
		return nil, v.storeIndexedPack(f, indexPack)
	}
	if err != nil {
		return nil, fmt.Errorf("receive pack: %w", err)
	}
	if err := s.file.Flush(); err != nil {
		return nil, fmt.Errorf("receive pack: %w", err)
	}
	entries := make([]packEntry, len(rc.objs))
	fresh := make(map[engine.Hash]freshObject, len(rc.objs))
	for i, o := range rc.objs {
		entries[i] = packEntry{id: o.id, offset: o.offset, crc: o.crc}
		if o.data != nil {
			fresh[o.id] = freshObject{typ: o.typ, data: o.data}
		}
	}
	name, err := installPack(f, dir, entries, packSum)
	f = nil // installPack closed or removed it
	if err != nil {
		return nil, err
	}
	return fresh, v.addPack(name)
}

// installPack makes the complete pack f read-only, writes its index,
// fsyncs both and renames them into dir, index last like git. The pack's
// fsync runs while the index is written and fsynced: both are durable
// before either is renamed into place, and the two waits for the disk
// overlap (on a journalling file system the second often joins the
// first's commit). It closes f, and removes it when it fails.
func installPack(f *os.File, dir string, entries []packEntry, packSum [20]byte) (string, error) {
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Chmod(0o444); err != nil { // read-only, like git's packs
		return fail(fmt.Errorf("write pack: %w", err))
	}
	synced := make(chan error, 1)
	go func() { synced <- f.Sync() }()
	idxTmp, err := writeIndexFile(dir, entries, packSum)
	if serr := <-synced; serr != nil {
		if err == nil {
			os.Remove(idxTmp)
		}
		return fail(fmt.Errorf("fsync pack: %w", serr))
	}
	if err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(idxTmp)
		return fail(fmt.Errorf("close pack: %w", err))
	}
	name := "pack-" + engine.Hash(packSum).String()
	if err := os.Rename(f.Name(), filepath.Join(dir, name+".pack")); err != nil {
		os.Remove(idxTmp)
		os.Remove(f.Name())
		return "", fmt.Errorf("install pack: %w", err)
	}
	if err := os.Rename(idxTmp, filepath.Join(dir, name+".idx")); err != nil {
		os.Remove(idxTmp)
		return "", fmt.Errorf("install pack index: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("fsync %s: %w", dir, err)
	}
	return name, nil
}

// storeIndexedPack stores a pack that the receiver does not index itself
// (its deltas reach objects outside it) with indexPack (the transport's:
// go-git's pack writer, which resolves them against the vault's objects
// too) and makes it durable.
func (v *Vault) storeIndexedPack(pack io.Reader, indexPack func(gitDir string, pack io.Reader) error) error {
	before, _ := filepath.Glob(filepath.Join(v.packDir(), "pack-*.idx"))
	if err := indexPack(v.path, pack); err != nil {
		return err
	}
	after, _ := filepath.Glob(filepath.Join(v.packDir(), "pack-*"))
	for _, p := range after {
		if slices.Contains(before, p) {
			continue
		}
		if f, err := os.Open(p); err == nil {
			f.Sync()
			f.Close()
		}
	}
	if err := syncDir(v.packDir()); err != nil {
		return err
	}
	return v.refreshPacks()
}

// run reads the whole pack and returns its trailer.
func (rc *receiver) run() ([20]byte, error) {
	var sum [20]byte
	var head [12]byte
	n, err := io.ReadFull(rc.s, head[:])
	if n == 0 && errors.Is(err, io.ErrUnexpectedEOF) {
		return sum, errEmptyPack
	}
	if err != nil {
		return sum, err
	}
	if !bytes.Equal(head[:4], []byte("PACK")) || (head[7] != 2 && head[7] != 3) || head[4]|head[5]|head[6] != 0 {
		return sum, errors.New("not a version 2 or 3 pack")
	}
	count := int(uint32(head[8])<<24 | uint32(head[9])<<16 | uint32(head[10])<<8 | uint32(head[11]))
	if count == 0 {
		return sum, errEmptyPack
	}
	rc.objs = make([]recvObject, 0, min(count, 1<<20))
	z, err := zlib.NewReader(bytes.NewReader(emptyZlib))
	if err != nil {
		return sum, err
	}
	rc.zr = z
	for range count {
		if err := rc.entry(); err != nil {
			return sum, err
		}
	}
	rc.s.sink()
	rc.s.hashing = false
	if _, err := io.ReadFull(rc.s, sum[:]); err != nil {
		return sum, fmt.Errorf("pack trailer: %w", err)
	}
	rc.s.sink()
	if !bytes.Equal(rc.s.sum.Sum(nil), sum[:]) {
		return sum, errors.New("pack checksum does not match its contents")
	}
	if rc.s.err != nil {
		return sum, rc.s.err
	}
	if rc.waits > 0 {
		if err := rc.resolveWaiting(); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// emptyZlib is a complete zlib stream of nothing, to make the reader.
var emptyZlib = []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}

// entry reads one pack entry: its header, then its data, inflated once.
func (rc *receiver) entry() error {
	s := rc.s
	s.sink()
	s.crc = 0
	o := recvObject{offset: s.pos, base: -1}
	h, err := readEntryHead(s, o.offset)
	if err != nil {
		return err
	}
	typ, size := h.typ, h.size
	switch typ {
	case typeCommit, typeTree, typeBlob:
	case typeOfsDelta:
		i, ok := slices.BinarySearchFunc(rc.objs, h.baseOff, func(x recvObject, off int64) int { return cmp.Compare(x.offset, off) })
		if !ok {
			return fmt.Errorf("delta base at %d is not an entry", h.baseOff)
		}
		o.base = i
	case typeRefDelta:
		o.baseID = h.baseID
	default:
		return errRecvFallback // a tag, or a type git does not write
	}
	if size > StreamThreshold || rc.kept+size > ReceiveKeepBytes {
		if typ >= typeOfsDelta {
			return errRecvFallback // its result would be too big to patch in memory
		}
		if err := rc.streamWhole(&o, typ, size); err != nil {
			return err
		}
	} else {
		data, err := rc.inflate(size)
		if err != nil {
			return err
		}
		rc.kept += size
		o.data = data
		if typ < typeOfsDelta {
			o.typ, o.id = typ, hashObject(typ, data)
		}
	}
	s.sink()
	o.crc = s.crc
	rc.objs = append(rc.objs, o)
	i := len(rc.objs) - 1
	if typ < typeOfsDelta {
		rc.byID[o.id] = i
		return nil
	}
	rc.waits++
	return rc.resolve(i)
}

// inflate reads the current entry's zlib stream, which must hold exactly
// size bytes.
func (rc *receiver) inflate(size int64) ([]byte, error) {
	if err := rc.zr.(zlib.Resetter).Reset(rc.s, nil); err != nil {
		return nil, err
	}
	return readExact(rc.zr, size)
}

// streamWhole hashes a whole object too large to keep as it inflates.
func (rc *receiver) streamWhole(o *recvObject, typ int, size int64) error {
	if err := rc.zr.(zlib.Resetter).Reset(rc.s, nil); err != nil {
		return err
	}
	h := sha1.New()
	h.Write(objectHeader(typ, size))
	n, err := io.Copy(h, rc.zr)
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("entry at %d holds %d bytes, its header says %d", o.offset, n, size)
	}
	o.typ = typ
	h.Sum(o.id[:0])
	return nil
}

// resolve patches waiting delta i when its base is known and kept.
func (rc *receiver) resolve(i int) error {
	o := &rc.objs[i]
	b := o.base
	if b < 0 {
		j, ok := rc.byID[o.baseID]
		if !ok {
			return nil // its base may come later in the pack
		}
		b = j
	}
	base := &rc.objs[b]
	if base.typ == 0 {
		return nil // the base waits too
	}
	if base.data == nil {
		return errRecvFallback
	}
	data, err := applyDelta(base.data, o.data, StreamThreshold)
	if err != nil {
		return fmt.Errorf("delta at %d: %w", o.offset, err)
	}
	rc.kept += int64(len(data)) - int64(len(o.data))
	if rc.kept > ReceiveKeepBytes {
		return errRecvFallback
	}
	o.typ, o.data, o.id = base.typ, data, hashObject(base.typ, data)
	rc.byID[o.id] = i
	rc.waits--
	return nil
}

// resolveWaiting patches the deltas whose bases came after them, until
// none is left or none can be.
func (rc *receiver) resolveWaiting() error {
	for rc.waits > 0 {
		before := rc.waits
		for i := range rc.objs {
			if rc.objs[i].typ == 0 {
				if err := rc.resolve(i); err != nil {
					return err
				}
			}
		}
		if rc.waits == before {
			return errRecvFallback // a base outside the pack (a thin pack)
		}
	}
	return nil
}
