package mcptools

import (
	"fmt"
	"strings"

	"github.com/thalix/tv/textmerge"
)

// diffContext is the context lines around each hunk of a unified diff.
const diffContext = 3

// maxDiffEdits bounds the Myers search; past it the changed middle is
// shown as one block of removals and additions.
const maxDiffEdits = 2000

type diffOp = textmerge.Op[string]

// UnifiedDiff returns a unified diff of old and new (labelled a/name and
// b/name) with 3 lines of context, cut at a line boundary to at most max
// bytes; truncated reports the cut.
func UnifiedDiff(name, old, new string, max int) (diff string, truncated bool) {
	if old == new {
		return "", false
	}
	a, b := splitLines(old), splitLines(new)
	ops := diffLines(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", name, name)
	for _, h := range textmerge.Group(ops, diffContext, nil) {
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		for _, l := range h.Lines {
			sb.WriteString(l)
			sb.WriteByte('\n')
		}
	}
	out := sb.String()
	if len(out) <= max {
		return out, false
	}
	cut := strings.LastIndexByte(out[:max], '\n')
	return out[:cut+1], true
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines is a Myers diff of line slices after trimming the common
// prefix and suffix.
func diffLines(a, b []string) []diffOp {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []diffOp
	for _, l := range a[:p] {
		ops = append(ops, diffOp{Kind: ' ', Line: l})
	}
	ops = append(ops, myers(a[p:len(a)-s], b[p:len(b)-s])...)
	for _, l := range a[len(a)-s:] {
		ops = append(ops, diffOp{Kind: ' ', Line: l})
	}
	return ops
}

func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return block(a, b)
	}
	offset := n + m
	v := make([]int, 2*offset+2)
	// The trace keeps one V array per step: bound its memory.
	limit := min(maxDiffEdits, (8<<20)/len(v))
	var trace [][]int
	for d := 0; d <= n+m && d <= limit; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1]
			} else {
				x = v[offset+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[offset+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, offset)
			}
		}
	}
	return block(a, b)
}

func backtrack(a, b []string, trace [][]int, offset int) []diffOp {
	var rev []diffOp
	x, y := len(a), len(b)
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[offset+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, diffOp{Kind: ' ', Line: a[x]})
		}
		if d > 0 {
			if x == px {
				y--
				rev = append(rev, diffOp{Kind: '+', Line: b[y]})
			} else {
				x--
				rev = append(rev, diffOp{Kind: '-', Line: a[x]})
			}
		}
	}
	ops := make([]diffOp, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

func block(a, b []string) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a {
		ops = append(ops, diffOp{Kind: '-', Line: l})
	}
	for _, l := range b {
		ops = append(ops, diffOp{Kind: '+', Line: l})
	}
	return ops
}
