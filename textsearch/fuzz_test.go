package textsearch

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// collect runs a lineMatcher over data and renders "line:col" per match.
func collect(m *lineMatcher, data []byte) []string {
	out := []string{}
	f := newFinder(m, data)
	pos, line, counted := 0, 1, 0
	for pos <= len(data) {
		start, end, col, ok := f.nextMatch(pos)
		if !ok {
			break
		}
		line += bytes.Count(data[counted:start], nl)
		counted = start
		out = append(out, fmt.Sprintf("%d:%d", line, col))
		pos = end + 1
	}
	return out
}

// plainLines is the reference: split into lines, run the regexp on each.
func plainLines(re *regexp.Regexp, data []byte) (out []string, lines [][]byte) {
	out = []string{}
	lines = bytes.Split(data, nl)
	if len(data) == 0 || data[len(data)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if loc := re.FindIndex(l); loc != nil {
			out = append(out, fmt.Sprintf("%d:%d", i+1, loc[0]+1))
		}
	}
	return out, lines
}

// matcherModes builds every applicable strategy for pattern.
func matcherModes(t *testing.T, pattern string) (map[string]*lineMatcher, []string) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, nil
	}
	modes := map[string]*lineMatcher{"perline": (&lineMatcher{mode: modePerLine, re: re}).init()}
	natural, err := compileMatcher(pattern, false)
	if err != nil {
		t.Fatalf("compileMatcher(%q): %v (regexp accepted it)", pattern, err)
	}
	modes["natural"] = natural
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	parsed = parsed.Simplify()
	lits := requiredLiterals(parsed)
	if lits != nil {
		m := &lineMatcher{mode: modePrefilter, re: re}
		for _, l := range lits {
			m.lits = append(m.lits, []byte(l))
		}
		modes["prefilter"] = m.init()
	}
	// The raw extraction, including sets of single bytes that
	// requiredLiterals declines as not selective enough.
	if raw := bestOf(analyze(parsed)); raw != nil && minLen(raw) > 0 && len(raw) <= maxExactSet {
		m := &lineMatcher{mode: modePrefilter, re: re}
		for _, l := range raw {
			m.lits = append(m.lits, []byte(l))
		}
		modes["prefilter-raw"] = m.init()
	}
	safe := lineSafe(parsed)
	if seq := newClassSeq(safe); seq != nil {
		modes["classseq"] = (&lineMatcher{mode: modeClassSeq, re: re, seq: seq}).init()
	}
	if w, err := regexp.Compile(safe.String()); err == nil {
		modes["whole"] = (&lineMatcher{mode: modeWhole, re: re, whole: w}).init()
	} else {
		t.Errorf("line-safe rewrite of %q does not compile: %v", pattern, err)
	}
	return modes, lits
}

// FuzzLiteralExtraction checks that every strategy (required-literal
// prefilter, line-safe whole-buffer regexp, the natural choice) finds
// exactly the lines and columns the plain per-line regexp finds, and that
// every matching line contains one of the extracted literals.
func FuzzLiteralExtraction(f *testing.F) {
	seeds := [][2]string{
		{`func \(\w+ \*\w+\) Close\(\) error`, "func (c *conn) Close() error {\nfunc (c conn) Close() error\n"},
		{`foo|bar`, "xfoo\nbar\nbaz\n"},
		{`colou?r`, "color colour\ncolr\n"},
		{`[ab]cd+e`, "acdde\nbcde\nccde\n"},
		{`(?i)hello`, "HeLLo\nhelo\n"},
		{`^$`, "\n\nx\n"},
		{`^`, "a\nb"},
		{`$`, ""},
		{`a\nb`, "a\nb\n"},
		{`a\sb`, "a b\na\nb\n"},
		{`(?s)a.b`, "a\nb\naxb\n"},
		{`\Aab\z`, "ab\nab\nxab\n"},
		{`\bword\b`, "word\nswords\n word.\n"},
		{`[^x]y`, "\ny\nxy\nay\n"},
		{`x*`, "\n\nabc"},
		{`(a|)b`, "b\nab\n"},
		{`(?m)^a$`, "a\nba\na"},
		{`[0-9]{4}-[0-9]{2}\b`, "x2024-12 y\n2024-123\n99-12\n1234-56\n"},
		{`[0-9]{9}[a-f]{3}`, "0123456789abc\n123456789ab\n0000000000000000fff\n"},
		{`é+`, "café\n\xff\xfe é\n"},
		{`a{2,}b`, "aab\nab\n"},
		{`[0-9]{3}[a-f]`, "123a\n12a\n"},
		{`(?:ab)+c|de`, "ababc\nde\nac\n"},
		{`\x00`, "a\x00b\n"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 200 || len(text) > 4000 {
			return
		}
		modes, lits := matcherModes(t, pattern)
		if modes == nil {
			return
		}
		data := []byte(text)
		want, lines := plainLines(modes["perline"].re, data)
		for name, m := range modes {
			if got := collect(m, data); !slices.Equal(got, want) {
				t.Fatalf("pattern %q, mode %s (lits %q): got %v, want %v", pattern, name, lits, got, want)
			}
		}
		if lits != nil {
			for _, w := range want {
				var n int
				fmt.Sscanf(w, "%d:", &n)
				ok := false
				for _, l := range lits {
					ok = ok || bytes.Contains(lines[n-1], []byte(l))
				}
				if !ok {
					t.Fatalf("pattern %q: line %d %q matches but contains none of %q", pattern, n, lines[n-1], lits)
				}
			}
		}
		// Fixed strings against a plain per-line strings.Index.
		fixed, err := compileMatcher(pattern, true)
		if err != nil {
			t.Fatal(err)
		}
		wantFixed := []string{}
		for i, l := range lines {
			if k := strings.Index(string(l), pattern); k >= 0 {
				wantFixed = append(wantFixed, fmt.Sprintf("%d:%d", i+1, k+1))
			}
		}
		if got := collect(fixed, data); !slices.Equal(got, wantFixed) {
			t.Fatalf("fixed %q: got %v, want %v", pattern, got, wantFixed)
		}
	})
}

