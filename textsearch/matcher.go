package textsearch

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// How a lineMatcher finds matching lines.
const (
	modeLiteral   = iota // bytes.Index for a fixed string; every hit is a match
	modePrefilter        // bytes.Index for required literals, then the regexp on that line
	modeWhole            // a line-safe rewrite of the regexp run over the whole buffer
	modePerLine          // the regexp run on each line (fallback of the fallback)
	modeClassSeq         // a scan for the leading byte classes, then the regexp anchored there
)

// lineMatcher matches a pattern against lines (grep semantics: the
// pattern is applied to each line without its "\n"; ^ and $ are the line's
// start and end).
type lineMatcher struct {
	mode  int
	lit   []byte         // modeLiteral
	never bool           // modeLiteral: no line can match (the literal holds "\n")
	re    *regexp.Regexp // the regexp as given, applied to one line
	lits  [][]byte       // modePrefilter: every match contains one of these
	whole *regexp.Regexp // modeWhole
	seq   *classSeq      // modeClassSeq

	litF  *litFinder   // finder for lit (set by init)
	litFs []*litFinder // finders for lits (set by init)
}

// init prepares the literal finders; it returns m.
func (m *lineMatcher) init() *lineMatcher {
	m.litF = newLitFinder(m.lit)
	m.litFs = make([]*litFinder, len(m.lits))
	for i, l := range m.lits {
		m.litFs[i] = newLitFinder(l)
	}
	return m
}

// compileMatcher validates and compiles a pattern.
func compileMatcher(pattern string, fixed bool) (*lineMatcher, error) {
	if len(pattern) > MaxPatternBytes {
		return nil, fmt.Errorf("%w: pattern is %d bytes, the limit is %d bytes (MaxPatternBytes)", ErrBadPattern, len(pattern), MaxPatternBytes)
	}
	if fixed {
		return (&lineMatcher{mode: modeLiteral, lit: []byte(pattern), never: strings.Contains(pattern, "\n")}).init(), nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPattern, err)
	}
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil { // cannot happen: regexp.Compile accepted it
		return nil, fmt.Errorf("%w: %v", ErrBadPattern, err)
	}
	parsed = parsed.Simplify()
	switch {
	case parsed.Op == syntax.OpLiteral && parsed.Flags&syntax.FoldCase == 0:
		// A plain string (regexp.LiteralPrefix is not used: it calls
		// \Aab\z "complete").
		lit := string(parsed.Rune)
		return (&lineMatcher{mode: modeLiteral, lit: []byte(lit), never: strings.Contains(lit, "\n"), re: re}).init(), nil
	case parsed.Op == syntax.OpEmptyMatch:
		return (&lineMatcher{mode: modeLiteral, re: re}).init(), nil // every line
	}
	m := &lineMatcher{re: re}
	if lits := requiredLiterals(parsed); lits != nil {
		m.mode = modePrefilter
		for _, l := range lits {
			m.lits = append(m.lits, []byte(l))
		}
		return m.init(), nil
	}
	m.mode = modePerLine
	if anchoredAtStart(parsed) {
		// Per line, an anchored regexp fails fast on each line; over the
		// whole buffer Go's regexp would step through every byte.
		return m, nil
	}
	safe := lineSafe(parsed)
	if seq := newClassSeq(safe); seq != nil {
		m.mode, m.seq = modeClassSeq, seq
		return m, nil
	}
	if w, err := regexp.Compile(safe.String()); err == nil {
		m.mode, m.whole = modeWhole, w
	}
	return m, nil
}

// anchoredAtStart reports whether every match of re starts at ^ or \A.
func anchoredAtStart(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText:
		return true
	case syntax.OpCapture:
		return anchoredAtStart(re.Sub[0])
	case syntax.OpConcat:
		return len(re.Sub) > 0 && anchoredAtStart(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !anchoredAtStart(s) {
				return false
			}
		}
		return true
	}
	return false
}

