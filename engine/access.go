package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Rank is an access rank. Ranks are ordered: read < write < manage.
type Rank int

// The access ranks. RankNone means no access.
const (
	RankNone Rank = iota
	RankRead
	RankWrite
	RankManage
)

var rankNames = [...]string{"none", "read", "write", "manage"}

// String returns the rank's name.
func (r Rank) String() string {
	if r < RankNone || r > RankManage {
		return fmt.Sprintf("rank(%d)", int(r))
	}
	return rankNames[r]
}

// ParseRank parses "read", "write" or "manage".
func ParseRank(s string) (Rank, error) {
	for r := RankRead; r <= RankManage; r++ {
		if s == rankNames[r] {
			return r, nil
		}
	}
	return RankNone, fmt.Errorf("%w: rank %q: use read, write or manage", ErrUsage, s)
}

// MarshalText encodes the rank's name.
func (r Rank) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText decodes a rank name.
func (r *Rank) UnmarshalText(b []byte) error {
	p, err := ParseRank(string(b))
	*r = p
	return err
}

// AccessRef holds the vault's grants: a commit whose tree has grants.json.
// It changes by compare-and-swap like every ref; its history is the audit
// trail of who granted what, when.
const AccessRef = "refs/tv/access"

const grantsFile = "grants.json"

// VaultTarget names the whole vault in a grant target.
const VaultTarget = "@vault"

// Grant gives a user a rank on the vault (Workspace ""), a workspace, or a
// folder of a workspace. Ranks are inherited down the tree.
type Grant struct {
	User      string `json:"user"`
	Rank      Rank   `json:"rank"`
	Workspace string `json:"workspace,omitempty"` // workspace id; "" = the whole vault
	Folder    string `json:"folder,omitempty"`    // slash path in the workspace; "" = all of it
}

// Target renders where a grant applies: "@vault", "ws_…" or "ws_…:folder".
func (g Grant) Target() string { return target(g.Workspace, g.Folder) }

func target(ws, folder string) string {
	switch {
	case ws == "":
		return VaultTarget
	case folder == "":
		return ws
	}
	return ws + ":" + folder
}

// covers reports whether the grant applies to path p of workspace ws
// (p "" = the workspace root; ws "" = the vault itself).
func (g Grant) covers(ws, p string) bool {
	if g.Workspace == "" {
		return true
	}
	if g.Workspace != ws {
		return false
	}
	return g.Folder == "" || p == g.Folder || strings.HasPrefix(p, g.Folder+"/")
}

// access is one version of the vault's grants.
type access struct {
	version Hash // commit of AccessRef; zero when the vault has no grants yet
	grants  []Grant
}

// open reports whether the vault has no grants yet: before the first
// write bootstraps them, everyone may read.
func (a *access) open() bool { return a.version.IsZero() }

// rank returns user's effective rank on path p of workspace ws: the
// highest grant on it or any ancestor.
func (a *access) rank(user, ws, p string) Rank {
	best := RankNone
	for _, g := range a.grants {
		if g.User == user && g.Rank > best && g.covers(ws, p) {
			best = g.Rank
		}
	}
	return best
}

// canSee reports whether user can read anything in workspace ws: a grant
// on it, on the vault, or on any folder inside it.
func (a *access) canSee(user, ws string) bool {
	for _, g := range a.grants {
		if g.User == user && g.Rank >= RankRead && (g.Workspace == "" || g.Workspace == ws) {
			return true
		}
	}
	return false
}

// readableFolders lists the folders of ws that user may read when the
// workspace as a whole is not readable (folder grants only).
func (a *access) readableFolders(user, ws string) []string {
	var out []string
	for _, g := range a.grants {
		if g.User == user && g.Rank >= RankRead && g.Workspace == ws && g.Folder != "" {
			out = append(out, g.Folder)
		}
	}
	sort.Strings(out)
	return out
}

// loadAccess reads the current grants.
func (e *Engine) loadAccess(ctx context.Context) (*access, error) {
	head, err := e.vault.Ref(ctx, AccessRef)
	if errors.Is(err, ErrRefNotFound) {
		return &access{}, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := e.vault.ReadCommit(ctx, head)
	if err != nil {
		return nil, err
	}
	en, ok, err := lookupPath(ctx, e.vault, c.Tree, grantsFile)
	if err != nil || !ok {
		return nil, fmt.Errorf("access ref %s has no %s: %w", head.Short(), grantsFile, err)
	}
	rc, _, err := e.vault.OpenBlob(ctx, en.ID)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxGrantsBytes+1))
	if err != nil {
		return nil, err
	}
	a := &access{version: head}
	if len(b) > MaxGrantsBytes {
		return nil, fmt.Errorf("access ref %s: %s is over %d bytes", head.Short(), grantsFile, MaxGrantsBytes)
	}
	if err := json.Unmarshal(b, &a.grants); err != nil {
		return nil, fmt.Errorf("access ref %s: %s is damaged: %v", head.Short(), grantsFile, err)
	}
	return a, nil
}

