package hook

import "errors"

// Sentinel errors of the hook package. Refusals of a push are not errors
// of the hook: PreReceive prints them and returns an error wrapping
// ErrPushRefused.
var (
	// ErrPushRefused: the push broke at least one of tv's rules; the
	// refusal lines are already printed.
	ErrPushRefused = errors.New("push refused")
	// ErrNotBare: tv hook install was given something that is not a bare
	// git repository.
	ErrNotBare = errors.New("not a bare git repository")
	// ErrHookExists: the repository already has a hook of that name that
	// tv did not write.
	ErrHookExists = errors.New("a hook that tv did not install is in the way")
	// ErrUsage: a malformed option (an identity variable name that is no
	// environment variable name).
	ErrUsage = errors.New("usage")
	// ErrGit: reading the repository failed (git missing or failing, or a
	// repository or quarantine that cannot be read).
	ErrGit = errors.New("git failed")
)
