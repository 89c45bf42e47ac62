package mcptools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/wsfs"
)

func expectedSHAArg() mcpkit.Schema {
	return mcpkit.With(mcpkit.Str("refuse, changing nothing, unless the file's current SHA-256 (hex, as read_file returns it) is this"), "pattern", "^[0-9a-fA-F]{64}$")
}

func writeFileSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "write_file",
		Title: "Write file",
		Description: fmt.Sprintf("Creates or replaces a file of a workspace with content, atomically (temporary file, fsync, rename), keeping an existing file's mode; missing parent directories are created. Content up to %d bytes (MaxWriteBytes), subject to the %d-byte input-line limit. ", MaxWriteBytes, mcpkit.MaxInputLineBytes) +
			"With expected_sha256 the write is refused, changing nothing, when the file is no longer that version. Writes into .git, through symlinks, or over special files are refused. Obeys the branch gate (--require-branch).",
		Input: mcpkit.Object(mcpkit.Schema{
			"path":            mcpkit.Str("file path relative to the workspace root"),
			"content":         mcpkit.Str("the complete new content"),
			"workspace":       workspaceArg(),
			"expected_sha256": expectedSHAArg(),
		}, "path", "content"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"path":    mcpkit.Str("cleaned workspace-relative path"),
			"bytes":   mcpkit.Int("bytes written"),
			"sha256":  mcpkit.Str("SHA-256 of the new content"),
			"created": mcpkit.Bool("the file did not exist before"),
			"mode":    mcpkit.Str("permission bits, octal"),
		}, "path", "bytes", "sha256", "created", "mode"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: false},
		Gated:       true,
	}
}

type writeFileArgs struct {
	Path           string  `json:"path"`
	Content        *string `json:"content"`
	Workspace      string  `json:"workspace"`
	ExpectedSHA256 string  `json:"expected_sha256"`
}

type writeFileData struct {
	Path    string `json:"path"`
	Bytes   int64  `json:"bytes"`
	SHA256  string `json:"sha256"`
	Created bool   `json:"created"`
	Mode    string `json:"mode"`
}

func (l *Local) writeFile(_ context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a writeFileArgs
	if err := mcpkit.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if a.Content == nil {
		return nil, fmt.Errorf("%w: content is required (use \"\" for an empty file)", mcpkit.ErrBadArguments)
	}
	w, f, err := l.openGated(a.Workspace)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := f.WriteFile(a.Path, []byte(*a.Content), wsfs.WriteOptions{ExpectedSHA256: a.ExpectedSHA256, MaxBytes: MaxWriteBytes})
	if err != nil {
		return nil, err
	}
	d := writeFileData{Path: res.Path, Bytes: res.Size, SHA256: res.SHA256, Created: res.Created, Mode: fmt.Sprintf("%04o", res.Mode.Perm())}
	return l.success(w, d)
}
