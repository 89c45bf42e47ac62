package gitname

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

func TestKey(t *testing.T) {
	for _, tc := range []struct {
		a, b    string
		collide bool
	}{
		{"caf\u00e9.txt", "cafe\u0301.txt", true},
		{"\u017f.txt", "s.txt", true},
		{"Stra\u00dfe", "STRASSE", true},
		{"\u212a", "k", true},
		{"README.md", "readme.md", true},
		{"a\u200cb", "ab", true},
		{"\u00e9.txt", "e.txt", false},
		{"a.md", "b.md", false},
	} {
		t.Run(tc.a+"|"+tc.b, func(t *testing.T) {
			if got := Key(tc.a) == Key(tc.b); got != tc.collide {
				t.Fatalf("Key(%q)=%q Key(%q)=%q; collide=%v, want %v", tc.a, Key(tc.a), tc.b, Key(tc.b), got, tc.collide)
			}
		})
	}
}

func TestLookAlikes(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		git, modules, attrib bool
	}{
		{".git", true, false, false},
		{".Git", true, false, false},
		{".g\u200dit", true, false, false},
		{".git\u206f", true, false, false},
		{".git. .", true, false, false},
		{".git:stream", true, false, false},
		{"git~1", true, false, false},
		{"GIT~1 .", true, false, false},
		{"git~2", false, false, false},
		{".gitx", false, false, false},
		{".g\u00efit", false, false, false},
		{".gitmodules", false, true, false},
		{"GITMOD~3", false, true, false},
		{"gi7eb~12", false, true, false},
		{"gi7eba~12", false, false, false},
		{"gitmod~5", false, false, false},
		{".gitattributes..", false, false, true},
		{"gitatt~1", false, false, true},
		{"gi7d29~1", false, false, true},
		{"gitignore", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if IsDotGit(tc.name) != tc.git || IsDotGitmodules(tc.name) != tc.modules || IsDotGitattributes(tc.name) != tc.attrib {
				t.Fatalf("git=%v modules=%v attributes=%v; want %v %v %v", IsDotGit(tc.name), IsDotGitmodules(tc.name), IsDotGitattributes(tc.name), tc.git, tc.modules, tc.attrib)
			}
		})
	}
}

// FuzzProblem: no input panics; a ".git" spelled with ignorable code points
// or trailing dots and spaces is always refused; Key is idempotent.
func FuzzProblem(f *testing.F) {
	for _, s := range []string{".git", "caf\u00e9", "gi7eba~1", "x", "\u017f", ".g\u200cit. "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Problem(s, true) == "" && Problem(s, false) != "" {
			t.Fatalf("%q refused as a file but accepted as a folder", s)
		}
		if !utf8.ValidString(s) {
			return
		}
		if k := Key(s); Key(k) != k {
			t.Fatalf("Key not idempotent on %q: %q then %q", s, k, Key(k))
		}
		tail := strings.Map(func(r rune) rune {
			if r == '.' || r == ' ' {
				return r
			}
			return -1
		}, s)
		if Problem(".g\u200cit"+tail, false) == "" || Problem(".GIT"+tail, true) == "" {
			t.Fatalf("a .git look-alike with tail %q passed", tail)
		}
	})
}

// TestFoldTableIsCurrent: fold changes every rune as
// golang.org/x/text/cases.Fold does (run `go generate ./gitname` after an
// update of golang.org/x/text that changes it).
func TestFoldTableIsCurrent(t *testing.T) {
	c := cases.Fold()
	bad := 0
	for r := rune(0); r <= utf8.MaxRune && bad < 10; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		if got, want := fold(string(r)), c.String(string(r)); got != want {
			t.Errorf("fold(%U) = %+q, cases.Fold gives %+q", r, got, want)
			bad++
		}
	}
}

// keyWithCases is Key as it was written on golang.org/x/text/cases.
func keyWithCases(s string) string {
	if k := Key(s); !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return k
	}
	s = strings.Map(func(r rune) rune {
		if hfsIgnorable(r) {
			return -1
		}
		return r
	}, s)
	return norm.NFC.String(cases.Fold().String(norm.NFD.String(s)))
}

// FuzzKeyAgreesWithCases: Key gives what it gave through
// golang.org/x/text/cases, for any string (invalid UTF-8 too).
func FuzzKeyAgreesWithCases(f *testing.F) {
	for _, s := range []string{"Stra\u00dfe", "\u017f\u212a", "\u0130stanbul", "\u1e9e\u1f88\u0345", "\xff\xfeA", "\ufb03\u0149", "\u03a3\u03c2", "a\u0307\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Key(s), keyWithCases(s); got != want {
			t.Fatalf("Key(%+q) = %+q, through cases.Fold %+q", s, got, want)
		}
	})
}
