// Package mcptools is the `tv mcp local` MCP server: file, search, edit and
// shell tools over the launch directory, the linked git worktrees of its
// repository and the mounted tv checkouts. It also holds the small
// framework the tv MCP servers share:
//
//   - Spec: one tool's name, title, description, annotations, strict input
//     schema and output schema; Spec.MCPTool turns it into the official
//     Go SDK's tool (github.com/modelcontextprotocol/go-sdk). Local servers
//     keep one ordered list of specs (Tools) that feeds the server, the
//     tests, the schema snapshots and the README table (ToolsMarkdown).
//   - Success, Structured and Failure: every successful result carries
//     structured content {captured_at, workspace, data} and, as its one
//     text block, that content serialized (protocol 2025-06-18's advice);
//     domain failures are isError results with an explanation.
//   - Validator and DecodeArgs: strict argument checking with the SDK's
//     JSON Schema library (github.com/google/jsonschema-go), messages
//     naming the argument, then strict decoding (unknown fields refused).
//     A cheap first pass (validate_fast.go) accepts the plain calls
//     (closed objects of strings, integers and booleans within simple
//     bounds) without the library; it never refuses, so every refusal and
//     its message is the library's.
//   - NewServer, Handler and Serve: both tv servers are the SDK's server
//     (mcp.Server: initialize and version negotiation of every version the
//     SDK knows, ping, tools/list, tools/call, cancellation, 2026-07-28
//     server/discover and subscriptions/listen, list_changed), with tools
//     added through Handler (validate, run, isError on a domain failure)
//     and tools/list kept in list order, and a tools/call result encoded
//     once (encode.go, EncodedResult): the SDK's encoding scanned its text
//     and structured content three to four times, most of a read_file
//     call's time; the Transport writes the bytes for the placeholder the
//     SDK's JSON-RPC layer marshals.
//   - Transport: the one layer of tv's own under the SDK server, because
//     the SDK's stdio transport ends the session at the first line it
//     cannot decode. It answers malformed JSON-RPC with the right error
//     and id, refuses lines over MaxInputLineBytes with the request's id
//     wherever it stands, serves batches while the protocol allows them,
//     echoes ids exactly, drops the answer of a cancelled request, and
//     sends list_changed only where the protocol allows it. A pipe or
//     socket stdin is read through Go's poller (pollin_unix.go), so the
//     goroutines handling a line run on the thread that read it.

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