// DeniedError says what rank was needed, on what, and what the caller has.
// It matches ErrPermission.
type DeniedError struct {
	User   string
	Need   Rank
	Have   Rank
	Target string // "@vault", "ws_…" or "ws_…:folder"
	Paths  []string
}

func (e *DeniedError) Error() string {
	msg := fmt.Sprintf("permission denied: %s needs %s on %s and has %s", e.User, e.Need, e.Target, e.Have)
	if len(e.Paths) > 0 {
		shown := e.Paths
		if len(shown) > 10 {
			shown = shown[:10]
		}
		msg += fmt.Sprintf(" (for %s", strings.Join(shown, ", "))
		if len(e.Paths) > len(shown) {
			msg += fmt.Sprintf(" … and %d more", len(e.Paths)-len(shown))
		}
		msg += ")"
	}
	return msg + fmt.Sprintf("; someone with manage there can run `tv access grant %s %s %s`", e.User, e.Need, e.Target)
}

// Unwrap makes errors.Is(err, ErrPermission) hold.
func (e *DeniedError) Unwrap() error { return ErrPermission }

// require checks that the actor has at least need on path p of ws (ws ""
// = the vault). An open vault (no grants yet) allows reads to anyone and
// writes to any logged-in user, who then bootstraps the grants.
func (e *Engine) require(a *access, need Rank, ws, p string) error {
	if a.open() && (need == RankRead || e.opts.Actor != nil) {
		return nil
	}
	user, err := e.actor()
	if err != nil {
		return err
	}
	if have := a.rank(user.User, ws, p); have < need {
		return &DeniedError{User: user.User, Need: need, Have: have, Target: target(ws, p)}
	}
	return nil
}

// accessUpdate returns the ref update that adds grants to a (bootstrapping
// the vault's grants with the actor as its manager when there are none),
// writing its objects into w. It returns nil when nothing changes.
func (e *Engine) accessUpdate(ctx context.Context, w ObjectWriter, a *access, reason string, add ...Grant) (*RefUpdate, error) {
	grants := append([]Grant(nil), a.grants...)
	if a.open() {
		user, err := e.actor()
		if err != nil {
			return nil, err
		}
		grants = append(grants, Grant{User: user.User, Rank: RankManage})
	}
	grants = append(grants, add...)
	return e.writeAccess(ctx, w, a, grants, reason)
}

// writeAccess writes a new access commit holding grants (normalised:
// one grant per user and target, sorted) and returns its ref update.
func (e *Engine) writeAccess(ctx context.Context, w ObjectWriter, a *access, grants []Grant, reason string) (*RefUpdate, error) {
	grants = normaliseGrants(grants)
	if len(grants) > MaxGrants {
		return nil, fmt.Errorf("%w: more than %d grants", ErrRefused, MaxGrants)
	}
	b, err := json.MarshalIndent(grants, "", "  ")
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	blob, err := w.WriteBlob(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	tree, err := w.WriteTree([]TreeEntry{{Name: grantsFile, Mode: ModeFile, ID: blob}})
	if err != nil {
		return nil, err
	}
	sig, err := e.signature()
	if err != nil {
		return nil, err
	}
	c := &Commit{Tree: tree, Author: sig, Committer: sig, Message: commitMessage(reason, trailerKind, "access")}
	if !a.version.IsZero() {
		c.Parents = []Hash{a.version}
	}
	id, err := w.WriteCommit(c)
	if err != nil {
		return nil, err
	}
	return &RefUpdate{Name: AccessRef, Old: a.version, New: id}, nil
}

// normaliseGrants keeps the last grant per (user, target) and sorts.
func normaliseGrants(in []Grant) []Grant {
	last := map[string]Grant{}
	for _, g := range in {
		last[g.User+"\x00"+g.Target()] = g
	}
	out := make([]Grant, 0, len(last))
	for _, g := range last {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Workspace != out[j].Workspace {
			return out[i].Workspace < out[j].Workspace
		}
		if out[i].Folder != out[j].Folder {
			return out[i].Folder < out[j].Folder
		}
		return out[i].User < out[j].User
	})
	return out
}

func isStale(err error) bool { return errors.Is(err, ErrRefStale) }

// visible reports whether the actor may know that ref id of kind k exists:
// anyone in an open vault; for a workspace, whoever can read any of it;
// for a template, whoever holds any grant.
func (e *Engine) visible(a *access, k Kind, id string) bool {
	if a.open() {
		return true
	}
	if e.opts.Actor == nil {
		return false
	}
	user := e.opts.Actor.User
	if k == KindWorkspace {
		return a.canSee(user, id)
	}
	for _, g := range a.grants {
		if g.User == user {
			return true
		}
	}
	return false
}

// resolveVisible resolves like resolve but treats what the actor may not
// see as absent (never revealing it).
func (e *Engine) resolveVisible(ctx context.Context, a *access, k Kind, idOrName string) (*Info, error) {
	if !a.open() {
		if _, err := e.actor(); err != nil {
			return nil, err
		}
	}
	info, err := e.resolveFiltered(ctx, k, idOrName, func(i *Info) bool { return e.visible(a, k, i.ID) })
	return info, err
}
