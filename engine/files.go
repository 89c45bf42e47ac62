package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/thalix/tv/icm"
)

// Read APIs over a workspace's head version, for callers that do not hold
// a checkout (the vault MCP server). Each one checks read access on the
// exact path it touches against the live grants, and refuses before it
// reveals whether an unreadable path exists.

// MaxContractBytes bounds the stage CONTEXT.md that StageContract reads:
// the ICM profile's bound on contract files.
const MaxContractBytes = icm.MaxMarkdownBytes

// Identity is who the engine acts as, without the token.
type Identity struct {
	User  string `json:"user"`
	Email string `json:"email"`
}

// Identity returns the acting user, or ErrNotLoggedIn.
func (e *Engine) Identity() (*Identity, error) {
	a, err := e.actor()
	if err != nil {
		return nil, err
	}
	return &Identity{User: a.User, Email: a.Email}, nil
}

// ResolveWorkspace resolves a workspace id or unambiguous name the actor
// may see. A name that only a template has is refused with advice; one
// that no visible workspace has yields ErrNotFound; one that several
// have yields ErrConflict listing them.
func (e *Engine) ResolveWorkspace(ctx context.Context, idOrName string) (*Info, error) {
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	return e.resolveWorkspace(ctx, a, idOrName)
}

// FileStat describes one file of a workspace version.
type FileStat struct {
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	// Head is the workspace version the file was read at.
	Head Hash   `json:"head"`
	Path string `json:"path"`
	// Version is the file's blob id: the version of its content.
	Version Hash   `json:"version"`
	Size    int64  `json:"size"`
	Mode    string `json:"mode"` // "100644" or "100755"
	// SHA256 is the hex SHA-256 of the content, set only by calls that
	// read the content (ReadVersionFile).
	SHA256 string `json:"sha256,omitempty"`
}

// headFile resolves workspace, checks read on p and finds p at the head.
func (e *Engine) headFile(ctx context.Context, workspace, p string) (*FileStat, error) {
	if err := CheckPath(p); err != nil {
		return nil, err
	}
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	info, err := e.resolveWorkspace(ctx, a, workspace)
	if err != nil {
		return nil, err
	}
	if err := e.require(a, RankRead, info.ID, p); err != nil {
		return nil, err
	}
	c, err := e.vault.ReadCommit(ctx, info.Head)
	if err != nil {
		return nil, err
	}
	en, ok, err := lookupPath(ctx, e.vault, c.Tree, p)
	if err != nil {
		return nil, err
	}
	st := &FileStat{WorkspaceID: info.ID, WorkspaceName: info.Name, Head: info.Head, Path: p, Version: en.ID, Mode: modeString(en.Mode)}
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: no file %s in workspace %s at version %s", ErrNotFound, p, info.ID, info.Head.Short())
	case en.Mode == ModeDir:
		return nil, fmt.Errorf("%w: %s is a folder, not a file", ErrRefused, p)
	case en.Mode != ModeFile && en.Mode != ModeExecutable:
		return nil, fmt.Errorf("%w: %s has git mode %o, not a regular file", ErrRefused, p, en.Mode)
	}
	return st, nil
}

// Stat returns the version, size and mode of the file at slash path p in
// the head version of workspace (id or name). It needs read on p.
func (e *Engine) Stat(ctx context.Context, workspace, p string) (*FileStat, error) {
	st, err := e.headFile(ctx, workspace, p)
	if err != nil {
		return nil, err
	}
	rc, size, err := e.vault.OpenBlob(ctx, st.Version)
	if err != nil {
		return nil, err
	}
	rc.Close()
	st.Size = size
	return st, nil
}

