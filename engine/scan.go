package engine

import (
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/stackgrow"
	"github.com/thalix/tv/internal/statcache"

	"github.com/thalix/tv/icm"
)

// diskFile is a regular file found by a scan.
type diskFile struct {
	path string
	mode FileMode
	// base is the file's index in the checkout's base, -1 when the base
	// has no such path; clean says the stat cache vouches that the content
	// is the base's, vouched.
	base  int32
	clean bool
	// A clean file's stamp, git blob id and sha256 are vouched's (the base
	// entry); any other file's stamp is *st (kept in an array per folder)
	// and its sums are *sum once hashed. Nothing is copied into every
	// file of a tree the scan finds unchanged: 56 bytes a file instead of
	// 88 (320 KB less fresh memory per 10k-file walk-test).
	vouched *statcache.Entry
	st      *fastio.Stamp
	sum     *fileSum
}

// fileSum is a hashed file's git blob id and sha256.
type fileSum struct {
	id     Hash
	sha256 [32]byte
}

// stamp is the file's stamp as the scan (or the hash) saw it. A clean
// file's is read from its base entry: code that changes base entries'
// stamps in place (restamp) reads the files' stamps first.
func (f *diskFile) stamp() fastio.Stamp {
	if f.st != nil {
		return *f.st
	}
	return f.vouched.Stamp
}

// id is the file's git blob id: zero until it is hashed or vouched for.
func (f *diskFile) id() Hash {
	switch {
	case f.sum != nil:
		return f.sum.id
	case f.vouched != nil:
		return f.vouched.ID
	}
	return Hash{}
}

// sha256 is the file's content sha256, like id.
func (f *diskFile) sha256() [32]byte {
	switch {
	case f.sum != nil:
		return f.sum.sha256
	case f.vouched != nil:
		return f.vouched.SHA256
	}
	return [32]byte{}
}

// snapshot is what a scan saw of a checkout: its listing in fs.WalkDir
// order (for ICM validation), its regular files matched against the
// checkout's base, and the open root to read them through.
type snapshot struct {
	dir     beneath     // the checkout's folder, which its files open through
	listing []icm.Entry // every entry but the root, in fs.WalkDir order
	files   []*diskFile // every regular file, in listing order
	seen    []bool      // per base file: found on disk
	matched int         // how many files were found in the base
	bytes   int64       // the files' total size
	// dirs is every folder's stamp and raw listing, for the next stat
	// cache; relisted says a folder other than the root (which holds the
	// manifest and cache themselves) had to be read again.
	dirs     map[string]*statcache.Dir
	relisted bool
	fresh    map[string]*statcache.Dir // the folders listed from disk
	scanned  int64                     // when the scan began (ns)
	ignored  int                       // entries .gitignore rules left out
	facts    scannedFacts              // Markdown facts read by the scan (scanFilter.facts)
}

// dirScan is one listed folder; its subfolders' scans are children, in
// listing order.
type dirScan struct {
	rel string // slash path, "." for the root
	// order is the folder's entries' kinds in name order (entryFile: the
	// next of files; entryDir: the next of children; entryOther: the next
	// of others): collect builds the snapshot's listing from them, where
	// a listing of its own per folder was 24 bytes an entry copied once
	// more (~270 KB of fresh memory per 10k-file scan).
	order    []entryKind
	others   []icm.Entry // entries neither a regular file nor a folder
	files    []diskFile
	children []*dirScan
	matched  int
	bytes    int64
	stamp    fastio.Stamp    // the folder's own
	raw      []fastio.Dirent // its listing, before .git and tv's files are skipped
	listed   bool            // read from disk, not from the cache
	facts    []pathFacts     // its Markdown files' facts, read by the scan (scanFilter.facts)
}

// entryKind is what an entry of a scanned folder is (dirScan.order).
type entryKind uint8

const (
	entryFile entryKind = iota
	entryDir
	entryOther
)

// scanCheckout lists dir without following symlinks, in parallel, and
// matches every regular file against the base b: its index there, and
// whether the stat cache vouches for its content. It skips tv's own
// metadata and any .git folder (a checkout may itself be kept in git;
// .git is never part of a workspace), and what filter leaves out (nil:
// nothing).
func scanCheckout(dir string, b *statcache.Cache, filter *scanFilter) (*snapshot, error) {
	return scanCheckoutAs(dir, b, filter, true)
}

