package textmerge

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lcsLen is the longest common subsequence's length by dynamic
// programming: the reference a shortest edit script must reach.
func lcsLen(a, b [][]byte) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if bytes.Equal(a[i], b[j]) {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func randText(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for range n {
		b.WriteString(string(rune('a' + r.Intn(4))))
		b.WriteByte('\n')
	}
	if r.Intn(3) == 0 && b.Len() > 0 {
		b.Truncate(b.Len() - 1) // no final newline
	}
	return b.Bytes()
}

// checkMatches: matches are increasing, pair equal lines, and are as
// many as the longest common subsequence.
func checkMatches(t *testing.T, a, b []byte) {
	t.Helper()
	la, lb := Lines(a), Lines(b)
	ms := Matches(la, lb)
	for i, m := range ms {
		if !bytes.Equal(la[m.A], lb[m.B]) || (i > 0 && (m.A <= ms[i-1].A || m.B <= ms[i-1].B)) {
			t.Fatalf("bad match %d %+v for %q / %q", i, m, a, b)
		}
	}
	if want := lcsLen(la, lb); len(ms) != want {
		t.Fatalf("%d matches, LCS is %d: %q / %q", len(ms), want, a, b)
	}
}

func TestMatchesMinimal(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 2000 {
		checkMatches(t, randText(r, r.Intn(30)), randText(r, r.Intn(30)))
	}
}

func FuzzMatches(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nc\nd\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) > 2000 || len(b) > 2000 {
			return
		}
		checkMatches(t, a, b)
	})
}

// apply applies unified hunks to a.
func apply(t *testing.T, a []byte, hs []Hunk) []byte {
	t.Helper()
	la := Lines(a)
	var out bytes.Buffer
	next := 0 // next line of a to copy
	for _, h := range hs {
		start := h.OldStart - 1
		if h.OldLines == 0 {
			start = h.OldStart
		}
		for ; next < start; next++ {
			out.Write(la[next])
		}
		for i, l := range h.Lines {
			if l == NoNewline {
				continue
			}
			nl := "\n"
			if i+1 < len(h.Lines) && h.Lines[i+1] == NoNewline {
				nl = ""
			}
			switch l[0] {
			case ' ':
				out.WriteString(l[1:] + nl)
				next++
			case '-':
				next++
			case '+':
				out.WriteString(l[1:] + nl)
			}
		}
	}
	for ; next < len(la); next++ {
		out.Write(la[next])
	}
	return out.Bytes()
}

func TestHunksApply(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for range 2000 {
		a, b := randText(r, r.Intn(40)), randText(r, r.Intn(40))
		hs := Hunks(a, b, DefaultContext)
		if got := apply(t, a, hs); !bytes.Equal(got, b) {
			t.Fatalf("hunks of %q -> %q apply to %q", a, b, got)
		}
		if bytes.Equal(a, b) != (len(hs) == 0) {
			t.Fatalf("equal=%v but %d hunks", bytes.Equal(a, b), len(hs))
		}
	}
}

// TestHunksLikeGit: for one change in a long text, the hunk equals git's.
func TestHunksLikeGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	var a, b strings.Builder
	for i := range 40 {
		a.WriteString("line " + string(rune('A'+i%26)) + "\n")
		if i == 20 {
			b.WriteString("changed\n")
			continue
		}
		b.WriteString("line " + string(rune('A'+i%26)) + "\n")
	}
	b.WriteString("tail")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte(a.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "b"), []byte(b.String()), 0o644)
	out, _ := exec.Command("git", "diff", "--no-index", "--no-color", filepath.Join(dir, "a"), filepath.Join(dir, "b")).Output()
	var want []string
	for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if strings.HasPrefix(l, "@@") || len(want) > 0 {
			want = append(want, l)
		}
	}
	var got []string
	for _, h := range Hunks([]byte(a.String()), []byte(b.String()), DefaultContext) {
		got = append(got, h.Header())
		got = append(got, h.Lines...)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant (git)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMerge(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	tests := []struct {
		name, ours, theirs, want string
		conflicts                int
	}{
		{"ours only", "a\nB\nc\nd\ne\n", base, "a\nB\nc\nd\ne\n", 0},
		{"theirs only", base, "a\nb\nc\nD\ne\n", "a\nb\nc\nD\ne\n", 0},
		{"both, apart", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "A\nb\nc\nd\nE\n", 0},
		{"both, same", "a\nX\nc\nd\ne\n", "a\nX\nc\nd\ne\n", "a\nX\nc\nd\ne\n", 0},
		{"both, differently", "a\nX\nc\nd\ne\n", "a\nY\nc\nd\ne\n", "a\n<<<<<<< mine\nX\n=======\nY\n>>>>>>> head\nc\nd\ne\n", 1},
		{"insert and delete", "a\nb\nnew\nc\nd\ne\n", "a\nb\nc\ne\n", "a\nb\nnew\nc\ne\n", 0},
		{"no final newline", "a\nb\nc\nd\nx", "a\nb\nc\nd\ny", "a\nb\nc\nd\n<<<<<<< mine\nx\n=======\ny\n>>>>>>> head\n", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Merge([]byte(base), []byte(tc.ours), []byte(tc.theirs), "mine", "head")
			if string(r.Text) != tc.want || r.Conflicts != tc.conflicts {
				t.Fatalf("got %d conflicts\n%s\nwant %d\n%s", r.Conflicts, r.Text, tc.conflicts, tc.want)
			}
			if HasMarkers(r.Text) != (tc.conflicts > 0) {
				t.Fatalf("HasMarkers = %v", HasMarkers(r.Text))
			}
		})
	}
}

// TestMergeLikeGit: clean merges of random edits equal git merge-file's.
func TestMergeLikeGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := rand.New(rand.NewSource(3))
	dir := t.TempDir()
	checked := 0
	for range 120 {
		var base []string
		for i := range 30 {
			base = append(base, "line "+string(rune('a'+i%26))+string(rune('a'+i/26)))
		}
		edit := func() []string {
			out := append([]string(nil), base...)
			at := r.Intn(len(out) - 3)
			out[at] = "edited " + out[at]
			return out
		}
		o, th := edit(), edit()
		join := func(ls []string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }
		files := map[string][]byte{"base": join(base), "ours": join(o), "theirs": join(th)}
		for n, b := range files {
			os.WriteFile(filepath.Join(dir, n), b, 0o644)
		}
		cmd := exec.Command("git", "merge-file", "-p", filepath.Join(dir, "ours"), filepath.Join(dir, "base"), filepath.Join(dir, "theirs"))
		want, err := cmd.Output()
		if err != nil {
			continue // git saw a conflict: adjacent edits are judged differently
		}
		got := Merge(files["base"], files["ours"], files["theirs"], "ours", "theirs")
		if got.Conflicts == 0 && !bytes.Equal(got.Text, want) {
			t.Fatalf("merge differs from git's:\n%s\nwant\n%s", got.Text, want)
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("only %d clean merges compared", checked)
	}
}

func TestIsBinary(t *testing.T) {
	if IsBinary([]byte("text\n")) || !IsBinary([]byte("a\x00b")) {
		t.Fatal("IsBinary")
	}
}
