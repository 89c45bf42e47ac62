package mcpdoctor

import "time"

// Limits and durations of a check. Reports and error messages print them.
const (
	// DefaultTimeout bounds one server's whole check — launch, initialize,
	// tools/list, the call — when Target.Timeout is zero: 10 s.
	DefaultTimeout = 10 * time.Second

	// CloseGrace is how long a server may take to exit after its stdin is
	// closed before its process group is killed: 2 s. After a timeout there
	// is no grace; the group is killed at once.
	CloseGrace = 2 * time.Second

	// ExitNoticeWait is how long the doctor waits, after the connection
	// breaks, for the server process to exit, so it can report "the server
	// exited" with its exit status rather than a bare protocol error: 500 ms.
	ExitNoticeWait = 500 * time.Millisecond

	// WaitDelay bounds the wait for a killed server's stderr to close (a
	// stray process outside its group may hold it): 1 s.
	WaitDelay = time.Second

	// MaxStderrBytes is how much of the end of a server's stderr a failed
	// check reports: 4 KiB.
	MaxStderrBytes = 4 << 10

	// MaxTextBytes caps the text of a call's result quoted in a report:
	// 1 KiB.
	MaxTextBytes = 1 << 10

	// MaxToolNameBytes is the longest tool name accepted: 64 bytes, the
	// limit of ToolNamePattern.
	MaxToolNameBytes = 64

	// MaxListPages is the most tools/list pages the doctor follows before
	// it calls the server's pagination broken: 100.
	MaxListPages = 100
)
