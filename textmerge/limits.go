package textmerge

// MaxEditLines bounds the edit distance (lines inserted plus deleted)
// the diff searches for a shortest script: the search's memory grows
// with its square. Texts further apart get a correct but coarser diff.
const MaxEditLines = 4096
