package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thalix/tv/starter"
)

// Workspaces lists every workspace the actor can see, sorted by name then
// id. For a workspace they may read only some folders of, a head version
// that changed none of those is redacted (see history.go).
func (e *Engine) Workspaces(ctx context.Context) ([]Info, error) {
	list, err := e.listVisible(ctx, KindWorkspace)
	if err != nil {
		return nil, err
	}
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	for i := range list {
		scope, err := e.readScope(a, list[i].ID)
		if err != nil {
			// Listed yet unreadable cannot happen with one access version;
			// show nothing of the head rather than fail the whole list.
			list[i].Reason, list[i].UpdatedBy, list[i].Redacted = "", "", true
			continue
		}
		if scope != nil {
			if err := e.redactInfo(ctx, &list[i], scope); err != nil {
				return nil, err
			}
		}
	}
	return list, nil
}

// historyScope returns nil when the actor may read all of workspace ws,
// else the folders they may read.
func (e *Engine) historyScope(ctx context.Context, ws string) ([]string, error) {
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	return e.readScope(a, ws)
}

// listVisible lists the refs of kind k that the actor may see.
func (e *Engine) listVisible(ctx context.Context, k Kind) ([]Info, error) {
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	all, err := e.list(ctx, k)
	if err != nil {
		return nil, err
	}
	kept := all[:0]
	for _, i := range all {
		if e.visible(a, k, i.ID) {
			kept = append(kept, i)
		}
	}
	return kept, nil
}

// Templates lists the bundled starter first, then every template ref.
func (e *Engine) Templates(ctx context.Context) ([]Info, error) {
	refs, err := e.listVisible(ctx, KindTemplate)
	if err != nil {
		return nil, err
	}
	return append([]Info{builtinInfo()}, refs...), nil
}

func builtinInfo() Info {
	return Info{ID: BuiltinTemplateID, Name: starter.Name, Kind: KindTemplate, Builtin: true, Reason: starter.Description, UpdatedBy: "tv"}
}

// TemplateDetail is a template and its files.
type TemplateDetail struct {
	Info
	Files []FileEntry `json:"files"`
}

// ShowTemplate returns a template (id or name, or the bundled starter) and
// its file list.
func (e *Engine) ShowTemplate(ctx context.Context, idOrName string) (*TemplateDetail, error) {
	if idOrName == starter.Name || idOrName == BuiltinTemplateID {
		src, err := fsSource(starter.FS())
		if err != nil {
			return nil, err
		}
		d := &TemplateDetail{Info: builtinInfo()}
		for _, f := range src.files {
			d.Files = append(d.Files, FileEntry{Path: f.path, Mode: f.mode, Size: f.size})
		}
		return d, nil
	}
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	info, err := e.resolveVisible(ctx, a, KindTemplate, idOrName)
	if errors.Is(err, ErrNotFound) {
		if _, werr := e.resolveVisible(ctx, a, KindWorkspace, idOrName); werr == nil {
			return nil, fmt.Errorf("%w: %q is a workspace, not a template (see `tv workspace log %s`)", ErrNotFound, idOrName, idOrName)
		}
	}
	if err != nil {
		return nil, err
	}
	files, err := e.versionFiles(ctx, info.Head, true)
	if err != nil {
		return nil, err
	}
	return &TemplateDetail{Info: *info, Files: files}, nil
}

// versionFiles lists the files of a commit, with sizes when withSizes.
func (e *Engine) versionFiles(ctx context.Context, commit Hash, withSizes bool) ([]FileEntry, error) {
	c, err := e.vault.ReadCommit(ctx, commit)
	if err != nil {
		return nil, err
	}
	files, err := flatten(ctx, e.vault, c.Tree)
	if err != nil || !withSizes {
		return files, err
	}
	for i := range files {
		rc, size, err := e.vault.OpenBlob(ctx, files[i].ID)
		if err != nil {
			return nil, err
		}
		rc.Close()
		files[i].Size = size
	}
	return files, nil
}

// Version is one entry of a workspace's history.
type Version struct {
	ID       Hash      `json:"id"`
	Time     time.Time `json:"time"`
	Author   string    `json:"author"`
	Email    string    `json:"email"`
	Reason   string    `json:"reason"`
	Added    int       `json:"added"`
	Modified int       `json:"modified"`
	Deleted  int       `json:"deleted"`
	// Redacted: the reader may read only some folders and this version
	// changed none of their paths; reason, author and e-mail are blank
	// and the counts zero (see history.go).
	Redacted bool `json:"redacted,omitempty"`
}

// LogResult is a workspace's history, newest first.
type LogResult struct {
	WorkspaceID   string    `json:"workspace_id"`
	WorkspaceName string    `json:"workspace_name"`
	Versions      []Version `json:"versions"`
	// More is true when the history goes on past limit.
	More bool `json:"more"`
}

// Log returns up to limit versions of a workspace (id, name, or a checkout
// directory), newest first, following first parents.
func (e *Engine) Log(ctx context.Context, target string, limit int) (*LogResult, error) {
	info, err := e.resolveTarget(ctx, target)
	if err != nil {
		return nil, err
	}
	res := &LogResult{WorkspaceID: info.ID, WorkspaceName: info.Name}
	scope, err := e.historyScope(ctx, info.ID)
	if err != nil {
		return nil, err
	}
	for id := info.Head; !id.IsZero(); {
		if len(res.Versions) == limit {
			res.More = true
			break
		}
		c, err := e.vault.ReadCommit(ctx, id)
		if err != nil {
			return nil, err
		}
		parent, parentTree := ZeroHash, ZeroHash
		if len(c.Parents) > 0 {
			parent = c.Parents[0]
			pc, err := e.vault.ReadCommit(ctx, parent)
			if err != nil {
				return nil, err
			}
			parentTree = pc.Tree
		}
		v := Version{ID: id, Time: c.Author.When, Author: c.Author.Name, Email: c.Author.Email, Reason: subject(c.Message)}
		if scope != nil {
			// Only the readable folders are compared: nothing outside
			// them is read, counted or named in an error.
			if err := e.redactVersion(ctx, &v, parentTree, c.Tree, scope); err != nil {
				return nil, err
			}
		} else if v.Added, v.Modified, v.Deleted, err = diffTrees(ctx, e.vault, parentTree, c.Tree); err != nil {
			return nil, err
		}
		res.Versions = append(res.Versions, v)
		id = parent
	}
	return res, nil
}

// resolveTarget accepts a workspace id, a name, or a checkout directory
// (any directory holding a manifest, or any path with a separator).
func (e *Engine) resolveTarget(ctx context.Context, target string) (*Info, error) {
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	_, err = os.Lstat(filepath.Join(target, ManifestName))
	if err == nil || target == "." || strings.ContainsRune(target, filepath.Separator) {
		m, err := readManifestIdentity(target)
		if err != nil {
			return nil, err
		}
		return e.resolveWorkspace(ctx, a, m.WorkspaceID)
	}
	return e.resolveWorkspace(ctx, a, target)
}
