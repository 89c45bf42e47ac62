package gitbackend

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
)

// The compression pipeline of the pack writer. An object up to
// pipeObjectBytes is read (and hashed: its id is returned at once) by the
// caller, then compressed by a pool of workers while the caller goes on to
// the next file; the caller appends finished entries to the pack in the
// order they were written, so the pack is byte for byte what the
// sequential writer makes. Larger blobs stream through the caller as
// before: the writer never holds more than pipeInFlight objects of at most
// pipeObjectBytes each.

const (
	// pipeObjectBytes is the largest object the pipeline buffers.
	pipeObjectBytes = StreamThreshold
)

// pipeInFlight bounds the objects buffered at once (raw or compressed).
var pipeInFlight = 4 * pipeWorkers

// pipeWorkers is how many objects are compressed at once.
var pipeWorkers = min(max(runtime.GOMAXPROCS(0), 1), 8)

// pipeJob is one object on its way into the pack.
type pipeJob struct {
	typ  int
	size int64
	id   engine.Hash
	raw  *[]byte       // content; returned to rawBufs once compressed
	out  *bytes.Buffer // compressed content; returned to outBufs once written
	done chan struct{}
}

var (
	rawBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
	outBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// packPipe runs the workers of one writer.
type packPipe struct {
	jobs    chan *pipeJob
	pending []*pipeJob // submitted, not yet in the pack; oldest first
	wg      sync.WaitGroup
}

func newPackPipe() *packPipe {
	p := &packPipe{jobs: make(chan *pipeJob, pipeInFlight)}
	for range pipeWorkers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			zw, _ := zlib.NewWriterLevel(io.Discard, zlibLevel) // level is valid
			for j := range p.jobs {
				j.out = outBufs.Get().(*bytes.Buffer)
				j.out.Reset()
				zw.Reset(j.out)
				zw.Write(*j.raw) // into memory: cannot fail
				zw.Close()
				*j.raw = (*j.raw)[:0]
				rawBufs.Put(j.raw)
				j.raw = nil
				close(j.done)
			}
		}()
	}
	return p
}

// stop ends the workers (after the jobs already queued).
func (p *packPipe) stop() {
	close(p.jobs)
	p.wg.Wait()
	for _, j := range p.pending {
		if j.out != nil {
			outBufs.Put(j.out)
		}
	}
	p.pending = nil
}

// readPipelined reads exactly size bytes of r into a pooled buffer and
// checks that r ends there.
func readPipelined(r io.Reader, size int64) (*[]byte, error) {
	bp := rawBufs.Get().(*[]byte)
	if int64(cap(*bp)) < size {
		*bp = make([]byte, size)
	}
	b := (*bp)[:size]
	n, err := io.ReadFull(r, b)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		rawBufs.Put(bp)
		return nil, fmt.Errorf("%w: blob is shorter than its size %d: got %d bytes", engine.ErrUsage, size, n)
	}
	if err != nil {
		rawBufs.Put(bp)
		return nil, fmt.Errorf("read blob: %w", err)
	}
	if err := expectEOF(r, size); err != nil {
		rawBufs.Put(bp)
		return nil, err
	}
	*bp = b
	return bp, nil
}

// expectEOF checks that r, which gave size bytes, has no byte left.
func expectEOF(r io.Reader, size int64) error {
	var one [1]byte
	k, err := r.Read(one[:])
	switch {
	case k > 0:
		return fmt.Errorf("%w: blob is longer than its size %d", engine.ErrUsage, size)
	case err != nil && !errors.Is(err, io.EOF):
		return fmt.Errorf("read blob: %w", err)
	case err == nil:
		// A reader may return 0, nil; ask once more to be sure.
		if k, _ := io.ReadFull(r, one[:]); k > 0 {
			return fmt.Errorf("%w: blob is longer than its size %d", engine.ErrUsage, size)
		}
	}
	return nil
}

// writeBlobPipelined is WriteBlob for a blob of at most pipeObjectBytes.
func (w *packWriter) writeBlobPipelined(r io.Reader, size int64) (engine.Hash, error) {
	raw, err := readPipelined(r, size)
	if err != nil {
		return engine.ZeroHash, w.fail(err)
	}
	sum := sha1.New()
	sum.Write(objectHeader(typeBlob, size))
	sum.Write(*raw)
	var id engine.Hash
	sum.Sum(id[:0])
	if w.seen[id] || w.exists(id) {
		*raw = (*raw)[:0]
		rawBufs.Put(raw)
		return id, nil
	}
	w.seen[id] = true
	if err := w.submit(typeBlob, id, raw); err != nil {
		return engine.ZeroHash, w.fail(err)
	}
	return id, nil
}

// submit queues an object for compression and writes the finished ones.
func (w *packWriter) submit(typ int, id engine.Hash, raw *[]byte) error {
	if w.pipe == nil {
		w.pipe = newPackPipe()
	}
	j := &pipeJob{typ: typ, size: int64(len(*raw)), id: id, raw: raw, done: make(chan struct{})}
	w.pipe.pending = append(w.pipe.pending, j)
	w.pipe.jobs <- j
	return w.flushPipe(len(w.pipe.pending) >= pipeInFlight)
}

// flushPipe appends finished objects to the pack in submission order;
// with wait it waits for the oldest one first (all, at drain).
func (w *packWriter) flushPipe(wait bool) error {
	p := w.pipe
	if p == nil {
		return nil
	}
	for len(p.pending) > 0 {
		j := p.pending[0]
		if wait {
			<-j.done
		} else {
			select {
			case <-j.done:
			default:
				return nil
			}
		}
		p.pending = p.pending[1:]
		err := w.writeCompressed(j)
		outBufs.Put(j.out)
		j.out = nil
		if err != nil {
			return err
		}
		wait = false
	}
	return nil
}

// drainPipe writes every queued object to the pack.
func (w *packWriter) drainPipe() error {
	for w.pipe != nil && len(w.pipe.pending) > 0 {
		if err := w.flushPipe(true); err != nil {
			return err
		}
	}
	return nil
}

// stopPipe ends the workers, dropping what is still queued.
func (w *packWriter) stopPipe() {
	if w.pipe != nil {
		w.pipe.stop()
		w.pipe = nil
	}
}

// writeCompressed appends one compressed object to the pack.
func (w *packWriter) writeCompressed(j *pipeJob) error {
	if err := w.start(); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	start := w.pos
	w.crc.Reset()
	if err := w.writeEntryHeader(j.typ, j.size); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	if _, err := w.Write(j.out.Bytes()); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	w.entries = append(w.entries, packEntry{id: j.id, offset: start, crc: w.crc.Sum32()})
	return nil
}

// exists reports whether the vault already has h. A loose object can only
// be there when its fan-out folder is (a fresh vault has none): the
// folders are listed once per batch instead of an lstat per object.
func (w *packWriter) exists(h engine.Hash) bool {
	if _, ok := w.v.findPacked(h); ok {
		return true
	}
	if w.looseDirs == nil {
		w.looseDirs = new([256]bool)
		entries, err := os.ReadDir(filepath.Join(w.v.path, "objects"))
		for _, e := range entries {
			if b, err := hex.DecodeString(e.Name()); err == nil && len(b) == 1 {
				w.looseDirs[b[0]] = true
			}
		}
		if err != nil {
			for i := range w.looseDirs {
				w.looseDirs[i] = true // unknown: look
			}
		}
	}
	if !w.looseDirs[h[0]] {
		return false
	}
	_, err := os.Lstat(w.v.loosePath(h))
	return err == nil
}
