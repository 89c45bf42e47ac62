package gitwork

import "errors"

// Sentinel errors. Every error the package returns wraps one of them (or
// is an I/O failure of the directory given).
var (
	// ErrNotRepository: the directory is not inside a git work tree.
	ErrNotRepository = errors.New("not in a git work tree")
	// ErrNoGit: the git command is not installed (needed for the index and
	// committed trees only).
	ErrNoGit = errors.New("git is not installed")
	// ErrBadRevision: a revision names no commit or tree of the repository.
	ErrBadRevision = errors.New("unknown revision")
	// ErrBroken: the repository cannot be read: a corrupt index, a missing
	// or damaged object, an unmerged index entry.
	ErrBroken = errors.New("broken git repository")
	// ErrSubmodule: a tree holds a submodule (a gitlink) or a nested
	// repository, which a tv workspace never holds.
	ErrSubmodule = errors.New("nested git repository")
	// ErrTooLarge: a listing or the excludes file is over its limit.
	ErrTooLarge = errors.New("over a limit")
)
