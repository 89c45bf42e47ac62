package textsearch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/thalix/tv/ignore"
)

// Errors Search returns (wrapped with details); match them with errors.Is.
// A start path that does not exist yields an error matching fs.ErrNotExist.
var (
	// ErrBadPattern: the pattern is over MaxPatternBytes or is not a valid
	// RE2 regular expression.
	ErrBadPattern = errors.New("bad search pattern")
	// ErrBadOptions: Context, Limit or a cap is out of range.
	ErrBadOptions = errors.New("bad search options")
	// ErrBadPath: the start path is not a clean relative path inside the
	// root, goes through a symlink, or is neither a directory nor a
	// regular file.
	ErrBadPath = errors.New("bad search path")
)

// Stop reasons reported in Result.Stopped.
const (
	StopMatchLimit = "match_limit" // more matches exist than Options.Limit
	StopFileCap    = "file_cap"    // more files exist than Options.MaxFiles
	StopByteCap    = "byte_cap"    // more content exists than Options.MaxBytes
	StopOutputCap  = "output_cap"  // the next match would exceed Options.MaxOutputBytes
)

// Options configures one Search.
type Options struct {
	// Pattern is an RE2 regular expression (Go regexp syntax), or a literal
	// string when Fixed is set. It is matched against each line without its
	// line terminator, so ^ and $ anchor at line start and end, and a match
	// never spans lines (a pattern that can only match a "\n" finds nothing).
	Pattern string
	// Fixed makes Pattern a literal string.
	Fixed bool
	// Context is the number of lines of context before and after each
	// match, 0..MaxContext.
	Context int
	// Limit is the most matches returned, 1..MaxLimit (0 means DefaultLimit).
	Limit int
	// Ignore, if not nil, decides which paths are skipped (a skipped
	// directory is not entered). It is also asked about the start path.
	Ignore *ignore.Matcher
	// MaxFiles caps the files scanned (0 = MaxFiles; larger values are
	// lowered to MaxFiles).
	MaxFiles int
	// MaxBytes caps the file content scanned (0 = MaxScanBytes; larger
	// values are lowered to MaxScanBytes).
	MaxBytes int64
	// MaxOutputBytes caps the returned text (0 = MaxOutputBytes; larger
	// values are lowered to MaxOutputBytes). It counts the bytes of each
	// match's Path, Text and context lines' Text.
	MaxOutputBytes int
}

// Line is one line of context.
type Line struct {
	// Number is the 1-based line number.
	Number int
	// Text is the line without its terminator ("\n" or "\r\n"), with
	// invalid UTF-8 replaced by U+FFFD and cut to MaxLineBytes.
	Text string
}

// Match is one matching line.
type Match struct {
	// Path is the file, slash-separated, relative to the root.
	Path string
	// Line is the 1-based line number.
	Line int
	// Column is the 1-based byte column of the first match in the line,
	// counted in the file's original bytes.
	Column int
	// Text is the line, as in Line.Text.
	Text string
	// Before and After are up to Options.Context lines around the match.
	// A line is reported once: lines already reported with the previous
	// match of the same file are not repeated in Before, and After stops
	// before the next reported match line.
	Before, After []Line
}

// Result is the outcome of a Search.
type Result struct {
	// Matches holds the matching lines sorted by Path (byte order) then
	// Line: the first Limit matches in that order of everything scanned,
	// whatever the parallelism.
	Matches []Match
	// FilesScanned counts the regular files examined (opened, or found
	// unreadable), binary ones included.
	FilesScanned int
	// BytesScanned counts the bytes of text content searched (binary files
	// excluded).
	BytesScanned int64
	// BinarySkipped counts files skipped as binary: a NUL byte within the
	// first BinarySniffBytes.
	BinarySkipped int
	// Stopped says why the search ended early: "" (it did not),
	// StopMatchLimit, StopFileCap, StopByteCap or StopOutputCap.
	Stopped string
}

