package textsearch

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// A pattern with no required literal but a fixed-width start, such as
// [0-9]{9}[a-f]{3}, begins every match with the same sequence of ASCII
// byte classes. modeClassSeq scans for that sequence with one table
// lookup per byte and tries the regexp, anchored, only where the whole
// sequence is present: Go's regexp over the whole buffer steps its
// machine through every byte, several times slower than the scan.

// maxClassSeq bounds how many leading classes the scan checks.
const maxClassSeq = 16

// minClassSeq is the shortest leading sequence worth the scan: with a
// single class nearly every byte of text is a candidate.
const minClassSeq = 2

// classSeq is the leading byte classes of a pattern and the pattern
// anchored at a candidate start.
type classSeq struct {
	tables   [][256]bool
	anchored *regexp.Regexp
}

// leadingClasses returns the tables of the ASCII single-byte classes or
// literals a match of re (simplified and line-safe) must begin with, in
// order, up to maxClassSeq.
func leadingClasses(re *syntax.Regexp) [][256]bool {
	var out [][256]bool
	appendClasses(&out, re)
	return out
}

// appendClasses appends re's leading classes to out and reports whether
// all of re is such a sequence (so what follows it may continue it).
func appendClasses(out *[][256]bool, re *syntax.Regexp) bool {
	if len(*out) == maxClassSeq {
		return false
	}
	switch re.Op {
	case syntax.OpCapture:
		return appendClasses(out, re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !appendClasses(out, s) {
				return false
			}
		}
		return true
	case syntax.OpCharClass:
		t, ok := asciiClass(re.Rune)
		if ok {
			*out = append(*out, t)
		}
		return ok
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return false
		}
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf || len(*out) == maxClassSeq {
				return false
			}
			var t [256]bool
			t[r] = true
			*out = append(*out, t)
		}
		return true
	}
	return false // a repeat, an assertion, an alternation: the fixed start ends
}

// asciiClass is the byte table of a class holding only ASCII runes.
func asciiClass(ranges []rune) ([256]bool, bool) {
	var t [256]bool
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if hi >= utf8.RuneSelf {
			return t, false
		}
		for r := lo; r <= hi; r++ {
			t[r] = true
		}
	}
	return t, true
}

// maxCandidateRate is the largest estimated share of text positions
// where the leading classes may all match for the scan to be chosen: at
// each candidate the regexp runs, which costs more than Go's regexp
// stepping over those bytes.
const maxCandidateRate = 1e-4

// byteShare is a rough share of each byte in source code and prose: a
// lowercase letter 2.5 %, an uppercase one 0.3 %, a digit 0.4 %, a space
// 15 %, tab and newline 3 %, other ASCII 0.5 %, the rest 0.05 %.
func byteShare(b byte) float64 {
	switch {
	case 'a' <= b && b <= 'z':
		return 0.025
	case 'A' <= b && b <= 'Z':
		return 0.003
	case '0' <= b && b <= '9':
		return 0.004
	case b == ' ':
		return 0.15
	case b == '\t' || b == '\n':
		return 0.03
	case b < utf8.RuneSelf:
		return 0.005
	}
	return 0.0005
}

// candidateRate estimates the share of text positions where every one of
// the leading classes matches.
func candidateRate(tables [][256]bool) float64 {
	rate := 1.0
	for i := range tables {
		var p float64
		for b, in := range tables[i] {
			if in {
				p += byteShare(byte(b))
			}
		}
		rate *= min(p, 1)
	}
	return rate
}

// newClassSeq returns the scan of pattern's leading classes, or nil when
// it has fewer than minClassSeq of them or they would match too often.
// parsed is the simplified, line-safe pattern.
func newClassSeq(parsed *syntax.Regexp) *classSeq {
	tables := leadingClasses(parsed)
	if len(tables) < minClassSeq || candidateRate(tables) > maxCandidateRate {
		return nil
	}
	anchored, err := regexp.Compile(`\A(?:` + parsed.String() + `)`)
	if err != nil {
		return nil
	}
	return &classSeq{tables: tables, anchored: anchored}
}

// next returns the first offset at or after pos where the whole sequence
// of classes is present and the anchored pattern matches within the line
// (end is the end of that line), or -1.
func (c *classSeq) next(data []byte, pos int) (i, start, end int) {
	k := len(c.tables)
	first := &c.tables[0]
	lineStart := pos
	for i = pos; i+k <= len(data); i++ {
		b := data[i]
		if !first[b] {
			if b == '\n' {
				lineStart = i + 1
			}
			continue
		}
		j := 1
		for j < k && c.tables[j][data[i+j]] {
			j++
		}
		if j < k {
			continue
		}
		start, end = lineBounds(data, lineStart, i)
		if c.anchored.Match(data[i:end]) {
			return i, start, end
		}
	}
	return -1, 0, 0
}
