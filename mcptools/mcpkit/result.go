package mcpkit

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Envelope is the structured content of every successful result.
type Envelope struct {
	CapturedAt int64 `json:"captured_at"` // Unix seconds
	Workspace  any   `json:"workspace"`
	Data       any   `json:"data"`
}

// Success returns a result whose structured content is the envelope
// {captured_at: now, workspace, data} and whose text content is that
// envelope serialized, as protocol 2025-06-18 recommends for clients that
// read only text.
func Success(now time.Time, workspace, data any) (*mcp.CallToolResult, error) {
	return Structured(Envelope{CapturedAt: now.Unix(), Workspace: workspace, Data: data})
}

// Structured returns a result carrying v as structured content and, as
// its one text block, v serialized.
func Structured(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return EncodedResult(b), nil
}

// Failure returns an isError result explaining a domain failure (refused
// input, missing file, stale version, failed command). The text is for the
// model: what went wrong and, where it helps, what to do instead.
func Failure(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}},
		IsError: true,
	}
}
