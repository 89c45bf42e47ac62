package textmerge

import "bytes"

// Conflict markers, as git writes them (its default "merge" style).
const (
	MarkerOurs   = "<<<<<<<"
	MarkerSep    = "======="
	MarkerTheirs = ">>>>>>>"
)

// MergeResult is a three-way merge's outcome.
type MergeResult struct {
	// Text is the merged text; with Conflicts > 0 it holds conflict
	// markers around each region both sides changed differently.
	Text []byte
	// Conflicts counts the conflicting regions.
	Conflicts int
}

// Merge merges ours and theirs, two texts changed from base: a region
// changed on one side only takes that side; one changed on both sides
// identically takes it once; one changed differently on both is a
// conflict, written between markers labelled oursLabel and theirsLabel.
func Merge(base, ours, theirs []byte, oursLabel, theirsLabel string) MergeResult {
	b, o, t := Lines(base), Lines(ours), Lines(theirs)
	mo, mt := matchIndex(b, o), matchIndex(b, t)
	var res MergeResult
	var out bytes.Buffer
	i, j, k := 0, 0, 0
	for i < len(b) || j < len(o) || k < len(t) {
		// A stable run: base lines both sides keep, in place.
		n := 0
		for i+n < len(b) && mo[i+n] == j+n && mt[i+n] == k+n {
			n++
		}
		if n > 0 {
			for _, l := range b[i : i+n] {
				out.Write(l)
			}
			i, j, k = i+n, j+n, k+n
			continue
		}
		// The next base line both sides keep ends the unstable chunk.
		ni, nj, nk := len(b), len(o), len(t)
		for x := i; x < len(b); x++ {
			if mo[x] >= 0 && mt[x] >= 0 {
				ni, nj, nk = x, mo[x], mt[x]
				break
			}
		}
		bc, oc, tc := b[i:ni], o[j:nj], t[k:nk]
		switch {
		case equalLines(oc, bc):
			writeLines(&out, tc)
		case equalLines(tc, bc), equalLines(oc, tc):
			writeLines(&out, oc)
		default:
			res.Conflicts++
			out.WriteString(MarkerOurs + " " + oursLabel + "\n")
			writeLinesTerminated(&out, oc)
			out.WriteString(MarkerSep + "\n")
			writeLinesTerminated(&out, tc)
			out.WriteString(MarkerTheirs + " " + theirsLabel + "\n")
		}
		i, j, k = ni, nj, nk
	}
	res.Text = out.Bytes()
	return res
}

// HasMarkers reports whether text still holds a conflict region written
// by Merge: a line starting with MarkerOurs followed later by one
// starting with MarkerSep and then one starting with MarkerTheirs.
func HasMarkers(text []byte) bool {
	state := 0
	for _, l := range Lines(text) {
		switch {
		case state == 0 && bytes.HasPrefix(l, []byte(MarkerOurs)):
			state = 1
		case state == 1 && bytes.HasPrefix(l, []byte(MarkerSep)):
			state = 2
		case state == 2 && bytes.HasPrefix(l, []byte(MarkerTheirs)):
			return true
		}
	}
	return false
}

// matchIndex maps each line of base to the line of other it is matched
// with, or -1.
func matchIndex(base, other [][]byte) []int {
	idx := make([]int, len(base))
	for i := range idx {
		idx[i] = -1
	}
	for _, m := range Matches(base, other) {
		idx[m.A] = m.B
	}
	return idx
}

func equalLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func writeLines(w *bytes.Buffer, ls [][]byte) {
	for _, l := range ls {
		w.Write(l)
	}
}

// writeLinesTerminated writes ls, ending the last with "\n" so that a
// marker after it starts a line.
func writeLinesTerminated(w *bytes.Buffer, ls [][]byte) {
	writeLines(w, ls)
	if n := len(ls); n > 0 && !bytes.HasSuffix(ls[n-1], []byte("\n")) {
		w.WriteByte('\n')
	}
}
