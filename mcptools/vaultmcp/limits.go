package vaultmcp

import (
	"time"

	"github.com/thalix/tv/mcptools/mcpkit"
)

// Limits of the vault MCP server. Error messages print them; the README
// lists them.
const (
	// ScopeTTL is how long a resolved scope is trusted before the next
	// tools/list or tools/call resolves it again.
	ScopeTTL = 1 * time.Second
	// MaxEvidenceBytes bounds the scope evidence file; past it the oldest
	// records are dropped, keeping the newest half.
	MaxEvidenceBytes = 1 << 20 // 1 MiB
	// MaxStructuredBytes bounds a serialized structured result.
	MaxStructuredBytes = 32 << 10 // 32 KiB
	// MaxFileBytes bounds the files vault_file_read pages through and
	// vault_file_info hashes.
	MaxFileBytes = 1 << 20 // 1 MiB
	// DefaultPageBytes, MinPageBytes and MaxPageBytes bound max_bytes of
	// vault_file_read.
	DefaultPageBytes = 8192
	MinPageBytes     = 4
	MaxPageBytes     = 8192
	// DefaultFindLimit and MaxFindLimit bound limit of vault_file_find.
	DefaultFindLimit = 100
	MaxFindLimit     = 1000
	// MaxListEntries bounds the entries vault_workspace_list and
	// vault_template_list return (fewer when MaxStructuredBytes binds).
	MaxListEntries = 200
	// MaxFindingsShown bounds the ICM findings a walk-test result or a
	// refused commit carries.
	MaxFindingsShown = 50
	// MaxInputLineBytes bounds one JSON-RPC input line (the local server's
	// limit, shared).
	MaxInputLineBytes = mcpkit.MaxInputLineBytes
	// ResolveTimeout bounds one scope resolution's vault reads.
	ResolveTimeout = 10 * time.Second
	// EvidenceLockTimeout bounds the wait for the evidence file's lock.
	EvidenceLockTimeout = 5 * time.Second
)
