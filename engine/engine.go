package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Options configure an Engine.
type Options struct {
	// Actor is who acts; nil means "not logged in": reads work, every
	// operation that writes a version fails with ErrNotLoggedIn.
	Actor *Credentials
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// MountsPath is the mount registry that checkouts are recorded in;
	// "" records nothing.
	MountsPath string
	// Progress, if set, receives progress of long operations.
	Progress ProgressFunc
}

// ProgressFunc reports that done of total units of the named phase are
// complete. It is called from one goroutine at a time.
type ProgressFunc func(phase string, done, total int64)

// Engine runs workspace operations on a Vault.
type Engine struct {
	vault Vault
	opts  Options
}

// New returns an Engine over v.
func New(v Vault, opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Engine{vault: v, opts: opts}
}

// Vault returns the storage the engine runs on.
func (e *Engine) Vault() Vault { return e.vault }

// actor returns the acting identity or ErrNotLoggedIn.
func (e *Engine) actor() (*Credentials, error) {
	if e.opts.Actor == nil {
		return nil, ErrNotLoggedIn
	}
	return e.opts.Actor, nil
}

func (e *Engine) signature() (Signature, error) {
	a, err := e.actor()
	if err != nil {
		return Signature{}, err
	}
	return Signature{Name: a.User, Email: a.Email, When: e.opts.Now()}, nil
}

func (e *Engine) progress(phase string, done, total int64) {
	if e.opts.Progress != nil {
		e.opts.Progress(phase, done, total)
	}
}

// Info describes one workspace or template: its identity and head version.
type Info struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Kind      Kind      `json:"kind"`
	Head      Hash      `json:"head"`
	UpdatedAt time.Time `json:"updated_at"`
	UpdatedBy string    `json:"updated_by"`
	Reason    string    `json:"reason"`
	// Template is the template a workspace was made from, if any.
	Template string `json:"template,omitempty"`
	// Builtin marks the bundled starter template (it has no ref).
	Builtin bool `json:"builtin,omitempty"`
	// Redacted: the reader may read only some folders of the workspace
	// and its head version changed none of them; UpdatedBy and Reason are
	// blank (see history.go).
	Redacted bool `json:"redacted,omitempty"`
}

// RefName returns the vault ref that holds info.
func (i *Info) RefName() string { return refPrefix(i.Kind) + i.ID }

// list returns every ref of kind k, sorted by name then id.
func (e *Engine) list(ctx context.Context, k Kind) ([]Info, error) {
	refs, err := e.vault.ListRefs(ctx, refPrefix(k))
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(refs))
	for _, r := range refs {
		info, err := e.describe(ctx, k, strings.TrimPrefix(r.Name, refPrefix(k)), r.Hash)
		if err != nil {
			return nil, err
		}
		out = append(out, *info)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

func (e *Engine) describe(ctx context.Context, k Kind, id string, head Hash) (*Info, error) {
	c, err := e.vault.ReadCommit(ctx, head)
	if err != nil {
		return nil, fmt.Errorf("read head of %s %s: %w", k, id, err)
	}
	t := parseTrailers(c.Message)
	return &Info{
		ID: id, Name: t[trailerName], Kind: k, Head: head,
		UpdatedAt: c.Author.When, UpdatedBy: c.Author.Name,
		Reason: subject(c.Message), Template: t[trailerTemplate],
	}, nil
}

// resolveFiltered finds the workspace or template named by an id or an
// unambiguous name among those keep accepts. A name that matches several
// yields ErrConflict listing the candidates; one that matches none yields
// ErrNotFound.
func (e *Engine) resolveFiltered(ctx context.Context, k Kind, idOrName string, keep func(*Info) bool) (*Info, error) {
	if isID(idOrName) {
		if !strings.HasPrefix(idOrName, idPrefix(k)) {
			return nil, fmt.Errorf("%w: %q is a %s id, not a %s id", ErrNotFound, idOrName, otherKind(k), k)
		}
		head, err := e.vault.Ref(ctx, refPrefix(k)+idOrName)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", k, idOrName, err)
		}
		info, err := e.describe(ctx, k, idOrName, head)
		if err == nil && !keep(info) {
			return nil, fmt.Errorf("%s %s: %w", k, idOrName, ErrRefNotFound)
		}
		return info, err
	}
	all, err := e.list(ctx, k)
	if err != nil {
		return nil, err
	}
	var hits []Info
	for _, i := range all {
		if i.Name == idOrName && keep(&i) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 1:
		return &hits[0], nil
	case 0:
		return nil, fmt.Errorf("%w: no %s named %q (see `tv %s list`)", ErrNotFound, k, idOrName, k)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return nil, fmt.Errorf("%w: name %q is ambiguous: %d %ss have it (%s); use an id", ErrConflict, idOrName, len(hits), k, strings.Join(ids, ", "))
}

func otherKind(k Kind) Kind {
	if k == KindTemplate {
		return KindWorkspace
	}
	return KindTemplate
}

// nameTaken reports whether a ref of kind k already has name.
func (e *Engine) nameTaken(ctx context.Context, k Kind, name string) error {
	all, err := e.list(ctx, k)
	if err != nil {
		return err
	}
	for _, i := range all {
		if i.Name == name {
			return fmt.Errorf("%w: a %s named %q already exists (%s)", ErrConflict, k, name, i.ID)
		}
	}
	return nil
}