// Search walks start (a slash path relative to root, "." for the root;
// a regular file searches just that file) and returns the matching lines.
//
// The walk never follows a symlink: symlinks, FIFOs, sockets and devices
// below start are skipped without being opened, and every directory and
// file is opened relative to its parent's descriptor with O_NOFOLLOW
// (a start path with a symlink component is refused with ErrBadPath).
// Paths that opts.Ignore ignores are skipped; if start itself is ignored,
// nothing is scanned. Files are visited in path order and searched in
// parallel; results are merged in order, so the result is deterministic.
// Unreadable files and directories are skipped silently. Files that
// contain a NUL byte in their first BinarySniffBytes are skipped as binary.
// The caps are applied in path order: the file that crosses the byte cap
// is searched up to its last complete line within the cap.
func Search(ctx context.Context, root *os.Root, start string, opts Options) (*Result, error) {
	s, err := newSearch(opts)
	if err != nil {
		return nil, err
	}
	start, err = cleanStart(start)
	if err != nil {
		return nil, err
	}
	res := &Result{Matches: []Match{}}
	dir, file, err := openStart(root, start)
	if err != nil {
		return nil, err
	}
	if s.ign != nil && start != "" && s.ign.Ignored(start, file == "") {
		dir.release()
		return res, nil
	}
	if err := s.run(ctx, dir, file, start, res); err != nil {
		return nil, err
	}
	return res, nil
}

// search is the state of one Search.
type search struct {
	m         *lineMatcher
	ctxLines  int
	limit     int
	maxFiles  int
	maxBytes  int64
	maxOutput int
	ign       *ignore.Matcher

	stopSeq atomic.Int64 // jobs after this sequence number are not needed
	big     chan []byte  // the one buffer for files over smallFileBytes
}

func newSearch(opts Options) (*search, error) {
	s := &search{ctxLines: opts.Context, limit: opts.Limit, ign: opts.Ignore}
	switch {
	case opts.Context < 0 || opts.Context > MaxContext:
		return nil, fmt.Errorf("%w: context %d is outside 0..%d", ErrBadOptions, opts.Context, MaxContext)
	case opts.Limit < 0 || opts.Limit > MaxLimit:
		return nil, fmt.Errorf("%w: limit %d is outside 1..%d", ErrBadOptions, opts.Limit, MaxLimit)
	case opts.MaxFiles < 0 || opts.MaxBytes < 0 || opts.MaxOutputBytes < 0:
		return nil, fmt.Errorf("%w: a negative cap", ErrBadOptions)
	}
	if s.limit == 0 {
		s.limit = DefaultLimit
	}
	s.maxFiles = capOr(opts.MaxFiles, MaxFiles)
	s.maxBytes = int64(capOr(int(opts.MaxBytes), MaxScanBytes))
	s.maxOutput = capOr(opts.MaxOutputBytes, MaxOutputBytes)
	m, err := compileMatcher(opts.Pattern, opts.Fixed)
	if err != nil {
		return nil, err
	}
	s.m = m
	s.stopSeq.Store(math.MaxInt64)
	s.big = make(chan []byte, 1)
	s.big <- nil
	return s, nil
}

func capOr(v, max int) int {
	if v == 0 || v > max {
		return max
	}
	return v
}

// cleanStart validates start and returns it as "" (the root) or "a/b".
func cleanStart(start string) (string, error) {
	c := path.Clean(strings.TrimSuffix(start, "/"))
	if start == "" || c == "." {
		return "", nil
	}
	if strings.ContainsAny(start, "\\\x00") || !fs.ValidPath(c) {
		return "", fmt.Errorf("%w: %q is not a slash-separated relative path inside the root", ErrBadPath, start)
	}
	return c, nil
}

// openStart opens the directory holding the search: for a directory
// start, the directory itself (file == ""); for a file, its parent and
// the file's name.
func openStart(root *os.Root, start string) (dir *dirRef, file string, err error) {
	d, err := openRootDir(root)
	if err != nil {
		return nil, "", err
	}
	if start == "" {
		return d, "", nil
	}
	parts := strings.Split(start, "/")
	for i, name := range parts {
		mode, err := d.lstat(name)
		if err != nil {
			d.release()
			return nil, "", err
		}
		last := i == len(parts)-1
		switch {
		case mode.IsDir():
			sub, err := d.sub(name)
			d.release()
			if err != nil {
				return nil, "", fmt.Errorf("%w: %s: %v", ErrBadPath, start, err)
			}
			d = sub
		case last && mode.IsRegular():
			return d, name, nil
		case mode&fs.ModeSymlink != 0:
			d.release()
			return nil, "", fmt.Errorf("%w: %s: %q is a symlink", ErrBadPath, start, strings.Join(parts[:i+1], "/"))
		default:
			d.release()
			return nil, "", fmt.Errorf("%w: %s: %q is not a directory or regular file", ErrBadPath, start, strings.Join(parts[:i+1], "/"))
		}
	}
	return d, "", nil
}

