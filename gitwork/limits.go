package gitwork

// Limits the package enforces. Error messages print them.
const (
	// MaxListingBytes bounds the output of `git ls-files -s` or
	// `git ls-tree -r` read for one tree (room for well over 100,000
	// entries with long paths).
	MaxListingBytes = 256 << 20 // 256 MiB
	// MaxExcludesBytes bounds the core.excludesFile read (ignore's
	// MaxIgnoreFileBytes applies to its content too).
	MaxExcludesBytes = 1 << 20 // 1 MiB
)
