// Package mcptools is the `tv mcp local` MCP server: file, search, edit and
// shell tools over the launch directory, the linked git worktrees of its
// repository and the mounted tv checkouts. It also holds the small
// framework the tv MCP servers share:
//
//   - Spec: one tool's name, title, description, annotations, strict input
//     schema and output schema; Spec.MCPTool turns it into an mcp-go tool.
//     Local servers keep one ordered list of specs (Tools) that feeds the
//     server, the tests, the schema snapshots and the README table
//     (ToolsMarkdown).
//   - Envelope, Success and Failure: every successful result carries
//     structured content {captured_at, workspace, data} plus a text
//     rendering; domain failures are isError results with an explanation.
//     read_file's text is the content itself (the first block, as the
//     reference server returns it) and a summary line with the sha256.
//   - DecodeArgs: strict argument decoding (unknown fields refused, named).
//   - Dispatcher: the MCP requests of a tools-only server (initialize,
//     ping, tools/list, tools/call, cancellation, the 2026-07-28
//     server/discover and subscriptions/listen, list_changed
//     notifications), answered as mcp-go's server package answered them,
//     with mcp-go's mcp types; tv does not link that package, whose JSON
//     Schema dependency compiles metaschemas at init (~8 ms per command).
//     Bind turns specs into its tools; testdata/wire holds the bytes it
//     answers.
//   - ServeStdio: a stdio transport of its own around a Dispatcher
//     that refuses input lines over MaxInputLineBytes with a JSON-RPC
//     error and keeps serving, and writes each response with one Write
//     from a pooled buffer, encoded by appendMessage (the JSON-RPC
//     response around a CallToolResult, text content and the envelope
//     written directly: encoding/json re-scans the output of every nested
//     json.Marshaler, which cost more than the tool itself).
//     ServeStdioWith adds direct tools: a plain tools/call of one
//     (jsonrpc, id, method and params with only name and arguments) is
//     served on the read loop without the Dispatcher; `tv mcp local`
//     serves read_file that way. Every other message goes through it.
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
