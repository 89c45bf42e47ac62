package engine

// Limits the engine enforces. Error messages print them; the README lists them.
const (
	// MaxUserBytes bounds a user name.
	MaxUserBytes = 64
	// MaxTokenBytes bounds a token read by `tv login --token-stdin`.
	MaxTokenBytes = 4 << 10 // 4 KiB
)

// Naming limits.
const (
	// MaxNameBytes bounds a workspace or template name.
	MaxNameBytes = 64
	// MaxReasonBytes bounds a commit reason.
	MaxReasonBytes = 8 << 10 // 8 KiB
)

// Import limits: the safe, bounded input rules for folder and zip imports.
const (
	// MaxImportFiles bounds the number of files in one import.
	MaxImportFiles = 100_000
	// MaxImportBytes bounds the total uncompressed bytes of one import.
	MaxImportBytes = 2 << 30 // 2 GiB
	// MaxFileBytes bounds one file of an import or a commit.
	MaxFileBytes = 100 << 20 // 100 MiB
	// MaxDepth bounds the number of path components.
	MaxDepth = 64
	// MaxPathBytes bounds a file path, in bytes.
	MaxPathBytes = 1024
	// MaxComponentBytes bounds one file or folder name, in bytes: the
	// NAME_MAX of Linux, macOS and Windows file systems, beyond which no
	// checkout could write the file.
	MaxComponentBytes = 255
	// MaxZipRatio bounds a zip entry's uncompressed/compressed size ratio.
	MaxZipRatio = 100
	// ZipRatioExemptBytes: entries up to this uncompressed size are exempt
	// from MaxZipRatio (a small file of repeated bytes compresses far better
	// than 100:1 yet cannot bomb anything).
	ZipRatioExemptBytes = 1 << 20 // 1 MiB
	// MaxZipEntries bounds the entries (files and folders) of a zip's
	// central directory, read before anything is inflated.
	MaxZipEntries = 2 * MaxImportFiles
)

// Checkout, walk-test and commit limits.
const (
	// ScanWorkers is how many folders are listed, and files hashed or
	// written, at once.
	ScanWorkers = 8
	// MaxPlanEntries bounds the entries of each list a change plan prints
	// (added, modified, deleted files and folders); counts stay exact.
	MaxPlanEntries = 200
	// MaxFindingsShown bounds the ICM findings a plan prints.
	MaxFindingsShown = 200
	// MaxCommitRetries bounds how often a commit re-applies itself on top
	// of a head that moved without touching its paths.
	MaxCommitRetries = 8
	// MaxPendingPushDepth bounds how many first parents of a workspace's
	// head are searched for the version of an interrupted commit
	// (PendingPushName) before it is taken as not landed.
	MaxPendingPushDepth = 1_000
	// MaxBehindVersions bounds how many versions walk-test counts back
	// from the head to a checkout's baseline.
	MaxBehindVersions = 10_000
)

// MaxMergeBytes bounds each version of a file that `tv workspace update
// --merge` merges as text (and `tv workspace diff` compares line by line).
const MaxMergeBytes = 8 << 20 // 8 MiB

// MaxDiffBytes bounds the hunk lines `tv workspace diff` prints (text or
// --json); files past it are listed without their hunks.
const MaxDiffBytes = 4 << 20 // 4 MiB

// History limits.
const (
	// DefaultLogLimit is how many versions `tv workspace log` shows.
	DefaultLogLimit = 50
	// MaxLogLimit bounds --limit of `tv workspace log`.
	MaxLogLimit = 10_000
)

// MaxManifestBytes bounds the manifest a checkout may hold (room for
// MaxImportFiles entries).
const MaxManifestBytes = 64 << 20 // 64 MiB

// Access limits.
const (
	// MaxGrants bounds the grants a vault holds.
	MaxGrants = 10_000
	// MaxGrantsBytes bounds grants.json.
	MaxGrantsBytes = 4 << 20 // 4 MiB
)

// MinManifestLogBytes is how large the manifest log may grow before a
// commit writes the manifest whole again, whatever the manifest's size
// (beyond it, the log may hold a quarter of the manifest's bytes).
const MinManifestLogBytes = 64 << 10 // 64 KiB

// MaxStatCacheBytes bounds the stat cache tv reads: a larger one is
// ignored (it is only an accelerator).
const MaxStatCacheBytes = 2 * MaxManifestBytes