// scanCheckoutAs is scanCheckout; without listing the snapshot holds no
// listing (nil), only the files: a scan that validates nothing (diff,
// update) spares building it (10k entries at 10k files).
func scanCheckoutAs(dir string, b *statcache.Cache, filter *scanFilter, listing bool) (*snapshot, error) {
	dir = filepath.Clean(dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	s := &snapshot{dir: newBeneath(root), seen: make([]bool, len(b.Files)), scanned: time.Now().UnixNano()}
	top := &dirScan{rel: "."}
	q := &scanQueue{todo: []*dirScan{top}, pending: 1}
	q.cond.L = &q.mu
	var wg sync.WaitGroup
	// A folder's stats and reads are raw system calls, which keep their
	// processor while the kernel works: a worker more than there are
	// processors never runs beside the others, it only adds hand-offs
	// (walk-test of 1k and 10k files ~4% slower with 8 workers on 2).
	for range min(ScanWorkers, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stackgrow.To8K() // a folder listing's depth
			for d := q.next(); d != nil; d = q.next() {
				q.done(d.children, readDirStat(dir, d, b, s.seen, filter))
			}
		}()
	}
	wg.Wait()
	if q.err == nil {
		q.err = filter.err()
	}
	if q.err != nil {
		s.close()
		return nil, q.err
	}
	s.collect(top, listing)
	if filter != nil {
		s.ignored = int(filter.ignored.Load())
	}
	return s, nil
}

// scanQueue hands folders to the scan's workers: a fixed pool, not a
// goroutine per folder (a tree of 1,000+ folders would otherwise hold as
// many stacks).
type scanQueue struct {
	mu      sync.Mutex
	cond    sync.Cond
	todo    []*dirScan
	pending int // folders queued or being listed
	err     error
}

// next returns a folder to list, or nil when the scan is over.
func (q *scanQueue) next() *dirScan {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.todo) == 0 && q.pending > 0 && q.err == nil {
		q.cond.Wait()
	}
	if len(q.todo) == 0 || q.err != nil {
		return nil
	}
	d := q.todo[len(q.todo)-1]
	q.todo = q.todo[:len(q.todo)-1]
	return d
}

// done records a listed folder: its subfolders are queued, or err ends
// the scan.
func (q *scanQueue) done(children []*dirScan, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending--
	if err != nil && q.err == nil {
		q.err = err
	}
	if q.err == nil {
		q.todo = append(q.todo, children...)
		q.pending += len(children)
	}
	if q.err != nil || q.pending == 0 {
		q.cond.Broadcast() // the scan is over: every worker returns
		return
	}
	for range children {
		q.cond.Signal() // one worker per folder queued, not all of them
	}
}

// collect appends d's files and, with listing, its entries, depth first,
// to the snapshot.
func (s *snapshot) collect(d *dirScan, listing bool) {
	if d.rel == "." {
		n, nf, nfacts := 0, 0, 0
		var count func(d *dirScan)
		count = func(d *dirScan) {
			n += len(d.order)
			nf += len(d.files)
			nfacts += len(d.facts)
			for _, c := range d.children {
				count(c)
			}
		}
		count(d)
		if listing {
			s.listing = make([]icm.Entry, 0, n)
		}
		s.files = make([]*diskFile, 0, nf)
		if nfacts > 0 {
			s.facts = make(scannedFacts, 0, nfacts)
			defer func() { s.facts.sort() }() // once every folder is in
		}
	}
	if d.rel == "." {
		s.dirs = make(map[string]*statcache.Dir)
	}
	cd := &statcache.Dir{Stamp: d.stamp, Entries: d.raw}
	s.dirs[d.rel] = cd
	if d.listed {
		if s.fresh == nil {
			s.fresh = map[string]*statcache.Dir{}
		}
		s.fresh[d.rel] = cd
		s.relisted = s.relisted || d.rel != "."
	}
	s.matched += d.matched
	s.bytes += d.bytes
	s.facts = append(s.facts, d.facts...)
	k, f, o := 0, 0, 0
	for _, kind := range d.order {
		switch kind {
		case entryDir:
			kid := d.children[k]
			if listing {
				s.listing = append(s.listing, icm.Entry{Path: kid.rel, Type: fs.ModeDir})
			}
			s.collect(kid, listing)
			k++
		case entryFile:
			if listing {
				s.listing = append(s.listing, icm.Entry{Path: d.files[f].path})
			}
			s.files = append(s.files, &d.files[f])
			f++
		default:
			if listing {
				s.listing = append(s.listing, d.others[o])
			}
			o++
		}
	}
}

