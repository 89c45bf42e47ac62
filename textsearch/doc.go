// Package textsearch is a fast, bounded grep over a directory tree opened
// as an *os.Root: the engine behind the grep MCP tool.
//
// # Semantics
//
// A pattern is an RE2 regular expression (Go's regexp) or, with
// Options.Fixed, a literal string. It is applied to each line without its
// "\n" (grep semantics): ^ and $ (and \A, \z) anchor at the line's start and
// end, a match never spans lines, and one Match is reported per matching
// line with the 1-based byte column of its first match. Reported text drops
// a trailing "\r", replaces invalid UTF-8 by U+FFFD (the result is meant
// for JSON) and is cut to MaxLineBytes; Column always counts the file's
// original bytes.
//
// A file with a NUL byte in its first BinarySniffBytes is binary: it is
// skipped and counted in Result.BinarySkipped. Symlinks, FIFOs, sockets and
// devices are never opened.
//
// # Limits and determinism
//
// The reference's limits are the constants in limits.go: MaxPatternBytes,
// MaxFiles, MaxScanBytes, MaxOutputBytes, MaxContext, MaxLimit and
// DefaultLimit. Files are numbered in walk order, which is byte order of
// their slash paths (directory entries are sorted by name with "/"
// appended to directories' names). Workers search files in parallel; a
// merger consumes their results strictly in that order and applies the
// match limit and the file, byte and output caps there, so Result is the
// same for any scheduling: the first Limit matches in (path, line) order.
// Once the merger stops, workers skip the files after the stop point and
// the walk ends.
//
// # Speed
//
// Each file is opened relative to its parent directory's descriptor with
// O_NOFOLLOW (one openat, fstat, usually one read into a pooled buffer,
// close). A fixed string is found with bytes.Index (SIMD). For a regular
// expression, regexp/syntax is used to extract a small set of literals one
// of which every match must contain (the longest required literal of a
// concatenation, the literals of an alternation, small character classes
// and optional parts expanded into exact strings); the file is scanned for
// them with bytes.Index and the regexp runs only on the lines that hold
// one. Without such a literal, a rewrite of the regexp that cannot cross a
// "\n" runs over the whole buffer (or, for a regexp anchored at ^, the
// regexp runs per line). FuzzLiteralExtraction checks every strategy
// against the plain per-line regexp.
package textsearch
