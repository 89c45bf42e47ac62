package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/thalix/tv/icm"
)

// Reading the Markdown files of a tree is most of what `tv check` does
// beyond the lstat per file that git status also makes. The validator
// reads them one after the other; readFactsAhead reads them first, on
// every core, each with one open, stat and read, and hands the validator
// their facts.

// aheadFacts is an icm.FactCache of facts read ahead of the validation,
// by listing index; a file read ahead with an error is left to the
// validator, which then reads it itself and reports the error as it
// would have.
type aheadFacts struct {
	facts []icm.MarkdownFacts
	known []bool
}

func (a *aheadFacts) Facts(i int, p string) (icm.MarkdownFacts, bool) {
	if i < 0 || i >= len(a.known) || !a.known[i] {
		return icm.MarkdownFacts{}, false
	}
	return a.facts[i], true
}

func (a *aheadFacts) Learned(int, string, []byte, icm.MarkdownFacts) {}

// readFactsAhead reads the facts of every Markdown file of listing in
// parallel (at most ScanWorkers reads at a time, one per core or more).
func (s *snapshot) readFactsAhead(listing []icm.Entry) *aheadFacts {
	a := &aheadFacts{facts: make([]icm.MarkdownFacts, len(listing)), known: make([]bool, len(listing))}
	var next atomic.Int64
	workers := min(ScanWorkers, max(2, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				i := int(next.Add(1) - 1)
				if i >= len(listing) {
					return
				}
				e := listing[i]
				if !e.Type.IsRegular() || !icm.IsMarkdown(e.Path) {
					continue
				}
				data, truncated, err := s.readMarkdown(e.Path, buf)
				if err != nil {
					continue
				}
				buf = data[:0]
				a.facts[i], a.known[i] = icm.FactsOf(data, truncated), true
			}
		}()
	}
	wg.Wait()
	return a
}

// readMarkdown reads at most icm.MaxMarkdownBytes of the regular file at
// slash path p into buf (grown as needed); truncated says there was more.
func (s *snapshot) readMarkdown(p string, buf []byte) (data []byte, truncated bool, err error) {
	f, st, err := s.openRead(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if !fs.FileMode(st.Mode).IsRegular() {
		return nil, false, fmt.Errorf("%w: %s is no longer a regular file", ErrConflict, p)
	}
	const limit = icm.MaxMarkdownBytes + 1
	want := limit
	if st.Size >= 0 && st.Size < limit {
		want = int(st.Size) + 1
	}
	if cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, false, err
		}
		if n == 0 || int64(len(buf)) == st.Size && len(buf) < limit {
			// All the bytes the stat counted: the file ends here (a
			// file growing meanwhile is read as it was when stat'ed).
			break
		}
	}
	if len(buf) > icm.MaxMarkdownBytes {
		return buf[:icm.MaxMarkdownBytes], true, nil
	}
	return buf, false, nil
}
