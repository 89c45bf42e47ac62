// Package vaultmcp is the `tv mcp serve` MCP server: the vault's tools over
// stdio, calling the engine in-process through the same API as the CLI, so
// every call is authorized by the same code path as the equivalent `tv`
// command against its actual target. Visibility never grants access.
//
// Two modes:
//
//   - Unscoped (`tv mcp serve`): identity and discovery only —
//     vault_whoami, vault_template_list, vault_workspace_list (the
//     workspaces the caller can read) and vault_workspace_checkout (the
//     same engine.Checkout as `tv workspace checkout`, recorded in the
//     mount registry).
//   - Scoped (`tv mcp serve --workspace W --stage stages/NN-slug`): the
//     tools the stage's own CONTEXT.md policy declares (YAML frontmatter,
//     icm.ParsePolicy), intersected with the caller's effective rank on
//     the stage folder: read allows vault_file_info, vault_file_find,
//     vault_file_read and vault_workspace_walk_test; write (and manage)
//     adds vault_workspace_commit.
//
// Scope is version-bound and fails closed. It is computed from the
// workspace's head version, the contract's blob id and the access
// version, cached for at most ScopeTTL, and re-checked before every
// tools/list and tools/call. Any policy problem (missing file or
// frontmatter, an icm reason code), a caller without read on the stage,
// no login, or a vault read error leaves zero tools visible and every call
// refused. A real change of the visible set sends
// notifications/tools/list_changed; a call to a tool that is not visible
// now is refused with an isError result before the tool does anything.
// (The list filter hides tools from tools/list only; a call of a hidden
// tool reaches its handler, which refuses it with an explanation rather
// than a bare JSON-RPC "not found". The handler checks the scope itself,
// so access never depends on the filter.)
//
// Each resolution whose inputs or outcome differ from the previous one
// appends one JSON line to the scope evidence file (EvidencePath): time,
// workspace id, stage, contract version (blob id), access version, rank,
// visible names, hidden count, result, reason and a random correlation id
// — never contract text, credentials or local paths. The file is bounded
// by MaxEvidenceBytes: past it, the oldest records are dropped, keeping
// the newest half, rewritten atomically under a lock shared by every
// server.
//
// Paths are workspace-relative slash paths ("stages/01-research/CONTEXT.md").
// Scoped file tools accept any path of the scoped workspace that the
// caller may read, not only the stage's own folder: a stage contract
// routes its Inputs to other stages' outputs ("../01-research/output/").
// The engine checks read on every path; a path the caller may not read is
// refused whether or not it exists. vault_workspace_commit likewise
// commits whatever the checkout changed that the caller may write (the
// engine checks write on every changed path); walk-test and commit refuse
// a checkout of another workspace or vault.
//
// Results follow the paging conventions of seeds/004: structured content
// {captured_at (Unix seconds), repository ({id, name} of the workspace, or
// null for vault-wide discovery), data}, with an output schema, a text
// fallback that repeats the JSON, at most MaxStructuredBytes serialized;
// domain failures are isError results with an explanation. vault_file_read
// pages UTF-8 text files of at most MaxFileBytes by byte offset, on
// character boundaries, bound to a SHA-256 revision.
package vaultmcp
