package ignore

// Limits the package enforces. Error messages print them.
const (
	// MaxExtraPatterns bounds the number of caller patterns in Options.Extra.
	MaxExtraPatterns = 100
	// MaxPatternBytes bounds one caller pattern in Options.Extra.
	MaxPatternBytes = 1 << 10 // 1 KiB
	// MaxIgnoreFileBytes bounds one .gitignore or info/exclude file; a larger
	// file is skipped as if absent.
	MaxIgnoreFileBytes = 1 << 20 // 1 MiB
)