func TestRequiredLiterals(t *testing.T) {
	cases := []struct {
		pattern string
		want    []string
	}{
		{`func \(\w+ \*\w+\) Close\(\) error`, []string{") Close() error"}},
		{`func \(\w+ \*\w*Conn\) Set\w+Deadline`, []string{"Conn) Set"}},
		{`foo|bar`, []string{"bar", "foo"}},
		{`colou?r`, []string{"color", "colour"}},
		{`[ab]cd`, []string{"acd", "bcd"}},
		{`(?i)ab`, []string{"AB", "Ab", "aB", "ab"}},
		{`a+bc`, []string{"bc"}},
		{`x*`, nil},
		{`.`, nil},
		{`[0-9]{3}[a-f]`, nil},
		{`foo|.*`, nil},
		{`(foo|bar)baz`, []string{"barbaz", "foobaz"}},
		{`\bword\b`, []string{"word"}},
		{`a.b`, nil},
		{`ab.cd`, []string{"ab"}},
		{`[ab]c`, []string{"ac", "bc"}},
	}
	for _, tc := range cases {
		re, err := syntax.Parse(tc.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := requiredLiterals(re.Simplify())
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("requiredLiterals(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

func TestModeSelection(t *testing.T) {
	cases := []struct {
		pattern string
		fixed   bool
		mode    int
	}{
		{"a.b(", true, modeLiteral},
		{"SetReadDeadline", false, modeLiteral},
		{"", false, modeLiteral},
		{`func \(\w+ \*\w+\) Close`, false, modePrefilter},
		{`(?i)ab`, false, modePrefilter},
		{`^\s*[a-z]+\s*$`, false, modePerLine},
		{`^\s*//\s*$`, false, modePrefilter},
		{`^a|\Ab`, false, modePerLine},
		{`[0-9]{9}[a-f]{3}`, false, modeClassSeq},
		{`[0-9]+[a-f]`, false, modeWhole},
		{`[a-z][a-z]+[0-9]`, false, modeWhole}, // leading classes too common to scan for
		{`[0-9][0-9][0-9][0-9]-[0-9][0-9]`, false, modeClassSeq},
		{`(?i)close`, false, modeWhole},
		{`\Aab\z`, false, modePrefilter},
	}
	for _, tc := range cases {
		m, err := compileMatcher(tc.pattern, tc.fixed)
		if err != nil {
			t.Fatal(err)
		}
		if m.mode != tc.mode {
			t.Errorf("compileMatcher(%q, %v).mode = %d, want %d", tc.pattern, tc.fixed, m.mode, tc.mode)
		}
	}
}

// FuzzLitFinder checks the rare-byte literal search against bytes.Index.
func FuzzLitFinder(f *testing.F) {
	f.Add("func (c *conn) Close", "x func (c *conn) Clos func (c *conn) Close()")
	f.Add("ab", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab")
	f.Add("é·x", "·x é·é·x")
	f.Add("zzzzq", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzq")
	f.Fuzz(func(t *testing.T, lit, s string) {
		lf := newLitFinder([]byte(lit))
		for from := 0; from <= len(s); from += 1 + len(s)/7 {
			if got, want := lf.index([]byte(s[from:])), strings.Index(s[from:], lit); got != want {
				t.Fatalf("index(%q in %q) = %d, want %d", lit, s[from:], got, want)
			}
		}
	})
}
