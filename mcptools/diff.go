package mcptools

import (
	"fmt"
	"strings"
)

// diffContext is the context lines around each hunk of a unified diff.
const diffContext = 3

// maxDiffEdits bounds the Myers search; past it the changed middle is
// shown as one block of removals and additions.
const maxDiffEdits = 2000

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

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
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max0(i - diffContext)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(run, end+diffContext)
				break
			}
			end = run
		}
		writeHunk(&sb, ops, start, end)
		i = end
	}
	out := sb.String()
	if len(out) <= max {
		return out, false
	}
	cut := strings.LastIndexByte(out[:max], '\n')
	return out[:cut+1], true
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

func writeHunk(sb *strings.Builder, ops []diffOp, start, end int) {
	aLine, bLine := 1, 1
	for _, o := range ops[:start] {
		if o.kind != '+' {
			aLine++
		}
		if o.kind != '-' {
			bLine++
		}
	}
	var aN, bN int
	for _, o := range ops[start:end] {
		if o.kind != '+' {
			aN++
		}
		if o.kind != '-' {
			bN++
		}
	}
	if aN == 0 {
		aLine--
	}
	if bN == 0 {
		bLine--
	}
	fmt.Fprintf(sb, "@@ -%d,%d +%d,%d @@\n", aLine, aN, bLine, bN)
	for _, o := range ops[start:end] {
		sb.WriteByte(o.kind)
		sb.WriteString(strings.TrimSuffix(o.line, "\n"))
		sb.WriteByte('\n')
		if !strings.HasSuffix(o.line, "\n") {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
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
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, myers(a[p:len(a)-s], b[p:len(b)-s])...)
	for _, l := range a[len(a)-s:] {
		ops = append(ops, diffOp{' ', l})
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
			rev = append(rev, diffOp{' ', a[x]})
		}
		if d > 0 {
			if x == px {
				y--
				rev = append(rev, diffOp{'+', b[y]})
			} else {
				x--
				rev = append(rev, diffOp{'-', a[x]})
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
		ops = append(ops, diffOp{'-', l})
	}
	for _, l := range b {
		ops = append(ops, diffOp{'+', l})
	}
	return ops
}