// job is one file for a worker, or the file-cap marker.
type job struct {
	seq     int64
	dir     *dirRef
	name    string
	path    string
	fileCap bool // no file: more than MaxFiles files exist
}

// fileResult is what a worker found in one file.
type fileResult struct {
	seq     int64
	path    string
	fileCap bool
	skipped bool  // not needed (past the stop point) or cancelled
	failed  bool  // could not be opened or read
	binary  bool  // NUL byte in the first BinarySniffBytes
	size    int64 // content size: bytes read if whole, else the size at open
	whole   bool  // the bytes read are the whole file
	matches []rawMatch
}

// rawMatch is a match with the offsets the merger needs for the byte cap.
type rawMatch struct {
	Match
	end      int64   // offset just past the line's "\n"; MaxInt64 if the line may be incomplete
	afterEnd []int64 // likewise for each After line
}

func (s *search) run(ctx context.Context, dir *dirRef, file, start string, res *Result) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// At most maxWorkers: each may hold a buffer of up to smallFileBytes.
	nworkers := min(max(2, runtime.GOMAXPROCS(0)), maxWorkers)
	// Files travel in batches: one channel operation (and goroutine
	// wake-up) per batch rather than per file.
	jobs := make(chan []job, 64)
	results := make(chan []*fileResult, 64)
	var wg sync.WaitGroup
	wg.Add(1 + nworkers)
	go func() {
		defer wg.Done()
		defer close(jobs)
		w := walker{s: s, ctx: ctx, jobs: jobs}
		if file != "" {
			w.emit(dir, file, start)
		} else {
			w.walk(dir, start)
		}
		w.flush()
		dir.release()
	}()
	for range nworkers {
		go func() {
			defer wg.Done()
			wk := newWorker(s)
			defer wk.done()
			for batch := range jobs {
				out := make([]*fileResult, len(batch))
				for i, j := range batch {
					out[i] = wk.process(ctx, j)
				}
				results <- out
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	mg := merger{s: s, res: res}
	pending := map[int64]*fileResult{}
	next := int64(0)
	stopped := false
	for batch := range results {
		if stopped {
			continue // drain
		}
		for _, r := range batch {
			pending[r.seq] = r
		}
		for !stopped {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if mg.add(r) {
				stopped = true
				s.stopSeq.Store(r.seq)
			}
		}
	}
	return ctx.Err()
}

// walker lists directories in path order and queues their files.
type walker struct {
	s     *search
	ctx   context.Context
	jobs  chan<- []job
	batch []job
	seq   int64
	files int
	done  bool
}

type entry struct {
	key  string // name, plus "/" for a directory: sorting keys sorts full paths
	name string
	dir  bool
}

func (w *walker) walk(d *dirRef, rel string) {
	des, err := d.list()
	if err != nil && len(des) == 0 {
		return
	}
	ents := make([]entry, 0, len(des))
	for _, de := range des {
		t := de.Type()
		switch {
		case t.IsDir():
			ents = append(ents, entry{key: de.Name() + "/", name: de.Name(), dir: true})
		case t.IsRegular():
			ents = append(ents, entry{key: de.Name(), name: de.Name()})
		}
		// symlinks, FIFOs, sockets and devices are skipped unopened
	}
	slices.SortFunc(ents, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	for _, e := range ents {
		if w.done || w.seq > w.s.stopSeq.Load() || w.ctx.Err() != nil {
			w.done = true
			return
		}
		p := e.name
		if rel != "" {
			p = rel + "/" + e.name
		}
		if w.s.ign != nil && w.s.ign.Ignored(p, e.dir) {
			continue
		}
		if e.dir {
			sub, err := d.sub(e.name)
			if err != nil {
				continue
			}
			w.walk(sub, p)
			sub.release()
			continue
		}
		w.emit(d, e.name, p)
	}
}

// batchSize is the most files sent to a worker at once.
const batchSize = 16

// emit queues one file (or the file-cap marker once the cap is reached).
func (w *walker) emit(d *dirRef, name, p string) {
	if w.done {
		return
	}
	j := job{seq: w.seq, dir: d, name: name, path: p}
	if w.files >= w.s.maxFiles {
		j = job{seq: w.seq, fileCap: true}
		w.done = true
	} else {
		d.acquire()
		w.files++
	}
	w.seq++
	w.batch = append(w.batch, j)
	if len(w.batch) >= batchSize {
		w.flush()
	}
}

// flush sends the pending batch.
func (w *walker) flush() {
	if len(w.batch) == 0 {
		return
	}
	select {
	case w.jobs <- w.batch:
	case <-w.ctx.Done():
		for _, j := range w.batch {
			if j.dir != nil {
				j.dir.release()
			}
		}
		w.done = true
	}
	w.batch = make([]job, 0, batchSize)
}

// Buffer sizes.
const (
	smallFileBytes = 1 << 20  // files up to this are read into the worker's own buffer
	firstReadBytes = 64 << 10 // the first read of every file; at least BinarySniffBytes
	maxWorkers     = 8        // parallel file readers per search
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// worker reads and searches files.
type worker struct {
	s   *search
	buf *[]byte
}

func newWorker(s *search) *worker { return &worker{s: s, buf: bufPool.Get().(*[]byte)} }

func (w *worker) done() { bufPool.Put(w.buf) }

func (w *worker) process(ctx context.Context, j job) *fileResult {
	r := &fileResult{seq: j.seq, path: j.path, fileCap: j.fileCap}
	if j.fileCap {
		return r
	}
	defer j.dir.release()
	if j.seq > w.s.stopSeq.Load() || ctx.Err() != nil {
		r.skipped = true
		return r
	}
	h, size, err := j.dir.openFile(j.name)
	if err != nil {
		r.failed = true
		return r
	}
	defer h.close()
	// Read the first chunk and decide "binary" before reading on: most
	// files fit in it (one read), and binary files cost one chunk only.
	want := int(min(size, w.s.maxBytes))
	first := min(want, firstReadBytes)
	if cap(*w.buf) < first {
		*w.buf = make([]byte, 0, firstReadBytes)
	}
	n, err := h.readFull((*w.buf)[:first])
	if err != nil {
		r.failed = true
		return r
	}
	data := (*w.buf)[:n]
	if isBinary(data) {
		r.binary = true
		return r
	}
	if n == first && want > first {
		var buf []byte
		if want <= smallFileBytes {
			if cap(*w.buf) < want {
				grown := make([]byte, 0, max(want, 2*cap(*w.buf)))
				*w.buf = append(grown, data...)
			}
			buf = (*w.buf)[:want]
		} else {
			// Large file: borrow the search's one big buffer.
			big := <-w.s.big
			defer func() { w.s.big <- big }()
			if cap(big) < want {
				big = make([]byte, 0, want)
			}
			buf = big[:want]
			copy(buf, data)
		}
		m, err := h.readFull(buf[n:])
		if err != nil {
			r.failed = true
			return r
		}
		data = buf[:n+m]
	}
	r.whole = len(data) < want || int64(len(data)) >= size
	if r.whole {
		r.size = int64(len(data))
	} else {
		r.size = size
	}
	r.matches = w.s.scan(data, r.whole, j.path)
	return r
}

func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), BinarySniffBytes)], 0) >= 0
}

