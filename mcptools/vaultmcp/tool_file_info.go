package vaultmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/thalix/tv/mcptools/mcpkit"
)

func fileInfoSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "vault_file_info",
		Title: "File info",
		Description: fmt.Sprintf("Returns the version (blob id), size and mode of a file at the head version of the scoped workspace, and for files up to %d bytes (MaxFileBytes) its SHA-256 and whether it is UTF-8 text that vault_file_read can page. ", MaxFileBytes) +
			"path is workspace-relative (stages/NN-slug/…); any path you may read is allowed, inside the stage or not. A path you may not read is refused whether or not it exists.",
		Input: mcpkit.Object(mcpkit.Schema{
			"path": mcpkit.Str("workspace-relative slash path of a file, e.g. stages/01-research/output/research.md"),
		}, "path"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"path":    mcpkit.Str("the path"),
			"head":    mcpkit.Str("the workspace version it was read at (commit id)"),
			"version": mcpkit.Str("the file's version (git blob id)"),
			"size":    mcpkit.Int("bytes"),
			"mode":    mcpkit.With(mcpkit.Str("git file mode"), "enum", []string{"100644", "100755"}),
			"sha256":  mcpkit.Nullable(mcpkit.Str("SHA-256 of the content, hex (the revision vault_file_read pages by); null over MaxFileBytes")),
			"text":    mcpkit.Nullable(mcpkit.Bool("UTF-8 text without NUL bytes; null over MaxFileBytes")),
		}, "path", "head", "version", "size", "mode", "sha256", "text"),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type fileInfoArgs struct {
	Path string `json:"path"`
}

type fileInfoData struct {
	Path    string  `json:"path"`
	Head    string  `json:"head"`
	Version string  `json:"version"`
	Size    int64   `json:"size"`
	Mode    string  `json:"mode"`
	SHA256  *string `json:"sha256"`
	Text    *bool   `json:"text"`
}

func (s *Server) fileInfo(ctx context.Context, raw json.RawMessage) (*Repository, any, error) {
	var a fileInfoArgs
	if err := decode(raw, &a); err != nil {
		return nil, nil, err
	}
	st, err := s.eng.Stat(ctx, s.ws.ID, a.Path)
	if err != nil {
		return nil, nil, err
	}
	d := fileInfoData{Path: st.Path, Head: st.Head.String(), Version: st.Version.String(), Size: st.Size, Mode: st.Mode}
	if st.Size <= MaxFileBytes {
		b, rst, err := s.eng.ReadVersionFile(ctx, s.ws.ID, a.Path, MaxFileBytes)
		if err != nil {
			return nil, nil, err
		}
		text := isText(b)
		d = fileInfoData{Path: rst.Path, Head: rst.Head.String(), Version: rst.Version.String(), Size: rst.Size, Mode: rst.Mode, SHA256: &rst.SHA256, Text: &text}
	}
	return s.ws, d, nil
}

// isText reports whether b is UTF-8 text: valid UTF-8 without NUL bytes.
func isText(b []byte) bool { return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 }
