package textmerge

import "bytes"

// Lines splits b into lines, each with its "\n" (the last may lack it).
func Lines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return append(out, b)
		}
		out, b = append(out, b[:i+1]), b[i+1:]
	}
	return out
}

// IsBinary reports whether b looks like binary data, as git decides it:
// a NUL byte among its first BinarySniffBytes bytes.
func IsBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), BinarySniffBytes)], 0) >= 0
}

// BinarySniffBytes is how much of a text IsBinary looks at (git's 8000).
const BinarySniffBytes = 8000

// Match pairs line indexes of two texts that a shortest edit script keeps.
type Match struct{ A, B int }

// Matches returns the lines a and b have in common along a shortest edit
// script, in increasing order of both indexes (a longest common
// subsequence as Myers' algorithm finds it).
func Matches(a, b [][]byte) []Match {
	// Common prefix and suffix cost nothing and shrink the search.
	pre := 0
	for pre < len(a) && pre < len(b) && bytes.Equal(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && bytes.Equal(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	out := make([]Match, 0, pre+suf)
	for i := range pre {
		out = append(out, Match{i, i})
	}
	out = append(out, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := suf; i > 0; i-- {
		out = append(out, Match{len(a) - i, len(b) - i})
	}
	return out
}

// myers is Myers' greedy shortest-edit-script search over a and b,
// returning the matched lines offset by (offA, offB). Past MaxEditLines
// edits it gives up on minimality: the texts then match on nothing
// between their common prefix and suffix, which is still a correct diff.
func myers(a, b [][]byte, offA, offB int) []Match {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	// Lines are compared by id: equal lines share one.
	ids := map[string]int{}
	id := func(l []byte) int {
		v, ok := ids[string(l)]
		if !ok {
			v = len(ids)
			ids[string(l)] = v
		}
		return v
	}
	ai, bi := make([]int, n), make([]int, m)
	for i, l := range a {
		ai[i] = id(l)
	}
	for i, l := range b {
		bi[i] = id(l)
	}
	limit := min(n+m, MaxEditLines)
	// v[k+d] for diagonal k at step d; trace[d] is v before step d,
	// kept only for diagonals -d..d (memory O(D²), bounded by the limit).
	var trace [][]int
	v := []int{0, 0, 0} // step 0 reads diagonal 1
	off := 1            // index of diagonal 0 in v
	for d := 0; d <= limit; d++ {
		trace = append(trace, v)
		next := make([]int, 2*d+3)
		at := func(k int) int { return v[k+off] }
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && at(k-1) < at(k+1)) {
				x = at(k + 1)
			} else {
				x = at(k-1) + 1
			}
			y := x - k
			for x < n && y < m && ai[x] == bi[y] {
				x, y = x+1, y+1
			}
			next[k+d+1] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, d, offA, offB)
			}
		}
		v, off = next, d+1
	}
	return nil
}

// backtrack walks the search's trace back from (n, m) and collects the
// diagonal (matching) moves, in order.
func backtrack(trace [][]int, n, m, d, offA, offB int) []Match {
	var rev []Match
	x, y := n, m
	for ; d > 0; d-- {
		v, off := trace[d], d // trace[d] holds diagonals -(d-1)..d-1 at v[k+d]
		k := x - y
		pk := k - 1
		if k == -d || (k != d && v[k-1+off] < v[k+1+off]) {
			pk = k + 1
		}
		px := v[pk+off]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, Match{x + offA, y + offB})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, Match{x + offA, y + offB})
	}
	out := make([]Match, len(rev))
	for i, mt := range rev {
		out[len(rev)-1-i] = mt
	}
	return out
}