// scan finds up to limit+1 matching lines in data.
func (s *search) scan(data []byte, whole bool, p string) []rawMatch {
	var out []rawMatch
	f := newFinder(s.m, data)
	pos := 0
	lineNo, counted := 1, 0 // line number of offset counted
	for len(out) <= s.limit {
		start, end, col, ok := f.nextMatch(pos)
		if !ok {
			break
		}
		lineNo += bytes.Count(data[counted:start], nl)
		counted = start
		rm := rawMatch{Match: Match{Path: p, Line: lineNo, Column: col, Text: lineText(data[start:end])}}
		rm.end = lineEndOffset(data, end, whole)
		if s.ctxLines > 0 {
			rm.Before = beforeLines(data, start, lineNo, s.ctxLines)
			rm.After, rm.afterEnd = afterLines(data, end, lineNo, s.ctxLines, whole)
		}
		out = append(out, rm)
		pos = end + 1
		if pos > len(data) {
			break
		}
	}
	return out
}

var nl = []byte{'\n'}

// lineEndOffset is the budget offset of a line ending at end (before its
// "\n"): just past the "\n", or the end of data if data is the whole file;
// a last line that may continue beyond what was read gets MaxInt64.
func lineEndOffset(data []byte, end int, whole bool) int64 {
	if end < len(data) {
		return int64(end + 1)
	}
	if whole {
		return int64(end)
	}
	return math.MaxInt64
}

