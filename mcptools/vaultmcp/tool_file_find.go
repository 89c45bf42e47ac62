package vaultmcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/thalix/tv/mcptools/mcpkit"
)

func fileFindSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "vault_file_find",
		Title: "Find files",
		Description: "Lists the files of the scoped workspace's head version whose workspace-relative paths match a glob, sorted by path, with version, size and mode: " +
			"* ? [a-z] match within one path component, ** matches any number of components (stages/*/output/*.md, **/*.md). Only files you may read are listed or counted. " +
			fmt.Sprintf("Returns at most limit files (default %d, max %d), fewer when the %d-byte result cap binds; matched counts them all.", DefaultFindLimit, MaxFindLimit, MaxStructuredBytes),
		Input: mcpkit.Object(mcpkit.Schema{
			"pattern": mcpkit.Str("glob over workspace-relative paths, e.g. stages/01-research/** or **/*.md"),
			"limit":   mcpkit.With(mcpkit.Int("maximum files to return"), "minimum", 1, "maximum", MaxFindLimit, "default", DefaultFindLimit),
		}, "pattern"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"pattern": mcpkit.Str("the pattern"),
			"head":    mcpkit.Str("the workspace version searched (commit id)"),
			"files": mcpkit.Array(mcpkit.OpenObject(mcpkit.Schema{
				"path":    mcpkit.Str("workspace-relative path"),
				"version": mcpkit.Str("git blob id"),
				"size":    mcpkit.Int("bytes"),
				"mode":    mcpkit.Str("git file mode"),
			}, "path", "version", "size", "mode"), "matching files, sorted by path"),
			"matched":   mcpkit.Int("readable files matching, also those not returned"),
			"truncated": mcpkit.Bool("files holds fewer than matched (limit or result cap)"),
		}, "pattern", "head", "files", "matched", "truncated"),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type fileFindArgs struct {
	Pattern string `json:"pattern"`
	Limit   *int   `json:"limit"`
}

type foundFile struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Size    int64  `json:"size"`
	Mode    string `json:"mode"`
}

type fileFindData struct {
	Pattern   string      `json:"pattern"`
	Head      string      `json:"head"`
	Files     []foundFile `json:"files"`
	Matched   int         `json:"matched"`
	Truncated bool        `json:"truncated"`
}

func (s *Server) fileFind(ctx context.Context, raw json.RawMessage) (*Repository, any, error) {
	var a fileFindArgs
	if err := decode(raw, &a); err != nil {
		return nil, nil, err
	}
	limit := DefaultFindLimit
	if a.Limit != nil {
		if *a.Limit < 1 || *a.Limit > MaxFindLimit {
			return nil, nil, fmt.Errorf("%w: limit is %d; it must be between 1 and %d (MaxFindLimit)", mcpkit.ErrBadArguments, *a.Limit, MaxFindLimit)
		}
		limit = *a.Limit
	}
	res, err := s.eng.Find(ctx, s.ws.ID, a.Pattern, limit)
	if err != nil {
		return nil, nil, err
	}
	all := make([]foundFile, len(res.Files))
	for i, f := range res.Files {
		all[i] = foundFile{Path: f.Path, Version: f.Version.String(), Size: f.Size, Mode: f.Mode}
	}
	build := func(n int) any {
		return fileFindData{Pattern: a.Pattern, Head: res.Head.String(), Files: all[:n], Matched: res.Matched, Truncated: n < res.Matched}
	}
	return s.ws, build(fitCount(len(all), s.ws, build)), nil
}
