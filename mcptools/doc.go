// Package mcptools is the `tv mcp local` MCP server: file, search, edit and
// shell tools over the launch directory, the linked git worktrees of its
// repository and the mounted tv checkouts. The plumbing it shares with
// the vault server (tool specs, results, argument validation, the SDK
// server and the stdio transport) is package mcptools/mcpkit; its ordered
// tool list (Tools) feeds the server, the tests, the schema snapshots
// and the README table (mcpkit.ToolsMarkdown).
//
// Workspaces are resolved afresh at every call (nothing is pinned): the
// launch directory ("launch"), every other worktree of its git repository
// ("worktree:/abs/path", read from $GIT_COMMON_DIR/worktrees/*/gitdir) and
// every tv checkout in the mount registry ("checkout:/abs/path"), which
// TV_WORKSPACE_PATHS replaces when set. No tool switches a current
// workspace; every tool takes an optional workspace, default launch.
// (read_file keeps the launch directory open between calls, but each call
// first checks that the launch path still names that directory and opens
// it afresh when not, so it too serves what the path names at the call.)
//
// worktree_create and worktree_remove run stock git (git worktree add and
// remove) on the launch repository: the only tools that make or remove
// workspaces, and the way into a --require-branch gate.
//
// Git state (branch, HEAD, linked worktrees) is read from the repository
// files directly: go-git has no API for linked worktrees, and only
// gitbackend may import it. Only the dirty flag runs `git status
// --porcelain` (when git is installed), which uses git's index stat cache
// and so stays fast on big trees; it stops at the first line of output and
// is bounded by DirtyTimeout, past which dirty is null with a note. A tv
// checkout that is not a git worktree has dirty null (walk-test is the
// tool for it). The --require-branch glob is matched with path.Match
// against the branch name ("*" does not cross "/").
//
// All file access goes through package wsfs (os.Root, no symlink
// components, no special files, atomic writes).
//
// Result size caps: the 32 KiB structured-result cap of the paging
// convention is not applied to these tools; the reference's own caps apply
// instead (read_file 4 MiB, grep output 1 MiB, execute_bash output 1 MiB,
// list_directory 1,000 entries), because these tools do not page and a
// model reading a file needs its content whole. Each cap is a constant in
// limits.go.
package mcptools

//go:generate env UPDATE_TOOLSNAPS=1 go test -run ^(TestToolSnapshots|TestToolsReadme)$ .
//go:generate env UPDATE_README=1 go test -run ^TestReadmeGeneratedSections$ ../internal/tvcmd