// readDirStat lists folder d and lstats its regular files relative to the
// open folder (one fstatat per file, no path walk), matching each against
// the base b and marking it in seen. Entries come sorted by name. A folder
// whose stamp is the one the cache saw is not read again.
func readDirStat(dir string, d *dirScan, b *statcache.Cache, seen []bool, filter *scanFilter) error {
	abs := dir // clean (scanCheckout)
	if d.rel != "." {
		abs = dir + string(filepath.Separator) + filepath.FromSlash(d.rel)
	}
	l, err := fastio.OpenLister(abs, d.rel == ".")
	if err != nil {
		return err
	}
	defer l.Close()
	if d.stamp, err = l.Stat(); err != nil {
		return err
	}
	all := b.Listing(d.rel, d.stamp)
	if all == nil {
		if all, err = l.Entries(nil); err != nil {
			return err
		}
		d.listed = true
	}
	d.raw = all
	filter.sawListing(d.rel, all)
	prefix := ""
	if d.rel != "." {
		prefix = d.rel + "/"
	}
	// Each entry's slash path: a file the base holds takes the base's own
	// string (no copy per file of an unchanged tree); the others are cut
	// from one string built for them.
	// The listing is sorted by name and the base's entries below the
	// folder by path: a name found at k leaves only the entries after k
	// to the names after it, and the next name is most often the next
	// entry itself (an unchanged folder), found without a search.
	lo, hi := b.Under(prefix)
	inBase := make([]int32, len(all))
	var size, nreg, ndir int
	for i, e := range all {
		inBase[i] = -1
		switch {
		case e.Type.IsRegular():
			nreg++
			k := -1
			if lo < hi && b.Files[lo].Path[len(prefix):] == e.Name {
				k = lo
			} else {
				k = b.FindIn(lo, hi, prefix, e.Name)
			}
			if k >= 0 {
				inBase[i], lo = int32(k), k+1
			}
		case e.Type.IsDir():
			ndir++
		}
		if inBase[i] < 0 {
			size += len(prefix) + len(e.Name)
		}
	}
	var pb strings.Builder
	pb.Grow(size)
	for i, e := range all {
		if inBase[i] < 0 {
			pb.WriteString(prefix)
			pb.WriteString(e.Name)
		}
	}
	paths := pb.String()
	d.order = make([]entryKind, 0, len(all))
	d.files = make([]diskFile, 0, nreg) // one allocation for the folder's files
	// The stamps of the folder's files the cache does not vouch for, in one
	// allocation made at the first of them.
	var stamps []fastio.Stamp
	var mdBuf []byte // stampFile's, for the folder's Markdown files
	kids := make([]dirScan, ndir)
	off := 0
	for i, e := range all {
		var p string
		if inBase[i] >= 0 {
			p = b.Files[inBase[i]].Path
		} else {
			p = paths[off : off+len(prefix)+len(e.Name)]
			off += len(p)
		}
		if e.Name == ".git" || (d.rel == "." && isReserved(p)) {
			if e.Name == ".git" && d.rel != "." {
				filter.nestedGit(d.rel)
			}
			continue
		}
		t := e.Type
		if filter != nil && filter.skip(p, t.IsDir(), inBase[i] >= 0 || tracks(b, p, t)) {
			continue
		}
		switch {
		case t.IsDir():
			kid := &kids[len(d.children)]
			kid.rel = p
			d.children = append(d.children, kid)
		case t.IsRegular():
			st, err := stampFile(l, d, e.Name, p, filter, &mdBuf)
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while scanning
			}
			if err != nil {
				return err
			}
			if t = fs.FileMode(st.Mode).Type(); t.IsRegular() {
				d.files = append(d.files, matchFile(p, int(inBase[i]), st, b, seen))
				f := &d.files[len(d.files)-1]
				if !f.clean && !filter.keepsNoStamps() {
					if len(stamps) == cap(stamps) {
						stamps = make([]fastio.Stamp, 0, nreg-len(d.files)+1)
					}
					stamps = append(stamps, st) // never moves: within its capacity
					f.st = &stamps[len(stamps)-1]
				}
				d.bytes += st.Size
				if f.base >= 0 {
					d.matched++
				}
			}
		}
		switch {
		case t.IsDir():
			d.order = append(d.order, entryDir)
		case t.IsRegular():
			d.order = append(d.order, entryFile)
		default:
			d.order = append(d.order, entryOther)
			d.others = append(d.others, icm.Entry{Path: p, Type: t})
		}
	}
	return nil
}

// tracks reports whether base b holds entry p of type t (not a regular
// file: those the scan looks up as it lists them): a file, or a folder
// with a file in it.
func tracks(b *statcache.Cache, p string, t fs.FileMode) bool {
	switch {
	case t.IsRegular():
		return false
	case t.IsDir():
		return b.HasUnder(p)
	}
	return b.Lookup(p) >= 0
}

