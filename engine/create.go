package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/starter"
)

// InvalidTreeError carries the ICM findings of a tree that breaks an error
// rule. It matches ErrInvalidTree.
type InvalidTreeError struct {
	Findings []icm.Finding
	// OnTopOf is set when the tree judged is a commit's combination with
	// a head that moved since its checkout: each side alone was valid.
	OnTopOf Hash
}

func (e *InvalidTreeError) Error() string {
	n := 0
	for _, f := range e.Findings {
		if f.Severity == icm.SeverityError {
			n++
		}
	}
	if !e.OnTopOf.IsZero() {
		return fmt.Sprintf("invalid workspace tree: the workspace moved to %s since this checkout, and these changes applied on top of it make a tree with %d ICM error(s); nothing was committed. Check out the workspace again and re-apply your changes there", e.OnTopOf.Short(), n)
	}
	return fmt.Sprintf("invalid workspace tree: %d ICM error(s)", n)
}

// Unwrap makes errors.Is(err, ErrInvalidTree) hold.
func (e *InvalidTreeError) Unwrap() error { return ErrInvalidTree }

// Created is the result of making a workspace or template.
type Created struct {
	Info
	Files    int           `json:"files"`
	Bytes    int64         `json:"bytes"`
	Findings []icm.Finding `json:"findings"`
}

// BuiltinTemplateID is the id of the bundled ICM starter template. It has
// no ref: it is compiled into tv.
const BuiltinTemplateID = "tpl_builtin_icm_starter"

// ImportWorkspace makes a workspace from a folder or .zip file. Inputs that
// break the safe-input rules wrap ErrRefused; a tree that breaks an ICM
// error rule yields *InvalidTreeError. The vault's refs change only on
// success.
func (e *Engine) ImportWorkspace(ctx context.Context, path, name string) (*Created, error) {
	return e.importPath(ctx, KindWorkspace, path, name)
}

// ImportTemplate makes an immutable template from a folder or .zip file,
// under the same rules as ImportWorkspace.
func (e *Engine) ImportTemplate(ctx context.Context, path, name string) (*Created, error) {
	return e.importPath(ctx, KindTemplate, path, name)
}

func (e *Engine) importPath(ctx context.Context, k Kind, path, name string) (*Created, error) {
	if _, err := e.precreate(ctx, k, name); err != nil {
		return nil, err
	}
	src, err := openSource(path)
	if err != nil {
		return nil, err
	}
	defer src.close()
	return e.createFromSource(ctx, k, name, src, "import "+displayName(path), "")
}

// InitWorkspace makes a workspace from a template (id or name), or from
// the bundled starter when template is "" or the starter's name or id.
func (e *Engine) InitWorkspace(ctx context.Context, name, template string) (*Created, error) {
	a, err := e.precreate(ctx, KindWorkspace, name)
	if err != nil {
		return nil, err
	}
	if template == "" || template == starter.Name || template == BuiltinTemplateID {
		src, err := fsSource(starter.FS())
		if err != nil {
			return nil, fmt.Errorf("bundled starter: %w", err)
		}
		return e.createFromSource(ctx, KindWorkspace, name, src, "init from "+starter.Name, BuiltinTemplateID)
	}
	tpl, err := e.resolveVisible(ctx, a, KindTemplate, template)
	if err != nil {
		return nil, err
	}
	c, err := e.vault.ReadCommit(ctx, tpl.Head)
	if err != nil {
		return nil, err
	}
	files, err := flatten(ctx, e.vault, c.Tree)
	if err != nil {
		return nil, err
	}
	w, err := e.vault.NewObjectWriter(ctx)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	info, err := e.commitNew(ctx, w, KindWorkspace, name, c.Tree, "init from "+tpl.Name, tpl.ID)
	if err != nil {
		return nil, err
	}
	return &Created{Info: *info, Files: len(files)}, nil
}

// precreate checks what a create needs before any input is read: an
// identity, the rank (write on the vault for a workspace, manage for a
// template), a valid name not yet taken.
func (e *Engine) precreate(ctx context.Context, k Kind, name string) (*access, error) {
	if _, err := e.actor(); err != nil {
		return nil, err
	}
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	need := RankWrite
	if k == KindTemplate {
		need = RankManage
	}
	if err := e.require(a, need, "", ""); err != nil {
		return nil, err
	}
	return a, e.nameTaken(ctx, k, name)
}

