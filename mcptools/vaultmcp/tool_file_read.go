package vaultmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/mcptools/mcpkit"
)

func fileReadSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "vault_file_read",
		Title: "Read file",
		Description: fmt.Sprintf("Reads one page of a UTF-8 text file (a regular file of at most %d bytes, MaxFileBytes) at the head version of the scoped workspace, by byte offset on character boundaries: ", MaxFileBytes) +
			fmt.Sprintf("max_bytes defaults to %d (range %d-%d). The first page (offset 0) returns the file's SHA-256 revision; pass it with every nonzero offset (next_offset). ", DefaultPageBytes, MinPageBytes, MaxPageBytes) +
			"If the file changed meanwhile the continuation is refused: restart at offset 0. path is workspace-relative; any path you may read is allowed.",
		Input: mcpkit.Object(mcpkit.Schema{
			"path":      mcpkit.Str("workspace-relative slash path of a file"),
			"offset":    mcpkit.With(mcpkit.Int("byte offset to start at, on a character boundary (next_offset of the previous page)"), "minimum", 0, "default", 0),
			"max_bytes": mcpkit.With(mcpkit.Int("page size in bytes"), "minimum", MinPageBytes, "maximum", MaxPageBytes, "default", DefaultPageBytes),
			"revision":  mcpkit.Str("the revision the first page returned; required when offset is not 0"),
		}, "path"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"path":        mcpkit.Str("the path"),
			"head":        mcpkit.Str("the workspace version it was read at (commit id)"),
			"version":     mcpkit.Str("the file's version (git blob id)"),
			"revision":    mcpkit.Str("SHA-256 of the whole file, hex: pass it with the next offset"),
			"size":        mcpkit.Int("file size in bytes"),
			"offset":      mcpkit.Int("where this page starts"),
			"length":      mcpkit.Int("bytes in this page"),
			"next_offset": mcpkit.Nullable(mcpkit.Int("where the next page starts; null at the end")),
			"eof":         mcpkit.Bool("this page ends the file"),
			"content":     mcpkit.Str("the page's text"),
		}, "path", "head", "version", "revision", "size", "offset", "length", "next_offset", "eof", "content"),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type fileReadArgs struct {
	Path     string `json:"path"`
	Offset   *int64 `json:"offset"`
	MaxBytes *int   `json:"max_bytes"`
	Revision string `json:"revision"`
}

type fileReadData struct {
	Path       string `json:"path"`
	Head       string `json:"head"`
	Version    string `json:"version"`
	Revision   string `json:"revision"`
	Size       int64  `json:"size"`
	Offset     int64  `json:"offset"`
	Length     int    `json:"length"`
	NextOffset *int64 `json:"next_offset"`
	EOF        bool   `json:"eof"`
	Content    string `json:"content"`
}

func (s *Server) fileRead(ctx context.Context, raw json.RawMessage) (*Repository, any, error) {
	var a fileReadArgs
	if err := decode(raw, &a); err != nil {
		return nil, nil, err
	}
	var off int64
	if a.Offset != nil {
		off = *a.Offset
	}
	max := DefaultPageBytes
	if a.MaxBytes != nil {
		max = *a.MaxBytes
	}
	switch {
	case off < 0:
		return nil, nil, fmt.Errorf("%w: offset %d is negative", mcpkit.ErrBadArguments, off)
	case max < MinPageBytes || max > MaxPageBytes:
		return nil, nil, fmt.Errorf("%w: max_bytes is %d; it must be between %d and %d", mcpkit.ErrBadArguments, max, MinPageBytes, MaxPageBytes)
	case off > 0 && a.Revision == "":
		return nil, nil, fmt.Errorf("%w: offset %d needs revision: pass the revision the first page (offset 0) returned", mcpkit.ErrBadArguments, off)
	}
	b, st, err := s.eng.ReadVersionFile(ctx, s.ws.ID, a.Path, MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	switch size := int64(len(b)); {
	case !isText(b):
		return nil, nil, fmt.Errorf("%w: %s is not UTF-8 text (binary?); %d bytes, version %s", engine.ErrRefused, st.Path, size, st.Version)
	case off > 0 && a.Revision != st.SHA256:
		return nil, nil, fmt.Errorf("%w: %s changed since revision %s (now %s at version %s); restart at offset 0", engine.ErrConflict, st.Path, a.Revision, st.SHA256, st.Head.Short())
	case off > size:
		return nil, nil, fmt.Errorf("%w: offset %d is past the end of %s (%d bytes)", mcpkit.ErrBadArguments, off, st.Path, size)
	case off < size && !utf8.RuneStart(b[off]):
		return nil, nil, fmt.Errorf("%w: offset %d is inside a UTF-8 character of %s; continue at a next_offset", mcpkit.ErrBadArguments, off, st.Path)
	}
	build := func(n int) any {
		end := min(off+int64(n), int64(len(b)))
		for end < int64(len(b)) && end > off && !utf8.RuneStart(b[end]) {
			end--
		}
		d := fileReadData{Path: st.Path, Head: st.Head.String(), Version: st.Version.String(), Revision: st.SHA256, Size: st.Size,
			Offset: off, Length: int(end - off), EOF: end == int64(len(b)), Content: string(b[off:end])}
		if !d.EOF {
			d.NextOffset = &end
		}
		return d
	}
	n := min(int64(max), int64(len(b))-off)
	return s.ws, build(fitCount(int(n), s.ws, build)), nil
}