// stampFile stamps the regular file name of folder d (slash path p). With
// filter.facts, a Markdown file is read as it is stamped (one open, fstat
// and read in the open folder) and its facts kept in d.facts; one that
// cannot be opened so is lstat'ed, and its facts left to the validator,
// which reads it and reports what stopped it. buf is the folder's read
// buffer.
func stampFile(l *fastio.Lister, d *dirScan, name, p string, filter *scanFilter, buf *[]byte) (fastio.Stamp, error) {
	if filter == nil || !filter.facts || !icm.IsMarkdown(name) {
		return l.Lstat(name)
	}
	st, data, err := l.StatRead(name, icm.MaxMarkdownBytes, *buf)
	if err != nil {
		return l.Lstat(name)
	}
	if fs.FileMode(st.Mode).IsRegular() {
		noteOpen(p)
		*buf = data[:0]
		truncated := len(data) > icm.MaxMarkdownBytes
		if truncated {
			data = data[:icm.MaxMarkdownBytes]
		}
		d.facts = append(d.facts, pathFacts{path: p, facts: icm.FactsOf(data, truncated)})
	}
	return st, nil
}

// pathFacts is a Markdown file's facts, read by the scan.
type pathFacts struct {
	path  string
	facts icm.MarkdownFacts
}

// matchFile is the scanned regular file p, which is b.Files[i] (i < 0:
// the base has no such file). A file that is not clean is left without
// its stamp (diskFile.st), which the caller keeps.
func matchFile(p string, i int, st fastio.Stamp, b *statcache.Cache, seen []bool) diskFile {
	f := diskFile{path: p, mode: modeOf(fs.FileMode(st.Mode)), base: -1}
	if i >= 0 {
		f.base = int32(i)
		seen[i] = true
		if be := &b.Files[i]; b.Clean(be, st, uint32(f.mode)) {
			f.vouched, f.clean = be, true
		}
	}
	return f
}

func (s *snapshot) close() {
	s.dir.close()
}

// hashFiles computes git blob ids and sha256 of the given files in
// parallel, reading each through the root without following symlinks.
func (s *snapshot) hashFiles(files []*diskFile) error {
	if len(files) == 0 {
		return nil
	}
	workers := min(ScanWorkers, len(files))
	jobs := make(chan *diskFile)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, hashBufferBytes)
			for f := range jobs {
				if err := s.hashOne(f, buf); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func (s *snapshot) hashOne(f *diskFile, buf []byte) error {
	fh, st, err := s.openRead(f.path)
	if err != nil {
		return fmt.Errorf("read %s: %w", f.path, err)
	}
	defer fh.Close()
	if !fs.FileMode(st.Mode).IsRegular() {
		return fmt.Errorf("%w: %s is no longer a regular file", ErrConflict, f.path)
	}
	if st.Size > MaxFileBytes {
		return fmt.Errorf("%w: %s is %d bytes, over the %d-byte (%d MiB) per-file limit", ErrRefused, f.path, st.Size, MaxFileBytes, MaxFileBytes>>20)
	}
	h1, h2 := blobHasher(st.Size), sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(h1, h2), io.LimitReader(fh, st.Size+1), buf)
	if err != nil {
		return fmt.Errorf("read %s: %w", f.path, err)
	}
	if n != st.Size {
		return fmt.Errorf("%w: %s changed size while it was read; run again", ErrConflict, f.path)
	}
	if f.st == nil {
		f.st = new(fastio.Stamp)
	}
	*f.st = st
	sum := &fileSum{}
	h1.Sum(sum.id[:0])
	h2.Sum(sum.sha256[:0])
	f.sum = sum
	return nil
}

// openRead opens the file at slash path p for reading, never following a
// symlink, and stats it: in one openat2 where the kernel has it, else
// through the root.
func (s *snapshot) openRead(p string) (io.ReadCloser, fastio.Stamp, error) {
	noteOpen(p)
	return s.dir.openRead(p)
}

// hashBufferBytes is each hashing worker's read buffer.
const hashBufferBytes = 256 << 10

// blobHasher returns a SHA-1 primed with git's blob header.
func blobHasher(size int64) hash.Hash {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	return h
}

// FS returns the snapshot as an fs.FS for ICM validation, which opens
// only the regular files of the listing: it opens files without following
// a symlink and refuses anything but a regular file.
func (s *snapshot) FS() fs.FS { return snapshotFS{s} }

type snapshotFS struct{ s *snapshot }

func (f snapshotFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	noteOpen(name)
	return f.s.dir.openRegular(name)
}

// statFile is a fastio.File that answers Stat from the stamp taken at open.
type statFile struct {
	*fastio.File
	info stampInfo
}

func (f *statFile) Stat() (fs.FileInfo, error) { return f.info, nil }

// stampInfo is the fs.FileInfo of a stamp.
type stampInfo struct {
	name string
	st   fastio.Stamp
}

func (i stampInfo) Name() string       { return i.name }
func (i stampInfo) Size() int64        { return i.st.Size }
func (i stampInfo) Mode() fs.FileMode  { return fs.FileMode(i.st.Mode) }
func (i stampInfo) ModTime() time.Time { return time.Unix(0, i.st.Mtime) }
func (i stampInfo) IsDir() bool        { return false }
func (i stampInfo) Sys() any           { return nil }
