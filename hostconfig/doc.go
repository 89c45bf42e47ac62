// Package hostconfig registers tv's local stdio MCP server in the config
// files of MCP hosts, removes it again, and reports what is registered.
//
// # Hosts and files
//
//	claude-code     ~/.claude.json                     mcpServers.NAME = {"type":"stdio","command":…,"args":[…]}
//	claude-desktop  Linux:   $XDG_CONFIG_HOME/Claude/claude_desktop_config.json (default ~/.config/Claude/)
//	                macOS:   ~/Library/Application Support/Claude/claude_desktop_config.json
//	                Windows: %APPDATA%\Claude\claude_desktop_config.json
//	                                                   mcpServers.NAME = {"command":…,"args":[…]}
//	cursor          ~/.cursor/mcp.json                 mcpServers.NAME = {"command":…,"args":[…]}
//	codex           $CODEX_HOME/config.toml (default ~/.codex/config.toml)
//	                                                   [mcp_servers.NAME] command = "…" args = ["…", …]
//
// Path selection is a pure function of Env, so every platform is testable
// anywhere. A relative XDG_CONFIG_HOME or APPDATA is ignored (the default is
// used, as the XDG spec says); a relative CODEX_HOME is refused. Any GOOS
// other than darwin and windows uses the Linux rule.
//
// The entry holds command and args only (plus "type": "stdio" for Claude
// Code, which is what `claude mcp add` writes) — never env, never a
// credential.
//
// # Editing guarantees
//
// The file is edited as text: only the bytes of tv's entry change; every
// other key, server, number (no precision loss), comment, key order,
// indentation and line-ending style stays byte for byte. New text copies the
// indentation and line endings of its siblings (JSON: the whitespace before
// the neighbouring member, the indent unit of the top-level object, CRLF if
// the file uses it; a one-line file gets one-line text). A new file is
// written with 2-space JSON indentation, like Claude Code.
//
//   - Install appends tv's entry as the last member of mcpServers (adding
//     mcpServers as the last top-level member when it is missing), or, in
//     config.toml, appends [mcp_servers.NAME] after one blank line.
//   - An equal entry (same command and args; for JSON a missing or "stdio"
//     type and a missing or empty env count as equal) is left alone: Change
//     "unchanged", the file is not rewritten, its mtime does not move.
//   - A different entry of the same name is replaced only with force;
//     otherwise ErrEntryExists, whose message shows the command and args
//     there and the names — never the values — of other keys such as env,
//     which may hold another tool's secrets.
//   - Uninstall removes exactly the member (and its separator) or the TOML
//     table, including its sub-tables such as [mcp_servers.NAME.env]
//     wherever they are. Comments and blank lines before the next table stay.
//     Uninstall after Install gives back the original bytes when the file
//     existed: for JSON when mcpServers held other servers, or was absent
//     from a non-empty top-level object (an mcpServers that becomes empty is removed when it is the last
//     top-level member — where Install puts a new one — and left as {}
//     otherwise), or was exactly {} and not the last member; for TOML
//     whenever the file ended in a newline (a file without a final newline
//     gets one).
//   - When removing tv's entry leaves nothing (JSON: an empty top-level
//     object; TOML: only whitespace), the file is deleted — an empty config
//     means the same as none to every host, and tv most likely created it.
//     A symlinked config is never deleted; it is written empty instead.
//   - Malformed input (not valid JSON, top level not an object, mcpServers
//     not an object, mcpServers or NAME duplicated; TOML that tv's lexer
//     cannot follow — unterminated strings, arrays or headers — a duplicate
//     [mcp_servers.NAME], or tv's entry defined by dotted keys or inline
//     tables) stops with ErrMalformed naming the file, line and column; the
//     file is not touched. Duplicate keys elsewhere are not tv's business
//     and are kept as they are. JSON with comments or trailing commas
//     (JSONC) counts as malformed. A UTF-8 byte order mark is kept.
//
// # Writing
//
// Writes are atomic: a temporary file in the same directory, fsync, rename,
// fsync of the directory. The file keeps its permission bits; a new file gets
// 0600 (~/.claude.json holds other tools' secrets) and missing directories
// 0700. A symlinked config file is written through to its target, so the
// link survives. Just before the rename tv re-reads the file; if another
// program (a running Claude Code rewrites ~/.claude.json often) changed it,
// tv re-applies its edit to the new content, up to MaxWriteAttempts times.
package hostconfig
