package textsearch

// Limits the package enforces (the reference's grep limits).
const (
	// MaxPatternBytes bounds the search pattern.
	MaxPatternBytes = 4 << 10 // 4 KiB
	// MaxFiles bounds the number of files one search scans.
	MaxFiles = 10000
	// MaxScanBytes bounds the file content one search scans.
	MaxScanBytes = 32 << 20 // 32 MiB
	// MaxOutputBytes bounds the returned output (match and context text).
	MaxOutputBytes = 1 << 20 // 1 MiB
	// MaxContext bounds the lines of context before and after a match.
	MaxContext = 20
	// MaxLimit bounds the number of matches returned.
	MaxLimit = 1000
	// DefaultLimit is the match limit callers apply when none is given.
	DefaultLimit = 200
)

// Limits of this implementation (not in the reference).
const (
	// BinarySniffBytes is how much of a file is checked for a NUL byte to
	// classify it as binary (as git and ripgrep do).
	BinarySniffBytes = 8 << 10 // 8 KiB
	// MaxLineBytes bounds the text of one reported line (match or context);
	// longer lines are cut at a rune boundary.
	MaxLineBytes = 2 << 10 // 2 KiB
)
