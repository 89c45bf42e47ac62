package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/ignore"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/wsfs"
)

func ignoreArg() mcpkit.Schema {
	return mcpkit.With(mcpkit.Array(mcpkit.Str("gitignore-style pattern"), fmt.Sprintf("additional gitignore-style patterns to skip (at most %d)", MaxIgnorePatterns)), "maxItems", MaxIgnorePatterns)
}

func includeIgnoredArg() mcpkit.Schema {
	return mcpkit.With(mcpkit.Bool("also show what .gitignore (nested, .git/info/exclude) and the default set ("+strings.Join(ignore.DefaultPatterns, ", ")+") skip (default false)"), "default", false)
}

func listDirectorySpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "list_directory",
		Title: "List directory",
		Description: fmt.Sprintf("Lists a directory of a workspace to a depth of 1-8 (default 1), at most %d entries (MaxListEntries), sorted, with each entry's type and size. ", MaxListEntries) +
			"Skips what .gitignore files (nested ones and .git/info/exclude included) ignore and the default set (" + strings.Join(ignore.DefaultPatterns, ", ") + ") unless include_ignored; ignore adds patterns. Symlinks are listed, never followed.",
		Input: mcpkit.Object(mcpkit.Schema{
			"path":            mcpkit.With(mcpkit.Str("directory relative to the workspace root (default .)"), "default", "."),
			"workspace":       workspaceArg(),
			"depth":           mcpkit.With(mcpkit.Int("levels to descend, 1-8 (default 1)"), "minimum", MinListDepth, "maximum", MaxListDepth, "default", DefaultListDepth),
			"include_ignored": includeIgnoredArg(),
			"ignore":          ignoreArg(),
		}),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"path":  mcpkit.Str("cleaned directory path"),
			"depth": mcpkit.Int("depth listed"),
			"entries": mcpkit.Array(mcpkit.OpenObject(mcpkit.Schema{
				"path": mcpkit.Str("workspace-relative path"),
				"type": mcpkit.With(mcpkit.Str("entry type"), "enum", []string{"file", "dir", "symlink", "fifo", "socket", "device", "char-device", "other"}),
				"size": mcpkit.Int("size in bytes (files)"),
			}, "path", "type", "size"), "entries, depth-first, sorted by name"),
			"truncated":       mcpkit.Bool("the MaxListEntries cap was reached"),
			"include_ignored": mcpkit.Bool("ignore rules were off"),
		}, "path", "depth", "entries", "truncated", "include_ignored"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type listDirectoryArgs struct {
	Path           string   `json:"path"`
	Workspace      string   `json:"workspace"`
	Depth          *int     `json:"depth"`
	IncludeIgnored bool     `json:"include_ignored"`
	Ignore         []string `json:"ignore"`
}

type listEntry struct {
	Path string `json:"path"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

type listDirectoryData struct {
	Path           string      `json:"path"`
	Depth          int         `json:"depth"`
	Entries        []listEntry `json:"entries"`
	Truncated      bool        `json:"truncated"`
	IncludeIgnored bool        `json:"include_ignored"`
}

func (l *Local) listDirectory(_ context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a listDirectoryArgs
	if err := mcpkit.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	depth, err := intArg("depth", a.Depth, DefaultListDepth, MinListDepth, MaxListDepth)
	if err != nil {
		return nil, err
	}
	w, f, err := l.open(a.Workspace)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := newMatcher(f, a.IncludeIgnored, a.Ignore)
	if err != nil {
		return nil, err
	}
	d, err := listTree(f, cmp(a.Path, "."), depth, m)
	if err != nil {
		return nil, err
	}
	d.IncludeIgnored = a.IncludeIgnored
	return l.success(w, d)
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// newMatcher builds the ignore matcher of a listing or search.
func newMatcher(f *wsfs.FS, includeIgnored bool, extra []string) (*ignore.Matcher, error) {
	if len(extra) > MaxIgnorePatterns {
		return nil, fmt.Errorf("%w: %d ignore patterns given, at most %d (MaxIgnorePatterns)", mcpkit.ErrBadArguments, len(extra), MaxIgnorePatterns)
	}
	return ignore.NewMatcher(f.Root(), ignore.Options{Defaults: !includeIgnored, GitIgnore: !includeIgnored, Extra: extra})
}

// listTree walks rel to depth levels without following symlinks.
func listTree(f *wsfs.FS, rel string, depth int, m *ignore.Matcher) (*listDirectoryData, error) {
	clean, err := wsfs.CleanPath(rel)
	if err != nil {
		return nil, err
	}
	dir, err := f.OpenDir(clean)
	if err != nil {
		return nil, err
	}
	d := &listDirectoryData{Path: clean, Depth: depth, Entries: []listEntry{}}
	err = walkList(d, dir, clean, depth, m)
	dir.Close()
	return d, err
}

func walkList(d *listDirectoryData, dir *os.Root, rel string, depth int, m *ignore.Matcher) error {
	fh, err := dir.Open(".")
	if err != nil {
		return err
	}
	ents, err := fh.ReadDir(-1)
	fh.Close()
	if err != nil {
		return err
	}
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range ents {
		p := e.Name()
		if rel != "." {
			p = path.Join(rel, e.Name())
		}
		isDir := e.Type().IsDir()
		if m.Ignored(p, isDir) {
			continue
		}
		if len(d.Entries) >= MaxListEntries {
			d.Truncated = true
			return nil
		}
		le := listEntry{Path: p, Type: wsfs.KindOf(e.Type())}
		if e.Type().IsRegular() {
			if fi, err := e.Info(); err == nil {
				le.Size = fi.Size()
			}
		}
		d.Entries = append(d.Entries, le)
		if isDir && depth > 1 {
			sub, _, err := wsfs.Descend(dir, e.Name())
			if err != nil {
				continue // replaced meanwhile, or unreadable: listed, not descended
			}
			err = walkList(d, sub, p, depth-1, m)
			sub.Close()
			if err != nil || d.Truncated {
				return err
			}
		}
	}
	return nil
}
