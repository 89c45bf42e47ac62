package engine

import "errors"

// Sentinel errors. Every error the engine or a storage implementation
// returns wraps exactly one of the top-level kinds below (or is an internal
// fault), so a caller can classify it with errors.Is.
var (
	// ErrNotFound: a workspace, template, ref, object or path does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a baseline moved, a name is ambiguous, or a thing already exists.
	ErrConflict = errors.New("conflict")
	// ErrPermission: the caller lacks the access rank an operation needs,
	// or has no identity (never logged in).
	ErrPermission = errors.New("permission denied")
	// ErrInvalidTree: a workspace tree breaks an ICM error rule.
	ErrInvalidTree = errors.New("invalid workspace tree")
	// ErrRefused: an input was refused: an unsafe path, a forbidden file
	// type, or a value over a limit.
	ErrRefused = errors.New("input refused")
	// ErrUsage: the caller asked for something malformed (a bad argument
	// value that flag parsing cannot catch).
	ErrUsage = errors.New("usage")
)

// Storage-level sentinels. Implementations of Refs and Objects return these
// (wrapped with context); each also matches its top-level kind.
var (
	// ErrRefNotFound: the ref does not exist. Matches ErrNotFound.
	ErrRefNotFound = kindError{"ref not found", ErrNotFound}
	// ErrRefStale: a compare-and-swap saw a different old value than the
	// caller expected (including "already exists" for a create). Matches ErrConflict.
	ErrRefStale = kindError{"ref changed since it was read", ErrConflict}
	// ErrRefLocked: another writer holds the ref's lock file, or a stale
	// lock file was left by a crashed writer. The message names the lock
	// file; it is never removed automatically. Matches ErrConflict.
	ErrRefLocked = kindError{"ref is locked", ErrConflict}
	// ErrObjectNotFound: the object is not in the vault. Matches ErrNotFound.
	ErrObjectNotFound = kindError{"object not found", ErrNotFound}
	// ErrNotLoggedIn: no credential file exists. Matches ErrPermission.
	ErrNotLoggedIn = kindError{"not logged in: run `tv login --user NAME` first", ErrPermission}
)

// kindError is a named sentinel that also matches a broader kind.
type kindError struct {
	msg  string
	kind error
}

func (e kindError) Error() string { return e.msg }

// Unwrap returns the broader kind, so errors.Is(ErrRefStale, ErrConflict) holds.
func (e kindError) Unwrap() error { return e.kind }
