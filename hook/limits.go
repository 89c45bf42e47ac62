package hook

import "time"

// Limits of `tv hook pre-receive`. The import limits themselves (files,
// bytes, file size, depth, path length) are the engine's: MaxImportFiles,
// MaxImportBytes, MaxFileBytes, MaxDepth, MaxPathBytes.
const (
	// MaxCommands bounds the ref updates of one push.
	MaxCommands = 1_000
	// MaxLineBytes bounds one "old new ref" line of the hook's input.
	MaxLineBytes = 4 << 10 // 4 KiB
	// MaxNewCommits bounds the commits one ref update may add (and how far
	// back the hook looks for the ref's current value).
	MaxNewCommits = 1_000
	// MaxTreeBytes bounds one tree object the hook reads.
	MaxTreeBytes = 8 << 20 // 8 MiB
	// MaxCommitBytes bounds one commit object the hook reads.
	MaxCommitBytes = 64 << 10 // 64 KiB
	// MaxRefusalLines bounds the refusal lines printed; one more line
	// counts the rest.
	MaxRefusalLines = 100
	// MaxShebangLine bounds the "#!" line of an installed hook script
	// that names tv as its interpreter: Linux before 5.1 reads only the
	// first 128 bytes of a script. A longer line gets a /bin/sh script.
	MaxShebangLine = 127
	// Timeout bounds one run of the hook; past it the push is refused.
	Timeout = 60 * time.Second
)
