package tvcmd

// The --json documents of the commands, in the one style README.md
// ("JSON output") documents and TestJSONStyle enforces: snake_case keys,
// ids named for what they identify (workspace_id, template_id, vault_id;
// a workspace's commit is its version), modes as octal strings, times as
// RFC 3339 in UTC to the second, lists as [] when empty, and no
// zero-valued placeholders (an absent value is an absent key).

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
)

// jsonTime renders t as RFC 3339 in UTC with second precision; the zero
// time is "" (and its key, omitempty, absent).
func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// jsonHash is a version hash, "" (absent) when zero.
func jsonHash(h engine.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// jsonMode is a git file mode as its octal string ("100644").
func jsonMode(m engine.FileMode) string { return fmt.Sprintf("%06o", uint32(m)) }

// workspaceDoc is a workspace in a list or a creation result.
type workspaceDoc struct {
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	Version       string `json:"version,omitempty"`
	UpdatedAt     string `json:"updated_at,omitempty"`
	UpdatedBy     string `json:"updated_by,omitempty"`
	Reason        string `json:"reason,omitempty"`
	TemplateID    string `json:"template_id,omitempty"`
	Redacted      bool   `json:"redacted,omitempty"`
}

// templateDoc is a template in a list or a creation result.
type templateDoc struct {
	TemplateID   string `json:"template_id"`
	TemplateName string `json:"template_name"`
	Version      string `json:"version,omitempty"`
	UpdatedAt    string `json:"updated_at,omitempty"`
	UpdatedBy    string `json:"updated_by,omitempty"`
	Reason       string `json:"reason,omitempty"`
	Builtin      bool   `json:"builtin,omitempty"`
}

func newWorkspaceDoc(i engine.Info) workspaceDoc {
	return workspaceDoc{WorkspaceID: i.ID, WorkspaceName: i.Name, Version: jsonHash(i.Head), UpdatedAt: jsonTime(i.UpdatedAt),
		UpdatedBy: i.UpdatedBy, Reason: i.Reason, TemplateID: i.Template, Redacted: i.Redacted}
}

func newTemplateDoc(i engine.Info) templateDoc {
	return templateDoc{TemplateID: i.ID, TemplateName: i.Name, Version: jsonHash(i.Head), UpdatedAt: jsonTime(i.UpdatedAt),
		UpdatedBy: i.UpdatedBy, Reason: i.Reason, Builtin: i.Builtin}
}

// infoDoc is i as a workspaceDoc or templateDoc, by its kind.
func infoDoc(i engine.Info) any {
	if i.Kind == engine.KindTemplate {
		return newTemplateDoc(i)
	}
	return newWorkspaceDoc(i)
}

func infoDocs(list []engine.Info) []any {
	out := make([]any, 0, len(list))
	for _, i := range list {
		out = append(out, infoDoc(i))
	}
	return out
}

// findingDoc is an ICM finding; path "." is the workspace root.
type findingDoc struct {
	Rule     string       `json:"rule"`
	Severity icm.Severity `json:"severity"`
	Path     string       `json:"path"`
	Line     int          `json:"line,omitempty"`
	Message  string       `json:"message"`
}

func findingDocs(fs []icm.Finding) []findingDoc {
	out := make([]findingDoc, 0, len(fs))
	for _, f := range fs {
		p := f.Path
		if p == "" {
			p = "."
		}
		out = append(out, findingDoc{Rule: f.Rule, Severity: f.Severity, Path: p, Line: f.Line, Message: f.Message})
	}
	return out
}

// createdDoc is the result of workspace init/import and template import.
func createdDoc(c *engine.Created) map[string]any {
	doc := map[string]any{"files": c.Files, "bytes": c.Bytes, "findings": findingDocs(c.Findings)}
	mergeDoc(doc, infoDoc(c.Info))
	return doc
}

// mergeDoc copies the fields of a doc struct into m.
func mergeDoc(m map[string]any, v any) {
	switch d := v.(type) {
	case workspaceDoc:
		m["workspace_id"], m["workspace_name"] = d.WorkspaceID, d.WorkspaceName
		setIf(m, "version", d.Version)
		setIf(m, "updated_at", d.UpdatedAt)
		setIf(m, "updated_by", d.UpdatedBy)
		setIf(m, "reason", d.Reason)
		setIf(m, "template_id", d.TemplateID)
	case templateDoc:
		m["template_id"], m["template_name"] = d.TemplateID, d.TemplateName
		setIf(m, "version", d.Version)
		setIf(m, "updated_at", d.UpdatedAt)
		setIf(m, "updated_by", d.UpdatedBy)
		setIf(m, "reason", d.Reason)
		if d.Builtin {
			m["builtin"] = true
		}
	}
}

func setIf(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

// templateFileDoc is one file of `tv template show`.
type templateFileDoc struct {
	Path    string `json:"path"`
	Mode    string `json:"mode"`
	Size    int64  `json:"size"`
	Version string `json:"version,omitempty"` // the file's blob id
}

func templateShowDoc(d *engine.TemplateDetail) map[string]any {
	files := make([]templateFileDoc, 0, len(d.Files))
	for _, f := range d.Files {
		files = append(files, templateFileDoc{Path: f.Path, Mode: jsonMode(f.Mode), Size: f.Size, Version: jsonHash(f.ID)})
	}
	doc := map[string]any{"files": files}
	mergeDoc(doc, newTemplateDoc(d.Info))
	return doc
}

// commitDoc is the result of workspace commit.
type commitDoc struct {
	WorkspaceID     string `json:"workspace_id"`
	WorkspaceName   string `json:"workspace_name"`
	Version         string `json:"version,omitempty"`
	Parent          string `json:"parent,omitempty"`
	Added           int    `json:"added"`
	Modified        int    `json:"modified"`
	Deleted         int    `json:"deleted"`
	NothingToCommit bool   `json:"nothing_to_commit"`
	OnTopOf         string `json:"on_top_of,omitempty"`
}

func newCommitDoc(r *engine.CommitResult) commitDoc {
	return commitDoc{WorkspaceID: r.WorkspaceID, WorkspaceName: r.WorkspaceName, Version: jsonHash(r.Version), Parent: jsonHash(r.Parent),
		Added: r.Added, Modified: r.Modified, Deleted: r.Deleted, NothingToCommit: r.NothingToCommit, OnTopOf: jsonHash(r.OnTopOf)}
}

// versionDoc is one entry of workspace log.
type versionDoc struct {
	Version     string `json:"version"`
	CommittedAt string `json:"committed_at"`
	Author      string `json:"author,omitempty"`
	Email       string `json:"email,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Added       int    `json:"added"`
	Modified    int    `json:"modified"`
	Deleted     int    `json:"deleted"`
	// Redacted: the version changed nothing this reader may read; who and
	// why are left out (README, Access ranks).
	Redacted bool `json:"redacted,omitempty"`
}

func logDoc(r *engine.LogResult) map[string]any {
	vs := make([]versionDoc, 0, len(r.Versions))
	for _, v := range r.Versions {
		vs = append(vs, versionDoc{Version: v.ID.String(), CommittedAt: jsonTime(v.Time), Author: v.Author, Email: v.Email,
			Reason: v.Reason, Added: v.Added, Modified: v.Modified, Deleted: v.Deleted, Redacted: v.Redacted})
	}
	return map[string]any{"workspace_id": r.WorkspaceID, "workspace_name": r.WorkspaceName, "versions": vs, "more": r.More}
}

// grantDoc is a grant: its target as `tv access` takes it ("@vault",
// WORKSPACE_ID or WORKSPACE_ID:FOLDER) and the parts, for every access
// command alike.
type grantDoc struct {
	User          string `json:"user"`
	Rank          string `json:"rank,omitempty"`
	Target        string `json:"target"`
	WorkspaceID   string `json:"workspace_id,omitempty"`
	WorkspaceName string `json:"workspace_name,omitempty"`
	Folder        string `json:"folder,omitempty"`
}

// accessNames maps visible workspace ids to names, for grant documents.
func accessNames(ctx context.Context, e *engine.Engine) map[string]string {
	names := map[string]string{}
	if list, err := e.Workspaces(ctx); err == nil {
		for _, i := range list {
			names[i.ID] = i.Name
		}
	}
	return names
}

func newGrantDoc(g engine.Grant, names map[string]string) grantDoc {
	d := grantDoc{User: g.User, Target: g.Target(), WorkspaceID: g.Workspace, WorkspaceName: names[g.Workspace], Folder: g.Folder}
	if g.Rank != 0 {
		d.Rank = g.Rank.String()
	}
	return d
}

// revokedGrant is the grant a revoke of target removed, named like grants
// are: the workspace by id (resolved from names, id or name).
func revokedGrant(user, target string, names map[string]string) engine.Grant {
	if target == engine.VaultTarget {
		return engine.Grant{User: user}
	}
	ws, folder, _ := strings.Cut(target, ":")
	folder = strings.TrimSuffix(folder, "/")
	if _, ok := names[ws]; !ok {
		for id, n := range names {
			if n == ws {
				ws = id
				break
			}
		}
	}
	return engine.Grant{User: user, Workspace: ws, Folder: folder}
}
