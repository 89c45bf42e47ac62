package textsearch

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// Literal extraction: from a parsed regexp, find a small set of literal
// strings such that every match of the regexp contains at least one of
// them. Files are then scanned for those literals with bytes.Index (SIMD
// accelerated) and the regexp runs only on the lines that contain one.

const (
	maxExactSet    = 16 // largest exact-string set tracked per node
	maxClassRunes  = 8  // largest character class expanded into strings
	maxRequiredSet = 8  // most alternatives the prefilter searches for
)

// litInfo describes what is known about the strings a node matches.
type litInfo struct {
	exact    []string // if isExact: the node matches exactly these strings
	isExact  bool
	required []string // if non-nil: every match contains one of these
}

// requiredLiterals returns literals one of which every match of re
// contains, or nil when no useful set is known. Sets whose shortest string
// is a single byte are not useful: nearly every line would be a candidate,
// and the whole-buffer regexp (which has its own first-byte scan) is as fast.
func requiredLiterals(re *syntax.Regexp) []string {
	set := bestOf(analyze(re))
	if set == nil || minLen(set) < 2 {
		return nil
	}
	if set = simplifyRequired(set); len(set) > maxRequiredSet {
		return nil
	}
	return set
}

// bestOf returns the most selective requirement known for a node.
func bestOf(in litInfo) []string {
	if in.isExact && len(in.exact) > 0 {
		return better(in.exact, in.required)
	}
	return in.required
}

// better picks the more selective of two requirement sets (nil = none):
// the longer shortest string wins, then the smaller set.
func better(a, b []string) []string {
	switch {
	case a == nil || len(a) > maxRequiredSet:
		if len(b) > maxRequiredSet {
			return nil
		}
		return b
	case b == nil || len(b) > maxRequiredSet:
		return a
	}
	la, lb := minLen(a), minLen(b)
	if la != lb {
		if la > lb {
			return a
		}
		return b
	}
	if len(b) < len(a) {
		return b
	}
	return a
}

func minLen(set []string) int {
	if len(set) == 0 {
		return 0
	}
	n := len(set[0])
	for _, s := range set[1:] {
		n = min(n, len(s))
	}
	return n
}

func exactInfo(set ...string) litInfo { return litInfo{exact: set, isExact: true} }

func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpNoMatch:
		return litInfo{exact: []string{}, isExact: true}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactInfo("")
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return foldLiteral(re.Rune)
		}
		return exactInfo(string(re.Rune))
	case syntax.OpCharClass:
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if int(hi-lo)+1+len(set) > maxClassRunes {
				return litInfo{}
			}
			for r := lo; r <= hi; r++ {
				set = append(set, string(r))
			}
		}
		return exactInfo(set...)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpQuest:
		sub := analyze(re.Sub[0])
		if sub.isExact && len(sub.exact)+1 <= maxExactSet {
			return exactInfo(union(sub.exact, []string{""})...)
		}
		return litInfo{}
	case syntax.OpPlus:
		return litInfo{required: bestOf(analyze(re.Sub[0]))}
	case syntax.OpRepeat:
		if re.Min == 0 {
			return litInfo{}
		}
		return litInfo{required: bestOf(analyze(re.Sub[0]))}
	case syntax.OpConcat:
		return analyzeConcat(re.Sub)
	case syntax.OpAlternate:
		return analyzeAlternate(re.Sub)
	}
	// OpAnyChar, OpAnyCharNotNL, OpStar and anything unknown: no constraint.
	return litInfo{}
}

// foldLiteral expands a case-insensitive literal into its case variants
// when there are few of them.
func foldLiteral(runes []rune) litInfo {
	set := []string{""}
	for _, r := range runes {
		variants := []string{string(r)}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			variants = append(variants, string(f))
		}
		set = cross(set, variants)
		if set == nil {
			return litInfo{}
		}
	}
	return exactInfo(set...)
}

func analyzeConcat(subs []*syntax.Regexp) litInfo {
	cur := []string{""} // exact strings of the current run of exact nodes
	allExact := true
	var best []string
	flush := func() {
		if minLen(cur) > 0 {
			best = better(best, cur)
		}
		cur = []string{""}
	}
	for _, s := range subs {
		in := analyze(s)
		if in.isExact {
			if len(in.exact) == 0 {
				return litInfo{exact: []string{}, isExact: true} // never matches
			}
			if next := cross(cur, in.exact); next != nil {
				cur = next
				continue
			}
			allExact = false
			flush()
			if len(in.exact) <= maxExactSet {
				cur = in.exact
			}
			continue
		}
		allExact = false
		flush()
		best = better(best, in.required)
	}
	if allExact {
		return litInfo{exact: cur, isExact: true, required: best}
	}
	flush()
	return litInfo{required: best}
}

func analyzeAlternate(subs []*syntax.Regexp) litInfo {
	allExact, reqOK := true, true
	exact := []string{}
	var req []string
	for _, s := range subs {
		in := analyze(s)
		if in.isExact && len(in.exact) == 0 {
			continue // a branch that never matches adds nothing
		}
		if in.isExact {
			exact = union(exact, in.exact)
			if len(exact) > maxExactSet {
				allExact = false
			}
		} else {
			allExact = false
		}
		if b := bestOf(in); b == nil || minLen(b) == 0 {
			reqOK = false
		} else {
			req = union(req, b)
		}
	}
	if allExact {
		return litInfo{exact: exact, isExact: true}
	}
	if !reqOK || len(req) > maxRequiredSet {
		return litInfo{}
	}
	return litInfo{required: req}
}

// cross returns every a+b, or nil if that is more than maxExactSet strings.
func cross(a, b []string) []string {
	if len(a)*len(b) > maxExactSet {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out)
}

func union(a, b []string) []string {
	return dedupe(append(slices.Clone(a), b...))
}

func dedupe(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// simplifyRequired drops strings that contain another string of the set:
// finding the shorter one already finds every occurrence of the longer.
func simplifyRequired(set []string) []string {
	var out []string
	for i, s := range set {
		redundant := false
		for j, t := range set {
			if i != j && len(t) < len(s) && strings.Contains(s, t) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}
