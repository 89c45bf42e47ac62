package mcpkit

import "time"

// Limits of the stdio transport both tv MCP servers use. Error messages
// print them; the README lists them.
const (
	// MaxInputLineBytes bounds one JSON-RPC input line, envelope included.
	MaxInputLineBytes = 1 << 20 // 1 MiB
	// ShutdownGrace is how long requests still running when stdin closes
	// may take before they are cancelled.
	ShutdownGrace = 2 * time.Second
)
