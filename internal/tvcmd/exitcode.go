package tvcmd

import (
	"errors"

	"github.com/thalix/tv/checkfmt"
	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/gitwork"
	"github.com/thalix/tv/hook"
	"github.com/thalix/tv/hostconfig"
	"github.com/thalix/tv/internal/fullexec"
	"github.com/thalix/tv/mounts"
)

// Exit codes: the one table of the project, documented in README.md.
const (
	ExitOK         = 0 // success
	ExitInternal   = 1 // internal fault
	ExitUsage      = 2 // usage: bad command line
	ExitInvalid    = 3 // invalid workspace tree (walk-test findings of severity error)
	ExitConflict   = 4 // conflict: baseline moved, name ambiguous, already exists
	ExitPermission = 5 // permission denied, or not logged in
	ExitNotFound   = 6 // not found
	ExitRefused    = 7 // input refused: unsafe path, over a limit
)

// errorKinds maps engine sentinels to exit codes and the stable code names
// used in `{"error":{"code":…}}`. Order matters only for errors that wrap
// more than one kind; the first match wins.
var errorKinds = []struct {
	err  error
	exit int
	code string
}{
	{errUsage, ExitUsage, "usage"},
	{engine.ErrUsage, ExitUsage, "usage"},
	{engine.ErrInvalidTree, ExitInvalid, "invalid_tree"},
	{engine.ErrConflict, ExitConflict, "conflict"},
	{engine.ErrPermission, ExitPermission, "permission_denied"},
	{engine.ErrNotFound, ExitNotFound, "not_found"},
	{engine.ErrRefused, ExitRefused, "refused"},
	// tv mcp install/uninstall/config (hostconfig).
	{hostconfig.ErrUnknownHost, ExitUsage, "usage"},
	{hostconfig.ErrInvalidEntry, ExitUsage, "usage"},
	{hostconfig.ErrEntryExists, ExitConflict, "conflict"},
	{hostconfig.ErrConcurrentEdit, ExitConflict, "conflict"},
	{ErrNotTVEntry, ExitConflict, "conflict"},
	{mounts.ErrNotMounted, ExitNotFound, "not_found"},
	{hostconfig.ErrMalformed, ExitRefused, "refused"},
	{hostconfig.ErrTooLarge, ExitRefused, "refused"},
	// Remote vaults: the server was not reached (nothing changed).
	{gitbackend.ErrUnreachable, ExitInternal, "server_not_reached"},
	// tv hook: a refused push (its lines are the report), a bad repository.
	{hook.ErrPushRefused, ExitRefused, "refused"},
	{hook.ErrUsage, ExitUsage, "usage"},
	{hook.ErrNotBare, ExitRefused, "refused"},
	{hook.ErrHookExists, ExitConflict, "conflict"},
	// tv check, import --rev: git repositories (gitwork).
	{gitwork.ErrNotRepository, ExitNotFound, "not_found"},
	{gitwork.ErrNoGit, ExitNotFound, "not_found"},
	{gitwork.ErrBadRevision, ExitNotFound, "not_found"},
	{gitwork.ErrBroken, ExitRefused, "refused"},
	{gitwork.ErrSubmodule, ExitRefused, "refused"},
	{gitwork.ErrTooLarge, ExitRefused, "refused"},
	{checkfmt.ErrFormat, ExitUsage, "usage"},
	// tv hands a command line to tv-full, which is not installed.
	{fullexec.ErrNotInstalled, ExitNotFound, "not_found"},
	// tv mcp doctor: a check failed (its report says which and why).
	{ErrCheckFailed, ExitInternal, "check_failed"},
}

// errUsage marks command-line errors found by tv itself or by flag parsing.
var errUsage = errors.New("usage")

// Errors of the `tv mcp` commands (package mcpcmd), here so that the table
// above stays the one map from errors to exit codes.
var (
	// ErrNotTVEntry: uninstall found an entry of that name that does not
	// run tv's server (exit 4, like hostconfig.ErrEntryExists).
	ErrNotTVEntry = errors.New("the entry of this name is not tv's")
	// ErrCheckFailed: tv mcp doctor found at least one problem. Its
	// report was printed; the exit code is 1.
	ErrCheckFailed = errors.New("tv mcp doctor found problems")
)

// classify returns the exit code and code name for err.
func classify(err error) (int, string) {
	if err == nil {
		return ExitOK, ""
	}
	for _, k := range errorKinds {
		if errors.Is(err, k.err) {
			return k.exit, k.code
		}
	}
	return ExitInternal, "internal"
}
