package icm

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
)

// RulesVersion names what the rules report for a given tree. Anything
// remembered from a validation (a tree's findings, a file's
// MarkdownFacts) is valid only for the RulesVersion that produced it:
// bump it with every change to what a rule finds or says.
const RulesVersion = 1

// MarkdownFacts is what the validator learns from the content of one
// Markdown file beyond a contract's structure: how many lines it has,
// whether it is over MaxMarkdownBytes (only that much was read) and the
// placeholders left in it. It is a function of the file's content alone
// (for one RulesVersion), so it may be remembered by content id.
type MarkdownFacts struct {
	Lines        int
	Truncated    bool
	Placeholders []Placeholder
}

// Placeholder is one line's placeholder finding: the line, the first
// placeholder on it (quoted and shortened as the finding prints it) and
// how many more the line holds.
type Placeholder struct {
	Line int
	Text string
	More int
}

// FactCache remembers MarkdownFacts between validations. The validator
// asks it before reading a Markdown file that is not a contract, and
// tells it what it learned from every Markdown file it did read.
type FactCache interface {
	// Facts returns the facts of the Markdown file at listing index i
	// (path p) when they are known for its current content.
	Facts(i int, p string) (MarkdownFacts, bool)
	// Learned reports the facts of the file at listing index i, computed
	// from data: what was read of it (all of it unless f.Truncated, then
	// its first MaxMarkdownBytes). data is valid only during the call.
	Learned(i int, p string, data []byte, f MarkdownFacts)
}

// ValidateEntriesCached is ValidateEntries with a cache of MarkdownFacts:
// a Markdown file other than a contract whose facts the cache knows is not
// read. The findings are those of ValidateEntries.
func ValidateEntriesCached(fsys fs.FS, entries []Entry, known []string, cache FactCache) ([]Finding, error) {
	v := validator{fsys: fsys, known: known, entries: entries, cache: cache}
	return v.run()
}

// factsOf computes a Markdown file's facts from what was read of it.
func factsOf(m mdFile) MarkdownFacts {
	return MarkdownFacts{Lines: countLines(m.data), Truncated: m.truncated, Placeholders: placeholders(m.data)}
}

// markdownFacts returns the facts of the Markdown file at listing index
// i: from the cache when it knows them (contracts are always read, their
// content is checked anyway), else read.
func (v *validator) markdownFacts(i int, p string) (MarkdownFacts, error) {
	if v.cache != nil && !v.hasRead(p) {
		if f, ok := v.cache.Facts(i, p); ok {
			return f, nil
		}
	}
	m, err := v.read(p, false)
	if err != nil {
		return MarkdownFacts{}, err
	}
	f := factsOf(m)
	if v.cache != nil {
		v.cache.Learned(i, p, m.data, f)
	}
	return f, nil
}

// hasRead reports whether the contract at p was read already.
func (v *validator) hasRead(p string) bool {
	for _, c := range v.contract {
		if c.path == p {
			return true
		}
	}
	return false
}

// checkMarkdown applies the placeholder and context-length warnings to
// every .md file.
func (v *validator) checkMarkdown() error {
	for _, i := range v.markdown {
		p := v.entries[i].Path
		f, err := v.markdownFacts(i, p)
		if err != nil {
			return err
		}
		for _, ph := range f.Placeholders {
			more := ""
			if ph.More > 0 {
				more = fmt.Sprintf(" (and %d more on this line)", ph.More)
			}
			v.warnf(RulePlaceholder, p, ph.Line, "placeholder %s left after setup%s", ph.Text, more)
		}
		if path.Base(p) != "CONTEXT.md" {
			continue
		}
		switch {
		case f.Truncated && !v.isContract(p):
			v.warnf(RuleContextLength, p, 0, "CONTEXT.md is over MaxMarkdownBytes (%d bytes); keep it under %d lines", MaxMarkdownBytes, MaxContextLines)
		case !f.Truncated && f.Lines > MaxContextLines:
			v.warnf(RuleContextLength, p, MaxContextLines+1, "CONTEXT.md has %d lines, over MaxContextLines (%d); a contract routes, move content into references/", f.Lines, MaxContextLines)
		}
	}
	return nil
}

// placeholders finds the {{...}} placeholders of data, one per line that
// holds any. A match never spans a line break, so matching the whole file
// finds what matching each line would.
func placeholders(data []byte) []Placeholder {
	if !bytes.Contains(data, []byte("{{")) {
		return nil
	}
	all := placeholderSpans(data)
	var out []Placeholder
	line, at := 1, 0
	for i := 0; i < len(all); {
		line += bytes.Count(data[at:all[i][0]], []byte{'\n'})
		at = all[i][0]
		j := i + 1
		for j < len(all) && bytes.IndexByte(data[at:all[j][0]], '\n') < 0 {
			j++
		}
		out = append(out, Placeholder{Line: line, Text: quoteShort(string(data[all[i][0]:all[i][1]])), More: j - i - 1})
		i = j
	}
	return out
}

// placeholderSpans returns the [start, end) of each {{...}} placeholder
// in data, leftmost first and not overlapping: "{{", then no '{', '}' or
// line break, then "}}" (the regexp \{\{[^{}\n]*\}\}, matched by hand: its
// compilation was ~0.3 ms of the first walk-test or check that met a
// placeholder on the benchmark VM; FuzzPlaceholderSpans checks the two
// agree).
func placeholderSpans(data []byte) [][]int {
	var out [][]int
	for i := 0; ; {
		k := bytes.Index(data[i:], []byte("{{"))
		if k < 0 {
			return out
		}
		p := i + k
		j := p + 2
		for j < len(data) && data[j] != '{' && data[j] != '}' && data[j] != '\n' {
			j++
		}
		if j+1 < len(data) && data[j] == '}' && data[j+1] == '}' {
			out = append(out, []int{p, j + 2})
			i = j + 2
		} else {
			i = p + 1
		}
	}
}

// IsMarkdown reports whether the validator reads a regular file of this
// name (or path) as Markdown: its name ends in ".md", any case.
func IsMarkdown(name string) bool { return hasMarkdownExt(name) }

// FactsOf computes the MarkdownFacts of a Markdown file from what was
// read of it: all of it, or, when truncated, its first MaxMarkdownBytes.
// They are what the validator would learn reading the same bytes.
func FactsOf(data []byte, truncated bool) MarkdownFacts {
	return factsOf(mdFile{data: data, truncated: truncated})
}
