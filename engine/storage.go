package engine

import (
	"context"
	"io"
	"time"
)

// Vault is the storage a workspace engine runs on: a git repository's refs
// and objects plus its identity. gitbackend implements it.
type Vault interface {
	Refs
	Objects
	// ID returns the vault's stable random id (kept in the vault's refs).
	ID() string
	// Path returns where the vault lives (a directory for on-disk vaults,
	// "" for in-memory ones). It is never written into a checkout.
	Path() string
}

// Ref is one named reference and the object it points at.
type Ref struct {
	Name string // full name, e.g. "refs/tv/workspaces/ws_abc"
	Hash Hash
}

// RefUpdate is one compare-and-swap step of a ref transaction.
//
//   - Old is the value the caller read. ZeroHash means "must not exist"
//     (create-if-absent).
//   - New is the value to store. ZeroHash means "delete".
//   - Verify makes the step a check only: Old must hold (under the ref's
//     lock, like every step) and the ref keeps its value; New is ignored.
//     It binds a transaction to a ref it reads but does not change.
type RefUpdate struct {
	Name   string
	Old    Hash
	New    Hash
	Verify bool
}

// Refs reads and atomically updates references.
type Refs interface {
	// Ref returns the current value of the ref name (loose or packed).
	// A missing ref yields an error wrapping ErrRefNotFound.
	Ref(ctx context.Context, name string) (Hash, error)

	// ListRefs returns every ref whose full name starts with prefix,
	// sorted by name. No match is an empty slice, not an error.
	ListRefs(ctx context.Context, prefix string) ([]Ref, error)

	// UpdateRefs applies all updates or none. Every update is a
	// compare-and-swap against its Old value, checked while the ref's lock
	// is held. A stale Old yields ErrRefStale (naming the ref) and changes
	// nothing; a lock held by another writer, or a stale lock left by a
	// crashed one, yields ErrRefLocked naming the lock file and changes
	// nothing. Objects named by New must already be durable (written by a
	// finished ObjectWriter). On success every update is durable (fsynced).
	// Readers never observe a missing or empty ref while it happens.
	UpdateRefs(ctx context.Context, updates ...RefUpdate) error
}

// FileMode is a git tree entry mode.
type FileMode uint32

// Git tree entry modes tv uses. Symlinks and submodules never enter a vault.
const (
	ModeFile       FileMode = 0o100644
	ModeExecutable FileMode = 0o100755
	ModeDir        FileMode = 0o040000
)

// TreeEntry is one entry of a git tree object.
type TreeEntry struct {
	Name string
	Mode FileMode
	ID   Hash
}

// Signature is a commit author or committer.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is a git commit object. Message holds the whole message,
// trailers included.
type Commit struct {
	ID        Hash // set when read; ignored when written
	Tree      Hash
	Parents   []Hash
	Author    Signature
	Committer Signature
	Message   string
}

// Objects reads git objects and opens writers for new ones.
// Objects are immutable: a Hash always names the same bytes.
type Objects interface {
	// ReadCommit returns the commit id, or an error wrapping ErrObjectNotFound.
	ReadCommit(ctx context.Context, id Hash) (*Commit, error)

	// ReadTree returns the entries of tree id in git order, or an error
	// wrapping ErrObjectNotFound.
	ReadTree(ctx context.Context, id Hash) ([]TreeEntry, error)

	// OpenBlob streams blob id and returns its size; the caller closes the
	// reader. A missing blob yields ErrObjectNotFound.
	OpenBlob(ctx context.Context, id Hash) (io.ReadCloser, int64, error)

	// NewObjectWriter starts a batch of new objects. Nothing it writes is
	// visible to readers of refs (objects are unreachable until a ref
	// points at them); Finish makes them durable and readable.
	NewObjectWriter(ctx context.Context) (ObjectWriter, error)
}

// ObjectWriter writes one batch of new objects. Implementations write a
// batch as a single packfile with its index (never thousands of loose
// objects) and skip objects the vault already has. It is not safe for
// concurrent use.
type ObjectWriter interface {
	// WriteBlob streams exactly size bytes from r into a blob and returns
	// its id. Memory stays bounded: large blobs are streamed, small ones
	// may be buffered (a bounded number at a time) for parallel
	// compression. Fewer or more bytes than size is an error.
	WriteBlob(r io.Reader, size int64) (Hash, error)

	// WriteTree writes a tree; entries may come in any order (the writer
	// sorts them in git order). Names must be non-empty and contain no '/'.
	WriteTree(entries []TreeEntry) (Hash, error)

	// WriteCommit writes a commit (c.ID is ignored) and returns its id.
	WriteCommit(c *Commit) (Hash, error)

	// Finish makes every object written so far durable (fsynced) and
	// readable through Objects. After Finish the writer is done.
	Finish() error

	// Abort discards the batch. Safe to call after Finish (no-op).
	Abort() error
}