func beforeLines(data []byte, start, lineNo, n int) []Line {
	var lines []Line
	for k := 1; k <= n && start > 0; k++ {
		e := start - 1 // the "\n" ending the previous line
		b := bytes.LastIndexByte(data[:e], '\n') + 1
		lines = append(lines, Line{Number: lineNo - k, Text: lineText(data[b:e])})
		start = b
	}
	slices.Reverse(lines)
	return lines
}

func afterLines(data []byte, end, lineNo, n int, whole bool) ([]Line, []int64) {
	var lines []Line
	var ends []int64
	for k := 1; k <= n && end+1 < len(data); k++ {
		b := end + 1
		e := bytes.IndexByte(data[b:], '\n')
		if e < 0 {
			e = len(data)
		} else {
			e += b
		}
		lines = append(lines, Line{Number: lineNo + k, Text: lineText(data[b:e])})
		ends = append(ends, lineEndOffset(data, e, whole))
		end = e
	}
	return lines, ends
}

// lineText converts a line for output: without a trailing "\r", cut to
// MaxLineBytes at a rune boundary, invalid UTF-8 replaced by U+FFFD.
func lineText(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) > MaxLineBytes {
		n := MaxLineBytes
		for n > 0 && n > MaxLineBytes-utf8.UTFMax && !utf8.RuneStart(b[n]) {
			n--
		}
		b = b[:n]
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// merger folds file results, in sequence order, into the Result.
type merger struct {
	s        *search
	res      *Result
	outBytes int
}

// add folds in one file's result; it reports true when the search stops.
func (mg *merger) add(r *fileResult) bool {
	s, res := mg.s, mg.res
	if r.skipped {
		return false // cannot happen before the stop point
	}
	if r.fileCap {
		res.Stopped = StopFileCap
		return true
	}
	res.FilesScanned++
	if r.failed {
		return false
	}
	if r.binary {
		res.BinarySkipped++
		return false
	}
	budget := s.maxBytes - res.BytesScanned
	crosses := r.size > budget
	if crosses {
		res.BytesScanned = s.maxBytes
	} else {
		res.BytesScanned += r.size
	}
	for i := range r.matches {
		rm := &r.matches[i]
		if crosses && rm.end > budget {
			break
		}
		if len(res.Matches) == s.limit {
			res.Stopped = StopMatchLimit
			return true
		}
		if crosses {
			for k, e := range rm.afterEnd {
				if e > budget {
					rm.After = rm.After[:k]
					break
				}
			}
		}
		if !mg.append(rm.Match) {
			res.Stopped = StopOutputCap
			return true
		}
	}
	if crosses {
		res.Stopped = StopByteCap
		return true
	}
	return false
}

// append adds m, trimming context already reported with the previous
// match of the same file; false if the output cap does not allow it.
func (mg *merger) append(m Match) bool {
	ms := mg.res.Matches
	saved := 0
	var prevAfter []Line
	if n := len(ms); n > 0 && ms[n-1].Path == m.Path {
		prev := &ms[n-1]
		prevAfter = prev.After
		for k, l := range prev.After {
			if l.Number >= m.Line {
				for _, d := range prev.After[k:] {
					saved += len(d.Text)
				}
				prevAfter = prev.After[:k]
				break
			}
		}
		last := prev.Line
		if len(prevAfter) > 0 {
			last = prevAfter[len(prevAfter)-1].Number
		}
		k := 0
		for k < len(m.Before) && m.Before[k].Number <= last {
			k++
		}
		m.Before = m.Before[k:]
	}
	cost := len(m.Path) + len(m.Text)
	for _, l := range m.Before {
		cost += len(l.Text)
	}
	for _, l := range m.After {
		cost += len(l.Text)
	}
	if mg.outBytes-saved+cost > mg.s.maxOutput {
		return false
	}
	if n := len(ms); n > 0 && ms[n-1].Path == m.Path {
		ms[n-1].After = prevAfter
	}
	mg.outBytes += cost - saved
	mg.res.Matches = append(ms, m)
	return true
}
