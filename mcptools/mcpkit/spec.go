package mcpkit

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Annotations are a tool's behaviour hints. Every one is set explicitly in
// the tool definition (none is left to a client's default).
type Annotations struct {
	ReadOnly    bool // the tool changes nothing
	Destructive bool // the tool may overwrite or delete (meaningful when not read-only)
	Idempotent  bool // repeating the call with the same arguments has no further effect
	OpenWorld   bool // the tool reaches beyond the workspaces (processes, network)
}

// Spec is one tool's definition without its handler: what the server
// registers, the snapshot test records and the README table shows.
type Spec struct {
	Name        string
	Title       string
	Description string
	// Input is the JSON Schema of the arguments; it must be an object
	// schema with additionalProperties false (see Object).
	Input Schema
	// Data is the JSON Schema of the envelope's data member; Output wraps
	// it in the envelope.
	Data Schema
	// Workspace is the JSON Schema of the envelope's workspace member.
	Workspace   Schema
	Annotations Annotations
	// Gated tools obey the branch gate (--require-branch).
	Gated bool
}

// OutputSchema returns the tool's full output schema: the envelope
// {captured_at, workspace, data} with the tool's data schema.
func (s Spec) OutputSchema() Schema {
	return EnvelopeSchema(s.Workspace, s.Data)
}

// MCPTool returns the SDK's tool definition: input and output schemas as
// raw JSON and every annotation set.
func (s Spec) MCPTool() *mcp.Tool {
	return s.MCPToolWithOutput(s.OutputSchema())
}

// MCPToolWithOutput is MCPTool with another output schema (the vault
// server's envelope).
func (s Spec) MCPToolWithOutput(output Schema) *mcp.Tool {
	in, err := json.Marshal(s.Input)
	if err != nil {
		panic("mcptools: input schema of " + s.Name + ": " + err.Error())
	}
	out, err := json.Marshal(output)
	if err != nil {
		panic("mcptools: output schema of " + s.Name + ": " + err.Error())
	}
	return &mcp.Tool{
		Name:         s.Name,
		Title:        s.Title,
		Description:  s.Description,
		InputSchema:  json.RawMessage(in),
		OutputSchema: json.RawMessage(out),
		Annotations: &mcp.ToolAnnotations{
			Title:           s.Title,
			ReadOnlyHint:    s.Annotations.ReadOnly,
			DestructiveHint: &s.Annotations.Destructive,
			IdempotentHint:  s.Annotations.Idempotent,
			OpenWorldHint:   &s.Annotations.OpenWorld,
		},
	}
}
