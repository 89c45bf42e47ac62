package mcptools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/textsearch"
	"github.com/thalix/tv/wsfs"
)

func grepSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "grep",
		Title: "Search files",
		Description: "Searches file contents of a workspace for an RE2 regular expression (or a literal string with fixed_strings), under path (default .), with 0-20 lines of context. " +
			fmt.Sprintf("Returns at most limit matches (default %d, max %d). Patterns are limited to %d bytes; a search scans at most %d files and %d MiB of content and returns at most %d MiB of output, and reports files and bytes scanned and why it stopped early. ", DefaultGrepLimit, MaxGrepLimit, textsearch.MaxPatternBytes, textsearch.MaxFiles, textsearch.MaxScanBytes>>20, textsearch.MaxOutputBytes>>20) +
			"Binary files are skipped and counted. Honours .gitignore (nested, .git/info/exclude) and the default ignore set unless include_ignored.",
		Input: mcpkit.Object(mcpkit.Schema{
			"pattern":         mcpkit.With(mcpkit.Str("RE2 regular expression, or a literal with fixed_strings"), "minLength", 1, "maxLength", textsearch.MaxPatternBytes),
			"path":            mcpkit.With(mcpkit.Str("file or directory relative to the workspace root (default .)"), "default", "."),
			"workspace":       workspaceArg(),
			"context":         mcpkit.With(mcpkit.Int("lines of context before and after each match, 0-20 (default 0)"), "minimum", 0, "maximum", MaxGrepContext, "default", 0),
			"limit":           mcpkit.With(mcpkit.Int("most matches to return, 1-1000 (default 200)"), "minimum", 1, "maximum", MaxGrepLimit, "default", DefaultGrepLimit),
			"fixed_strings":   mcpkit.With(mcpkit.Bool("match pattern literally (default false)"), "default", false),
			"include_ignored": includeIgnoredArg(),
			"ignore":          ignoreArg(),
		}, "pattern"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"pattern": mcpkit.Str("the pattern"),
			"path":    mcpkit.Str("cleaned search root"),
			"matches": mcpkit.Array(mcpkit.OpenObject(mcpkit.Schema{
				"path":   mcpkit.Str("workspace-relative file path"),
				"line":   mcpkit.Int("1-based line number"),
				"column": mcpkit.Int("1-based byte column of the match"),
				"text":   mcpkit.Str("the matching line"),
				"before": mcpkit.Array(mcpkit.OpenObject(mcpkit.Schema{"line": mcpkit.Int(""), "text": mcpkit.Str("")}, "line", "text"), "context lines before"),
				"after":  mcpkit.Array(mcpkit.OpenObject(mcpkit.Schema{"line": mcpkit.Int(""), "text": mcpkit.Str("")}, "line", "text"), "context lines after"),
			}, "path", "line", "column", "text"), "matches in path order"),
			"match_count":    mcpkit.Int("matches returned"),
			"files_scanned":  mcpkit.Int("files read"),
			"bytes_scanned":  mcpkit.Int("bytes of file content read"),
			"binary_skipped": mcpkit.Int("binary files skipped"),
			"stopped":        mcpkit.Str(`why the search stopped early ("" when it completed): match limit, file limit, byte limit, output limit`),
		}, "pattern", "path", "matches", "match_count", "files_scanned", "bytes_scanned", "binary_skipped", "stopped"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type grepArgs struct {
	Pattern        string   `json:"pattern"`
	Path           string   `json:"path"`
	Workspace      string   `json:"workspace"`
	Context        *int     `json:"context"`
	Limit          *int     `json:"limit"`
	FixedStrings   bool     `json:"fixed_strings"`
	IncludeIgnored bool     `json:"include_ignored"`
	Ignore         []string `json:"ignore"`
}

type grepLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

type grepMatch struct {
	Path   string     `json:"path"`
	Line   int        `json:"line"`
	Column int        `json:"column"`
	Text   string     `json:"text"`
	Before []grepLine `json:"before,omitempty"`
	After  []grepLine `json:"after,omitempty"`
}

type grepData struct {
	Pattern       string      `json:"pattern"`
	Path          string      `json:"path"`
	Matches       []grepMatch `json:"matches"`
	MatchCount    int         `json:"match_count"`
	FilesScanned  int         `json:"files_scanned"`
	BytesScanned  int64       `json:"bytes_scanned"`
	BinarySkipped int         `json:"binary_skipped"`
	Stopped       string      `json:"stopped"`
}

func (l *Local) grep(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a grepArgs
	if err := mcpkit.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	ctxLines, err := intArg("context", a.Context, 0, 0, MaxGrepContext)
	if err != nil {
		return nil, err
	}
	limit, err := intArg("limit", a.Limit, DefaultGrepLimit, 1, MaxGrepLimit)
	if err != nil {
		return nil, err
	}
	if a.Pattern == "" || len(a.Pattern) > textsearch.MaxPatternBytes {
		return nil, fmt.Errorf("%w: pattern is %d bytes; it must be 1 to %d bytes", mcpkit.ErrBadArguments, len(a.Pattern), textsearch.MaxPatternBytes)
	}
	w, f, err := l.open(a.Workspace)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	start := cmp(a.Path, ".")
	if _, err := f.Stat(start); err != nil {
		return nil, err
	}
	clean, _ := wsfs.CleanPath(start)
	m, err := newMatcher(f, a.IncludeIgnored, a.Ignore)
	if err != nil {
		return nil, err
	}
	res, err := textsearch.Search(ctx, f.Root(), clean, textsearch.Options{
		Pattern: a.Pattern, Fixed: a.FixedStrings, Context: ctxLines, Limit: limit, Ignore: m,
		MaxFiles: textsearch.MaxFiles, MaxBytes: textsearch.MaxScanBytes, MaxOutputBytes: textsearch.MaxOutputBytes,
	})
	if err != nil {
		return nil, err
	}
	d := grepResult(a.Pattern, clean, res)
	return l.success(w, d)
}

func grepResult(pattern, clean string, res *textsearch.Result) *grepData {
	d := &grepData{Pattern: pattern, Path: clean, Matches: make([]grepMatch, 0, len(res.Matches)), MatchCount: len(res.Matches),
		FilesScanned: res.FilesScanned, BytesScanned: res.BytesScanned, BinarySkipped: res.BinarySkipped, Stopped: res.Stopped}
	conv := func(ls []textsearch.Line) []grepLine {
		out := make([]grepLine, len(ls))
		for i, x := range ls {
			out[i] = grepLine{Line: x.Number, Text: x.Text}
		}
		return out
	}
	for _, m := range res.Matches {
		d.Matches = append(d.Matches, grepMatch{Path: m.Path, Line: m.Line, Column: m.Column, Text: m.Text, Before: conv(m.Before), After: conv(m.After)})
	}
	return d
}
