package gitbackend

import (
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

	// ErrWriterDone: the ObjectWriter was finished, aborted, or failed
	// earlier; it accepts no more objects. Matches engine.ErrUsage.
	ErrWriterDone = fmt.Errorf("%w: object writer is done", engine.ErrUsage)
)
