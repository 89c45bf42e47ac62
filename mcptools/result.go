package mcptools

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Envelope is the structured content of every successful result.
type Envelope struct {
	CapturedAt int64 `json:"captured_at"` // Unix seconds
	Workspace  any   `json:"workspace"`
	Data       any   `json:"data"`
}

// Success returns a result whose structured content is the envelope
// {captured_at: now, workspace, data} and whose text content is text, a
// rendering for a model to read.
func Success(now time.Time, workspace, data any, text string) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(Envelope{CapturedAt: now.Unix(), Workspace: workspace, Data: data})
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return &mcp.CallToolResult{
		Content:              []mcp.Content{mcp.NewTextContent(text)},
		RawStructuredContent: raw,
	}, nil
}

// Failure returns an isError result explaining a domain failure (refused
// input, missing file, stale version, failed command). The text is for the
// model: what went wrong and, where it helps, what to do instead.
func Failure(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf(format, args...))},
		IsError: true,
	}
}
