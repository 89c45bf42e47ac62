package mcptools

import (
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
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(text)},
		StructuredContent: Envelope{CapturedAt: now.Unix(), Workspace: workspace, Data: data},
	}, nil
}

// SuccessTexts is Success with several text content blocks, in order
// (read_file: the content itself, then a summary line).
func SuccessTexts(now time.Time, workspace, data any, texts ...string) (*mcp.CallToolResult, error) {
	content := make([]mcp.Content, len(texts))
	for i, t := range texts {
		content[i] = mcp.NewTextContent(t)
	}
	return &mcp.CallToolResult{
		Content:           content,
		StructuredContent: Envelope{CapturedAt: now.Unix(), Workspace: workspace, Data: data},
	}, nil
}

// appendJSON encodes the envelope like encoding/json (see appendMessage).
func (v Envelope) appendJSON(e *jsonEnc) error {
	e.raw(`{"captured_at":`)
	e.int(v.CapturedAt)
	e.raw(`,"workspace":`)
	if err := e.any(v.Workspace); err != nil {
		return err
	}
	e.raw(`,"data":`)
	if err := e.any(v.Data); err != nil {
		return err
	}
	e.raw("}")
	return nil
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
