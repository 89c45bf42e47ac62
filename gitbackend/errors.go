package gitbackend

import (
	"errors"
	"fmt"

	"github.com/thalix/tv/engine"
)

// Sentinel errors of the git backend. Contract errors of engine.Refs and
// engine.Objects wrap the engine sentinels (ErrRefStale, ErrRefLocked,
// ErrRefNotFound, ErrObjectNotFound) instead.
var (
	// ErrNotVault: the path exists but is not a tv vault (not a bare git
	// repository, or one without tv.vaultid in its config). Matches
	// engine.ErrUsage.
	ErrNotVault = fmt.Errorf("%w: not a tv vault", engine.ErrUsage)

	// ErrUnreachable: the server of a remote vault was not reached (or
	// its answer was lost). Nothing was changed by tv; exit code 1.
	ErrUnreachable = errors.New("server not reached")

	// ErrNoAtomic: the server does not advertise the atomic push
	// capability; tv refuses to push. Matches engine.ErrRefused.
	ErrNoAtomic = fmt.Errorf("%w: server has no atomic push", engine.ErrRefused)

	// ErrNoSSHKey: no ssh agent and no default key to reach an ssh vault.
	// Matches engine.ErrPermission.
	ErrNoSSHKey = fmt.Errorf("%w: no ssh credentials", engine.ErrPermission)

	// ErrNoTransport: OpenRemote or Publish was given no Transport: the
	// program was built without network transports (the lean tv binary;
	// tv-full opens remote vaults). Matches engine.ErrUsage.
	ErrNoTransport = fmt.Errorf("%w: this program was built without network transports (remote vaults need tv-full)", engine.ErrUsage)

	// ErrWriterDone: the ObjectWriter was finished, aborted, or failed
	// earlier; it accepts no more objects. Matches engine.ErrUsage.
	ErrWriterDone = fmt.Errorf("%w: object writer is done", engine.ErrUsage)

	// ErrPushLayout: OpenPushReader met a repository or quarantine it does
	// not read in-process (packs in the quarantine, alternates, reftable,
	// another object format); read it with git instead.
	ErrPushLayout = errors.New("repository layout read only by git")
)
