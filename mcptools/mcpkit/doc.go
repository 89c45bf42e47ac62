// Package mcpkit is the small framework both tv MCP servers share (`tv mcp
// local`, package mcptools, and `tv mcp serve`, package vaultmcp); neither
// server imports the other:
//
//   - Spec: one tool's name, title, description, annotations, strict input
//     schema and output schema; Spec.MCPTool turns it into the official
//     Go SDK's tool (github.com/modelcontextprotocol/go-sdk). A server
//     keeps one ordered list of specs that feeds the server, the tests,
//     the schema snapshots and the README table (ToolsMarkdown).
//   - Success, Structured and Failure: every successful result carries
//     structured content {captured_at, workspace, data} and, as its one
//     text block, that content serialized (protocol 2025-06-18's advice);
//     domain failures are isError results with an explanation. Data
//     that is a JSONAppender writes its own JSON into the envelope
//     (read_file: a file's text quoted eight bytes at a time by
//     internal/jsonquote, not json.Marshal's byte by byte scan).
//   - Validator and DecodeArgs: strict argument checking with the SDK's
//     JSON Schema library (github.com/google/jsonschema-go), messages
//     naming the argument, then strict decoding (unknown fields refused).
//     A cheap first pass (validate_fast.go, FastAccepts) accepts the plain
//     calls (closed objects of strings, integers and booleans within
//     simple bounds) without the library; it never refuses, so every
//     refusal and its message is the library's (FuzzFastArgsAgree).
//   - NewServer and Serve: both tv servers are the SDK's server
//     (mcp.Server: initialize and version negotiation of every version the
//     SDK knows, ping, tools/list, tools/call, cancellation, 2026-07-28
//     server/discover and subscriptions/listen, list_changed), with
//     tools/list kept in list order, and a tools/call result encoded once
//     (encode.go, EncodedResult): the SDK's encoding scanned its text and
//     structured content three to four times, most of a read_file call's
//     time; the Transport writes those bytes for the placeholder the SDK's
//     JSON-RPC layer marshals (a text block that is the structured JSON is
//     quoted by escaping quotes and backslashes only), framing the
//     response in room left before them in a recycled buffer
//     (resultHeadroom) rather than copying them. A pipe or socket
//     stdin is read through Go's poller (pollin_unix.go; a pipe or FIFO
//     opened anew, so the parent's descriptor stays blocking), by the
//     SDK's read loop itself, so the goroutines handling a line run on the
//     thread that read it; TuneProcs gives `tv mcp local` one P, so the
//     SDK's hand-offs between goroutines never wake another thread.
//   - Transport: the one layer of tv's own under the SDK server, because
//     the SDK's stdio transport ends the session at the first line it
//     cannot decode. It screens each line in one pass over its members
//     (members.go, no maps), answers malformed JSON-RPC with the right error
//     and id, refuses lines over MaxInputLineBytes with the request's id
//     wherever it stands, serves batches while the protocol allows them,
//     echoes ids exactly, drops the answer of a cancelled request, and
//     sends list_changed only where the protocol allows it.
//
// Its tests run through the servers that use it (mcptools' transport,
// validator and wire tests; vaultmcp's wire tests).
package mcpkit