// lineSafe rewrites re (in place) so that no match can span a "\n" and
// text anchors become line anchors. Over a whole buffer it then finds
// exactly the lines where the original matches the line alone.
func lineSafe(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
		re.Flags &^= syntax.WasDollar
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				re.Op, re.Rune, re.Flags = syntax.OpNoMatch, nil, 0
				break
			}
		}
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		if len(out) == 0 {
			re.Op, re.Rune = syntax.OpNoMatch, nil
		} else {
			re.Rune = out
		}
	}
	for _, s := range re.Sub {
		lineSafe(s)
	}
	return re
}

// finder walks the matching lines of one buffer in order.
type finder struct {
	m    *lineMatcher
	data []byte
	next []int // modePrefilter: next occurrence of each literal at or after pos; -1 none
	pos  []int // modePrefilter: where next[i] was searched from
}

func newFinder(m *lineMatcher, data []byte) *finder {
	f := &finder{m: m, data: data}
	if m.mode == modePrefilter {
		f.next = make([]int, len(m.lits))
		f.pos = make([]int, len(m.lits))
		for i := range f.pos {
			f.pos[i] = -1
		}
	}
	return f
}

// lineBounds returns the start and end (excluding "\n") of the line
// holding offset i, searching back no further than from.
func lineBounds(data []byte, from, i int) (start, end int) {
	start = bytes.LastIndexByte(data[from:i], '\n') + 1 + from
	end = bytes.IndexByte(data[i:], '\n')
	if end < 0 {
		end = len(data)
	} else {
		end += i
	}
	return start, end
}

// nextMatch returns the first matching line that starts at or after pos,
// which must be a line start: its bounds and the 1-based byte column of
// the first match in it.
func (f *finder) nextMatch(pos int) (start, end, col int, ok bool) {
	data := f.data
	m := f.m
	switch m.mode {
	case modeLiteral:
		if m.never || pos >= len(data) {
			return 0, 0, 0, false
		}
		i := m.litF.index(data[pos:])
		if i < 0 {
			return 0, 0, 0, false
		}
		i += pos
		start, end = lineBounds(data, pos, i)
		return start, end, i - start + 1, true
	case modePrefilter:
		for pos < len(data) {
			best := -1
			for k, lit := range m.litFs {
				if f.pos[k] < 0 || (f.next[k] >= 0 && f.next[k] < pos) || (f.next[k] < 0 && f.pos[k] > pos) {
					// (re)search: never searched, stale, or searched from a later point
					j := lit.index(data[pos:])
					if j >= 0 {
						j += pos
					}
					f.next[k], f.pos[k] = j, pos
				}
				if n := f.next[k]; n >= 0 && (best < 0 || n < best) {
					best = n
				}
			}
			if best < 0 {
				return 0, 0, 0, false
			}
			start, end = lineBounds(data, pos, best)
			if loc := m.re.FindIndex(data[start:end]); loc != nil {
				return start, end, loc[0] + 1, true
			}
			pos = end + 1
		}
		return 0, 0, 0, false
	case modeWhole:
		if pos > len(data) || (pos == len(data) && (pos == 0 || data[pos-1] == '\n')) {
			return 0, 0, 0, false
		}
		loc := m.whole.FindIndex(data[pos:])
		if loc == nil {
			return 0, 0, 0, false
		}
		i := pos + loc[0]
		if i == len(data) && (i == 0 || data[i-1] == '\n') {
			return 0, 0, 0, false // the empty "line" after a final newline
		}
		start, end = lineBounds(data, pos, i)
		return start, end, i - start + 1, true
	case modeClassSeq:
		i, start, end := m.seq.next(data, pos)
		if i < 0 {
			return 0, 0, 0, false
		}
		return start, end, i - start + 1, true
	default: // modePerLine
		for pos < len(data) {
			end = bytes.IndexByte(data[pos:], '\n')
			if end < 0 {
				end = len(data)
			} else {
				end += pos
			}
			if loc := m.re.FindIndex(data[pos:end]); loc != nil {
				return pos, end, loc[0] + 1, true
			}
			pos = end + 1
		}
		return 0, 0, 0, false
	}
}
