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
// caller into the current batch, then compressed by a pool of workers
// while the caller goes on to the next file. A batch holds about
// pipeBatchBytes of objects in one buffer (one worker wake-up and two
// buffers per batch, not per file), and the caller appends finished
// entries to the pack in the order they were written, so the pack is byte
// for byte what the sequential writer makes. Larger blobs stream through
// the caller as before. At most pipeInFlight batches are buffered.

const (
	// pipeObjectBytes is the largest object the pipeline buffers.
	pipeObjectBytes = StreamThreshold
	// pipeBatchBytes and pipeBatchObjects close a batch.
	pipeBatchBytes   = 256 << 10
	pipeBatchObjects = 128
)

// pipeWorkers is how many batches are compressed at once.
var pipeWorkers = min(max(runtime.GOMAXPROCS(0), 1), 8)

// pipeInFlight bounds the batches buffered at once (raw or compressed).
var pipeInFlight = 3 * pipeWorkers

// pipeObj is one object of a batch: its bytes in the batch's buffers.
type pipeObj struct {
	typ            int
	id             engine.Hash
	rawFrom, rawTo int
	zipFrom, zipTo int
}

// pipeJob is a batch of objects compressed by one worker.
type pipeJob struct {
	objs []pipeObj
	raw  *[]byte       // the objects' contents, back to back
	out  *bytes.Buffer // their compressed forms, back to back
	done chan struct{}
}

var (
	batchBufs = sync.Pool{New: func() any { b := make([]byte, 0, pipeBatchBytes+64<<10); return &b }}
	outBufs   = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// packPipe runs the workers of one writer.
type packPipe struct {
	jobs    chan *pipeJob
	cur     *pipeJob   // the batch being filled
	pending []*pipeJob // sent, not yet in the pack; oldest first
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
				for i := range j.objs {
					o := &j.objs[i]
					o.zipFrom = j.out.Len()
					zw.Reset(j.out)
					zw.Write((*j.raw)[o.rawFrom:o.rawTo]) // into memory: cannot fail
					zw.Close()
					o.zipTo = j.out.Len()
				}
				j.releaseRaw()
				close(j.done)
			}
		}()
	}
	return p
}

func (j *pipeJob) releaseRaw() {
	if j.raw != nil {
		if cap(*j.raw) <= 4*pipeBatchBytes { // keep the pool's buffers small
			*j.raw = (*j.raw)[:0]
			batchBufs.Put(j.raw)
		}
		j.raw = nil
	}
}

func (j *pipeJob) releaseOut() {
	if j.out != nil {
		if j.out.Cap() <= 4*pipeBatchBytes {
			outBufs.Put(j.out)
		}
		j.out = nil
	}
}

// stop ends the workers (after the batches already sent) and drops what
// was not written.
func (p *packPipe) stop() {
	close(p.jobs)
	p.wg.Wait()
	for _, j := range p.pending {
		j.releaseOut()
	}
	if p.cur != nil {
		p.cur.releaseRaw()
	}
	p.pending, p.cur = nil, nil
}

// room returns the current batch with room for size more bytes, sending
// the current one first when it has none.
func (w *packWriter) room(size int64) *pipeJob {
	if w.pipe == nil {
		w.pipe = newPackPipe()
	}
	p := w.pipe
	if p.cur != nil && int64(cap(*p.cur.raw)-len(*p.cur.raw)) < size {
		p.send()
	}
	if p.cur == nil {
		raw := batchBufs.Get().(*[]byte)
		if int64(cap(*raw)) < size {
			*raw = make([]byte, 0, size)
		}
		p.cur = &pipeJob{raw: raw, done: make(chan struct{})}
	}
	return p.cur
}

// send hands the current batch to the workers.
func (p *packPipe) send() {
	if len(p.cur.objs) == 0 {
		p.cur.releaseRaw()
	} else {
		p.pending = append(p.pending, p.cur)
		p.jobs <- p.cur
	}
	p.cur = nil
}

// writeBlobPipelined is WriteBlob for a blob of at most pipeObjectBytes:
// read and hashed into the current batch, compressed by a worker.
func (w *packWriter) writeBlobPipelined(r io.Reader, size int64) (engine.Hash, error) {
	j := w.room(size)
	from := len(*j.raw)
	b := (*j.raw)[from : from+int(size)]
	n, err := io.ReadFull(r, b)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%w: blob is shorter than its size %d: got %d bytes", engine.ErrUsage, size, n)
	case err != nil:
		err = fmt.Errorf("read blob: %w", err)
	default:
		err = expectEOF(r, size)
	}
	if err != nil {
		return engine.ZeroHash, w.fail(err)
	}
	sum := sha1.New()
	sum.Write(objectHeader(typeBlob, size))
	sum.Write(b)
	var id engine.Hash
	sum.Sum(id[:0])
	if w.seen[id] || w.exists(id) {
		return id, nil // its bytes stay unclaimed in the batch buffer
	}
	w.seen[id] = true
	*j.raw = (*j.raw)[:from+int(size)]
	return id, w.add(j, typeBlob, id, from)
}

// writeSmallPipelined queues an object whose content is in memory.
func (w *packWriter) writeSmallPipelined(typ int, id engine.Hash, content []byte) error {
	j := w.room(int64(len(content)))
	from := len(*j.raw)
	*j.raw = append(*j.raw, content...)
	return w.add(j, typ, id, from)
}

// add records the object just placed at raw[from:] of batch j, sends the
// batch when it is full and writes the finished ones.
func (w *packWriter) add(j *pipeJob, typ int, id engine.Hash, from int) error {
	j.objs = append(j.objs, pipeObj{typ: typ, id: id, rawFrom: from, rawTo: len(*j.raw)})
	if len(*j.raw) < pipeBatchBytes && len(j.objs) < pipeBatchObjects {
		return nil
	}
	w.pipe.send()
	if err := w.flushPipe(len(w.pipe.pending) >= pipeInFlight); err != nil {
		return w.fail(err)
	}
	return nil
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

// flushPipe appends finished batches to the pack in the order they were
// sent; with wait it waits for the oldest one first.
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
		var err error
		for i := range j.objs {
			if err = w.writeCompressed(j, &j.objs[i]); err != nil {
				break
			}
		}
		j.releaseOut()
		if err != nil {
			return err
		}
		wait = false
	}
	return nil
}

// drainPipe writes every queued object to the pack.
func (w *packWriter) drainPipe() error {
	p := w.pipe
	if p == nil {
		return nil
	}
	if p.cur != nil {
		p.send()
	}
	for len(p.pending) > 0 {
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
func (w *packWriter) writeCompressed(j *pipeJob, o *pipeObj) error {
	if err := w.start(); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	start := w.pos
	w.crc.Reset()
	if err := w.writeEntryHeader(o.typ, int64(o.rawTo-o.rawFrom)); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	if _, err := w.Write(j.out.Bytes()[o.zipFrom:o.zipTo]); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	w.entries = append(w.entries, packEntry{id: o.id, offset: start, crc: w.crc.Sum32()})
	return nil
}

// exists reports whether the vault already has h. A loose object can only
// be there when its fan-out folder is (a fresh vault has none): the
// folders are listed once per batch instead of an lstat per object.
func (w *packWriter) exists(h engine.Hash) bool {
	if _, _, ok := w.v.findPacked(h); ok {
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