// ReadVersionFile returns the content of the file at slash path p in the
// head version of workspace, with its stat (SHA256 set). It needs read on
// p. A file over maxBytes is refused (ErrRefused) without being read.
func (e *Engine) ReadVersionFile(ctx context.Context, workspace, p string, maxBytes int64) ([]byte, *FileStat, error) {
	st, err := e.headFile(ctx, workspace, p)
	if err != nil {
		return nil, nil, err
	}
	b, size, err := e.readBlob(ctx, st.Version, maxBytes)
	st.Size = size
	if err != nil {
		return nil, st, fmt.Errorf("%s: %w", p, err)
	}
	sum := sha256.Sum256(b)
	st.SHA256 = hex.EncodeToString(sum[:])
	return b, st, nil
}

// readBlob reads a blob of at most maxBytes whole; a bigger one is
// refused with its size.
func (e *Engine) readBlob(ctx context.Context, id Hash, maxBytes int64) ([]byte, int64, error) {
	rc, size, err := e.vault.OpenBlob(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	if size > maxBytes {
		return nil, size, fmt.Errorf("%w: file is %d bytes, over the %d-byte limit", ErrRefused, size, maxBytes)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(rc, b); err != nil {
		return nil, size, fmt.Errorf("read blob %s: %w", id.Short(), err)
	}
	return b, size, nil
}

// FindResult is the files of a workspace version whose paths match a
// pattern, among those the actor may read.
type FindResult struct {
	WorkspaceID   string     `json:"workspace_id"`
	WorkspaceName string     `json:"workspace_name"`
	Head          Hash       `json:"head"`
	Files         []FileStat `json:"files"`
	// Matched counts every readable matching file, also those past the limit.
	Matched int `json:"matched"`
	// More is true when Matched is over the limit.
	More bool `json:"more"`
}

// Find lists, sorted by path, up to limit files of the head version of
// workspace whose slash paths match pattern (see MatchGlob), skipping
// files the actor may not read (they are neither listed nor counted).
func (e *Engine) Find(ctx context.Context, workspace, pattern string, limit int) (*FindResult, error) {
	if err := ValidateGlob(pattern); err != nil {
		return nil, err
	}
	if limit < 1 {
		return nil, fmt.Errorf("%w: limit must be at least 1", ErrUsage)
	}
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	info, err := e.resolveWorkspace(ctx, a, workspace)
	if err != nil {
		return nil, err
	}
	scope, err := e.readScope(a, info.ID)
	if err != nil {
		return nil, err
	}
	files, err := e.versionFiles(ctx, info.Head, false)
	if err != nil {
		return nil, hideUnreadable(err, scope)
	}
	res := &FindResult{WorkspaceID: info.ID, WorkspaceName: info.Name, Head: info.Head, Files: []FileStat{}}
	for _, f := range files {
		if !MatchGlob(pattern, f.Path) || e.require(a, RankRead, info.ID, f.Path) != nil {
			continue
		}
		res.Matched++
		if len(res.Files) == limit {
			res.More = true
			continue
		}
		rc, size, err := e.vault.OpenBlob(ctx, f.ID)
		if err != nil {
			return nil, err
		}
		rc.Close()
		res.Files = append(res.Files, FileStat{WorkspaceID: info.ID, WorkspaceName: info.Name, Head: info.Head, Path: f.Path, Version: f.ID, Size: size, Mode: modeString(f.Mode)})
	}
	return res, nil
}

// ValidateGlob checks a Find pattern: a relative slash path of at most
// MaxPathBytes whose components are "**" or path.Match patterns.
func ValidateGlob(pattern string) error {
	refuse := func(why string) error {
		return fmt.Errorf("%w: pattern %q: %s", ErrRefused, pattern, why)
	}
	switch {
	case pattern == "":
		return refuse("empty pattern")
	case len(pattern) > MaxPathBytes:
		return refuse(fmt.Sprintf("longer than %d bytes", MaxPathBytes))
	case strings.HasPrefix(pattern, "/"):
		return refuse("absolute patterns are not allowed; paths are relative to the workspace root")
	case strings.Contains(pattern, "\\"):
		return refuse("backslashes are not allowed")
	}
	for _, c := range strings.Split(pattern, "/") {
		if c == "" || c == "." || c == ".." {
			return refuse("empty, '.' or '..' component")
		}
		if c == "**" {
			continue
		}
		if _, err := path.Match(c, ""); err != nil {
			return refuse(err.Error())
		}
	}
	return nil
}

// MatchGlob reports whether slash path p matches pattern, component by
// component: "**" matches any number of components (zero included), any
// other component is a path.Match pattern ("*", "?", "[a-z]") that never
// crosses a "/". So "stages/*/output/*.md" matches one level, and
// "**/*.md" every Markdown file. A malformed pattern matches nothing.
func MatchGlob(pattern, p string) bool {
	return matchParts(strings.Split(pattern, "/"), strings.Split(p, "/"))
}

// matchParts matches path components against pattern components, "**"
// standing for any number of components. It is a dynamic programme over
// (pattern index, part index) — linear in their product, never exponential
// however many "**" a pattern repeats.
func matchParts(pat, parts []string) bool {
	// ok[j] is whether pat[i:] matches parts[j:], for the current i.
	ok := make([]bool, len(parts)+1)
	ok[len(parts)] = true // the empty pattern matches only the empty rest
	for i := len(pat) - 1; i >= 0; i-- {
		next := make([]bool, len(parts)+1)
		if pat[i] == "**" {
			// "**" matches zero parts (ok[j]) or one more part (next[j+1]).
			next[len(parts)] = ok[len(parts)]
			for j := len(parts) - 1; j >= 0; j-- {
				next[j] = ok[j] || next[j+1]
			}
		} else {
			for j := len(parts) - 1; j >= 0; j-- {
				if ok[j+1] {
					m, err := path.Match(pat[i], parts[j])
					next[j] = err == nil && m
				}
			}
		}
		ok = next
	}
	return ok[0]
}

// StageContract returns the head version of workspace (an id) and the
// blob id and bytes of the direct CONTEXT.md of stage, a folder path such
// as "stages/01-research". It needs read on the stage folder. A stage
// folder or CONTEXT.md that does not exist at the head yields a zero
// contractBlob and nil content, without error; a CONTEXT.md over
// MaxContractBytes (or not a regular file) is refused (ErrRefused).
func (e *Engine) StageContract(ctx context.Context, workspaceID, stage string) (head, contractBlob Hash, content []byte, err error) {
	if err := CheckPath(stage); err != nil {
		return ZeroHash, ZeroHash, nil, err
	}
	a, err := e.loadAccess(ctx)
	if err != nil {
		return ZeroHash, ZeroHash, nil, err
	}
	info, err := e.resolveWorkspace(ctx, a, workspaceID)
	if err != nil {
		return ZeroHash, ZeroHash, nil, err
	}
	if info.ID != workspaceID {
		return ZeroHash, ZeroHash, nil, fmt.Errorf("%w: %q is not a workspace id", ErrUsage, workspaceID)
	}
	if err := e.require(a, RankRead, info.ID, stage); err != nil {
		return ZeroHash, ZeroHash, nil, err
	}
	c, err := e.vault.ReadCommit(ctx, info.Head)
	if err != nil {
		return ZeroHash, ZeroHash, nil, err
	}
	en, ok, err := lookupPath(ctx, e.vault, c.Tree, stage+"/CONTEXT.md")
	if err != nil {
		return ZeroHash, ZeroHash, nil, err
	}
	if !ok {
		return info.Head, ZeroHash, nil, nil
	}
	if en.Mode != ModeFile && en.Mode != ModeExecutable {
		return info.Head, en.ID, nil, fmt.Errorf("%w: %s/CONTEXT.md is not a regular file", ErrRefused, stage)
	}
	b, _, err := e.readBlob(ctx, en.ID, MaxContractBytes)
	if err != nil {
		return info.Head, en.ID, nil, fmt.Errorf("%s/CONTEXT.md: %w", stage, err)
	}
	return info.Head, en.ID, b, nil
}
