package icm

import (
	"regexp"
	"slices"
	"testing"
)

// FuzzPlaceholderSpans: placeholderSpans finds exactly the matches of the
// regexp it replaced, \{\{[^{}\n]*\}\}.
func FuzzPlaceholderSpans(f *testing.F) {
	re := regexp.MustCompile(`\{\{[^{}\n]*\}\}`)
	for _, s := range []string{"", "{{A}}", "{{{x}}", "{{a}} b {{c}}", "{{a\n}}", "{{}}", "{{a}", "x{{y}}}z", "{{ {{b}} }}", "{{é}}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want := placeholderSpans(data), re.FindAllIndex(data, -1)
		if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
			t.Fatalf("%q: placeholderSpans %v, regexp %v", data, got, want)
		}
	})
}

// FuzzIsDelimRow: isDelimRow accepts exactly what the regexp it replaced,
// ^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$, matches.
func FuzzIsDelimRow(f *testing.F) {
	re := regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$`)
	for _, s := range []string{"", "|", "-", "|---|---|", ":--|:-:|--:", "| --- | --- |", "-|", "||", "-:-", "|-| |", " -", "-\t|\t-", "a|-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isDelimRow(s), re.MatchString(s); got != want {
			t.Fatalf("%q: isDelimRow %v, regexp %v", s, got, want)
		}
	})
}
