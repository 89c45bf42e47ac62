package gitbackend

import (
	"time"

	"github.com/thalix/tv/engine"
)

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

	// ReceiveKeepBytes bounds the objects a fetch keeps in memory while
	// it indexes the pack as it streams (packrecv.go): the bases its
	// deltas are patched from, and what a checkout then reads without
	// inflating it again. Objects past it are hashed as they stream and
	// read from the pack later; a delta on one of them makes the fetch
	// index the pack with go-git's writer instead.
	ReceiveKeepBytes = 256 << 20 // 256 MiB

	// MaxSymrefDepth bounds how many symbolic refs a read follows.
	MaxSymrefDepth = 5

	// MaxPatchedBytes bounds an object a read resolves from a chain of
	// deltas: the chain's objects are held in memory whole, as git's own
	// reader holds them. It is the largest file tv stores.
	MaxPatchedBytes = engine.MaxFileBytes // 100 MiB

	// AutoPackLimit is how many packs objects/pack may hold. A batch whose
	// pack makes it more merges every pack under ConsolidateMaxBytes into
	// one (consolidate.go), the way `git gc --auto` repacks: opening a
	// vault reads every index and a lookup searches them all, so the count
	// must not grow by one per commit forever.
	AutoPackLimit = 16

	// ConsolidateMaxBytes is the size from which a pack is left alone by
	// consolidation: a big import's pack is not copied again and again.
	ConsolidateMaxBytes = 64 << 20 // 64 MiB

	// TrashFilesPerBatch is how many files of the packs consolidation
	// merged (kept in the vault's tv-trash folder, trash.go) a batch that
	// merges nothing deletes after its own pack is durable. A
	// consolidation retires about two files per batch since the last one,
	// so the trash stays small, and no single commit pays for freeing all
	// of them.
	TrashFilesPerBatch = 4

	// ConsolidateLockStale is the age from which the consolidation lock
	// (objects/pack/tv-consolidate.lock) is taken for the leftover of a
	// killed process and removed. A consolidation copies packs smaller than
	// ConsolidateMaxBytes and takes seconds at most.
	ConsolidateLockStale = 10 * time.Minute

	// DeltaDepth is the longest chain of deltas consolidation writes: an
	// object is stored as a delta of a delta … of a whole object at most
	// this many steps deep, git's default (pack.depth, --depth=50), so a
	// read patches at most that many deltas.
	DeltaDepth = 50

	// DeltaWindow is how many of the objects sorted before it (same type,
	// similar name and size) consolidation tries as the base of an
	// object's delta, git's default (pack.window, --window=10).
	DeltaWindow = 10

	// DeltaMaxObjectBytes is the size from which consolidation stores an
	// object whole without looking for a delta (big files rarely delta
	// well and would hold a window's worth of memory).
	DeltaMaxObjectBytes = 1 << 20 // 1 MiB

	// MaxDeltaChain bounds how many deltas a read follows to the whole
	// base: git's pack-objects never writes chains deeper than 4095
	// (its --depth maximum), so a longer one is a corrupt pack.
	MaxDeltaChain = 4095

	// DeltaBaseCacheBytes is the size of the cache of resolved delta
	// bases of one on-disk vault, like git's core.deltaBaseCacheLimit.
	DeltaBaseCacheBytes = 16 << 20 // 16 MiB

	// RemoteLockRetries is how often a push refused because a ref was
	// locked on the server (another push holds it, e.g. both verify
	// refs/tv/access) is sent again. Waits start at RemoteLockBackoff and
	// double up to RemoteLockMaxBackoff, each jittered by ±50 %: about
	// 6 s in all before engine.ErrRefLocked.
	RemoteLockRetries = 10

	// RemoteLockBackoff is the first wait before re-sending such a push.
	RemoteLockBackoff = 50 * time.Millisecond

	// RemoteLockMaxBackoff caps one wait between such pushes.
	RemoteLockMaxBackoff = 1 * time.Second

	// StaleLockAge is the age from which `tv vault doctor` takes a ref
	// lock file for the leftover of a killed process. Writers hold ref
	// locks for milliseconds.
	StaleLockAge = 1 * time.Minute

	// MaxLooseRefBytes is the most of a loose ref file that listing refs
	// reads: an object id and a newline, or "ref: " and a ref name. A
	// longer file is reported as a corrupt ref.
	MaxLooseRefBytes = 4 << 10

	// MaxLegacyConfigBytes is the largest git config file read for the id
	// of a vault made before VaultIDRef (tv.vaultid, readLegacyID). A
	// vault's config is a few hundred bytes; a larger file is refused.
	MaxLegacyConfigBytes = 1 << 20 // 1 MiB
)