func (e *Engine) createFromSource(ctx context.Context, k Kind, name string, src *source, reason, template string) (*Created, error) {
	var findings []icm.Finding
	var err error
	if src.listing != nil {
		findings, err = icm.ValidateEntries(src.fsys, src.listing, icm.KnownTools())
	} else {
		findings, err = icm.Validate(src.fsys)
	}
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	if icm.HasErrors(findings) {
		return nil, &InvalidTreeError{Findings: findings}
	}
	w, err := e.vault.NewObjectWriter(ctx)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	tree, bytes, err := e.writeFiles(ctx, w, src.files)
	if err != nil {
		return nil, err
	}
	info, err := e.commitNew(ctx, w, k, name, tree, reason, template)
	if err != nil {
		return nil, err
	}
	return &Created{Info: *info, Files: len(src.files), Bytes: bytes, Findings: findings}, nil
}

// writeFiles streams every file into w as a blob and writes the tree.
func (e *Engine) writeFiles(ctx context.Context, w ObjectWriter, files []sourceFile) (Hash, int64, error) {
	changes := make([]change, 0, len(files))
	var total int64
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return ZeroHash, 0, err
		}
		rc, err := f.open()
		if err != nil {
			return ZeroHash, 0, err
		}
		id, err := w.WriteBlob(rc, f.size)
		rc.Close()
		if err != nil {
			return ZeroHash, 0, fmt.Errorf("%s: %w", f.path, err)
		}
		total += f.size
		changes = append(changes, change{Path: f.path, Mode: f.mode, ID: id})
		e.progress("write", int64(i+1), int64(len(files)))
	}
	tree, err := buildTree(ctx, w, changes)
	return tree, total, err
}

// commitNew writes the first commit of a new ref of kind k and creates the
// ref (create-if-absent). w is finished here.
func (e *Engine) commitNew(ctx context.Context, w ObjectWriter, k Kind, name string, tree Hash, reason, template string) (*Info, error) {
	sig, err := e.signature()
	if err != nil {
		return nil, err
	}
	id := newID(k)
	kv := []string{trailerKind, string(k), trailerID, id, trailerName, name}
	if template != "" {
		kv = append(kv, trailerTemplate, template)
	}
	c := &Commit{Tree: tree, Author: sig, Committer: sig, Message: commitMessage(reason, kv...)}
	head, err := w.WriteCommit(c)
	if err != nil {
		return nil, err
	}
	if err := w.Finish(); err != nil {
		return nil, err
	}
	if err := e.createRef(ctx, k, id, name, head); err != nil {
		return nil, err
	}
	return &Info{ID: id, Name: name, Kind: k, Head: head, UpdatedAt: sig.When, UpdatedBy: sig.Name, Reason: subject(c.Message), Template: template}, nil
}

// displayName is the last element of a local path, for messages that go
// into the vault (never the absolute path).
func displayName(p string) string {
	p = strings.TrimRight(strings.ReplaceAll(p, "\\", "/"), "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	if p == "" || p == "." {
		return "folder"
	}
	return p
}

// createRef creates the ref of a new workspace or template together with
// the access change it implies — the creator of a workspace gets manage on
// it; the first writer of a vault without grants gets manage on the vault —
// in one ref transaction, retried when a concurrent grant change raced it.
func (e *Engine) createRef(ctx context.Context, k Kind, id, name string, head Hash) error {
	create := RefUpdate{Name: refPrefix(k) + id, New: head}
	for attempt := 0; ; attempt++ {
		a, err := e.loadAccess(ctx)
		if err != nil {
			return err
		}
		var add []Grant
		if k == KindWorkspace {
			add = append(add, Grant{User: e.opts.Actor.User, Rank: RankManage, Workspace: id})
		}
		if !a.open() && len(add) == 0 {
			return e.vault.UpdateRefs(ctx, create)
		}
		w, err := e.vault.NewObjectWriter(ctx)
		if err != nil {
			return err
		}
		up, err := e.accessUpdate(ctx, w, a, fmt.Sprintf("create %s %s (%s)", k, name, id), add...)
		if err == nil {
			err = w.Finish()
		}
		if err == nil {
			err = e.vault.UpdateRefs(ctx, create, *up)
		}
		w.Abort()
		if isStale(err) && attempt < MaxCommitRetries {
			if cur, rerr := e.vault.Ref(ctx, create.Name); rerr == nil && cur == head {
				return nil
			}
			continue
		}
		return err
	}
}
