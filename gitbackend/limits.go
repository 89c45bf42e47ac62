package gitbackend

import "time"

// Limits and tunables of the git backend.
const (
	// RefLockTimeout is how long a ref transaction retries creating a
	// `<ref>.lock` file that exists before it reports engine.ErrRefLocked.
	// It matches git's core.filesRefLockTimeout default.
	RefLockTimeout = 100 * time.Millisecond

	// PackedRefsLockTimeout is how long a delete retries creating
	// `packed-refs.lock`. It matches git's core.packedRefsTimeout default.
	PackedRefsLockTimeout = 1 * time.Second

	// StreamThreshold is the object size above which a packed or loose
	// object is streamed from disk instead of read into memory.
	StreamThreshold = 1 << 20 // 1 MiB

	// MaxSymrefDepth bounds how many symbolic refs a read follows.
	MaxSymrefDepth = 5

	// ObjectCacheBytes is the size of the shared cache of decoded objects
	// (delta bases and small objects) of one on-disk vault.
	ObjectCacheBytes = 32 << 20 // 32 MiB
)
