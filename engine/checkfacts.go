package engine

import "github.com/thalix/tv/icm"

// Reading the Markdown files of a tree is most of what `tv check` does
// beyond the lstat per file that git status also makes. Its scan reads
// each Markdown file where it would lstat it, in the folder it lists (an
// open, fstat and read by name in that folder: scanFilter.facts), and
// hands the validator their facts; the validator reads only what it must
// (contracts) and a file the scan could not read, whose error it reports.

// scannedFacts is an icm.FactCache of the facts of the Markdown files the
// scan read, by slash path.
type scannedFacts map[string]icm.MarkdownFacts

func (f scannedFacts) Facts(_ int, p string) (icm.MarkdownFacts, bool) {
	m, ok := f[p]
	return m, ok
}

func (scannedFacts) Learned(int, string, []byte, icm.MarkdownFacts) {}
