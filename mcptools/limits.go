package mcptools

import (
	"time"

	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/textsearch"
)

// Limits of the local tools. Error messages print them; the README lists
// them. grep's scan limits are textsearch's (MaxPatternBytes 4 KiB,
// MaxFiles 10,000, MaxScanBytes 32 MiB, MaxOutputBytes 1 MiB).
const (
	// MaxInputLineBytes bounds one JSON-RPC input line, envelope included
	// (the transport's limit, mcpkit.MaxInputLineBytes).
	MaxInputLineBytes = mcpkit.MaxInputLineBytes
	// MaxReadBytes bounds the file read_file reads.
	MaxReadBytes = 4 << 20 // 4 MiB
	// MaxWriteBytes bounds the content write_file and edit_tool write (the
	// input-line limit usually binds first).
	MaxWriteBytes = 4 << 20 // 4 MiB
	// MaxListEntries bounds the entries list_directory returns.
	MaxListEntries = 1000
	// DefaultListDepth, MinListDepth and MaxListDepth bound list_directory's depth.
	DefaultListDepth = 1
	MinListDepth     = 1
	MaxListDepth     = 8
	// MaxIgnorePatterns bounds the extra ignore patterns of one call.
	MaxIgnorePatterns = 100
	// DefaultGrepLimit, MaxGrepLimit and MaxGrepContext bound grep's limit
	// and context arguments.
	DefaultGrepLimit = textsearch.DefaultLimit
	MaxGrepLimit     = textsearch.MaxLimit
	MaxGrepContext   = textsearch.MaxContext
	// MaxEdits bounds the edits of one edit_tool call.
	MaxEdits = 256
	// MaxDiffBytes bounds the unified diff edit_tool returns.
	MaxDiffBytes = 32 << 10 // 32 KiB
	// MaxCommandBytes bounds execute_bash's command.
	MaxCommandBytes = 64 << 10 // 64 KiB
	// DefaultTimeoutSeconds, MinTimeoutSeconds and MaxTimeoutSeconds bound
	// execute_bash's timeout.
	DefaultTimeoutSeconds = 30
	MinTimeoutSeconds     = 1
	MaxTimeoutSeconds     = 45
	// MaxBashOutputBytes bounds execute_bash's combined output; the head
	// and tail are kept with a marker where it was cut.
	MaxBashOutputBytes = 1 << 20 // 1 MiB
	// BashDrainTimeout is how long execute_bash keeps reading output after
	// bash exits while background processes still hold the output open.
	BashDrainTimeout = 200 * time.Millisecond
	// MaxGuidanceBytes bounds the AGENTS.md / CLAUDE.md text workspace_info
	// returns (truncated, with a flag, past it).
	MaxGuidanceBytes = 64 << 10 // 64 KiB
	// MaxBranchBytes bounds worktree_create's branch name.
	MaxBranchBytes = 255
	// WorktreeGitTimeout bounds each git command of worktree_create and
	// worktree_remove.
	WorktreeGitTimeout = 60 * time.Second
	// DirtyTimeout bounds the `git status` that decides a worktree's dirty
	// flag; past it the flag is null (unknown).
	DirtyTimeout = 3 * time.Second
	// MaxGitFileBytes bounds each small repository file workspace
	// discovery reads (.git, HEAD, commondir, worktrees/*/gitdir, loose
	// refs); each must be a regular file.
	MaxGitFileBytes = 64 << 10 // 64 KiB
	// MaxPackedRefsBytes bounds the packed-refs file discovery reads.
	MaxPackedRefsBytes = 16 << 20 // 16 MiB
	// DiscoveryReadTimeout bounds each discovery read (a file on a hung
	// network file system is given up on, not waited for).
	DiscoveryReadTimeout = 2 * time.Second
)
