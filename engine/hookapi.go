package engine

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// This file exports, for the server hook (package hook), the rules the
// engine applies to what it writes, so the hook judges a pushed ref by
// exactly the engine's rules instead of a copy of them.

// Commit trailer keys of the vault format.
const (
	TrailerKind     = trailerKind
	TrailerID       = trailerID
	TrailerName     = trailerName
	TrailerTemplate = trailerTemplate
)

// GrantsFile is the file of an access commit's tree that holds the grants.
const GrantsFile = grantsFile

// ParseTrailers returns the tv trailers ("Tv-…: value" lines of the last
// paragraph) of a commit message, as the engine reads them.
func ParseTrailers(msg string) map[string]string { return parseTrailers(msg) }

// IsID reports whether s has the shape of a workspace or template id.
func IsID(s string) bool { return isID(s) }

// IDPrefix returns the id prefix of kind k: "ws_" or "tpl_".
func IDPrefix(k Kind) string { return idPrefix(k) }

// CheckSiblingNames checks the names of one folder's entries for
// collisions when case is folded (they would be one file on macOS and
// Windows checkouts). Errors wrap ErrRefused and name both entries.
func CheckSiblingNames(names []string) error {
	fold := foldSet{}
	for _, n := range names {
		if err := fold.add(n); err != nil {
			return err
		}
	}
	return nil
}

// Access is one version of a vault's grants, evaluated as the engine
// evaluates them. The zero Version is an open vault (no access ref yet).
type Access struct{ a access }

// ParseAccess decodes a grants.json of access commit version, refusing
// (ErrRefused) more than MaxGrantsBytes or MaxGrants, JSON that is not a
// list of grants, and grants the engine would never write: a bad user
// name, rank, workspace id or folder path. The grants are normalised (one
// per user and target).
func ParseAccess(version Hash, grantsJSON []byte) (*Access, error) {
	if len(grantsJSON) > MaxGrantsBytes {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrRefused, grantsFile, MaxGrantsBytes)
	}
	var grants []Grant
	if err := json.Unmarshal(grantsJSON, &grants); err != nil {
		return nil, fmt.Errorf("%w: %s is not a list of grants: %v", ErrRefused, grantsFile, err)
	}
	if len(grants) > MaxGrants {
		return nil, fmt.Errorf("%w: %s holds %d grants, over the %d-grant limit", ErrRefused, grantsFile, len(grants), MaxGrants)
	}
	for _, g := range grants {
		if err := checkGrant(g); err != nil {
			return nil, err
		}
	}
	return &Access{a: access{version: version, grants: normaliseGrants(grants)}}, nil
}

func checkGrant(g Grant) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: grant %s %s on %s: %s", ErrRefused, g.User, g.Rank, g.Target(), why)
	}
	switch {
	case ValidateUser(g.User) != nil:
		return bad("invalid user name")
	case g.Rank < RankRead || g.Rank > RankManage:
		return bad("rank must be read, write or manage")
	case g.Workspace != "" && (!isID(g.Workspace) || !strings.HasPrefix(g.Workspace, idPrefix(KindWorkspace))):
		return bad("workspace is not a workspace id")
	case g.Folder != "" && g.Workspace == "":
		return bad("a folder grant needs a workspace")
	case g.Folder != "" && CheckPath(g.Folder) != nil:
		return bad("folder is not a safe path")
	}
	return nil
}

// Version returns the access commit the grants were read from (zero for an
// open vault).
func (x *Access) Version() Hash { return x.a.version }

// Open reports whether the vault has no grants yet.
func (x *Access) Open() bool { return x.a.open() }

// Grants returns the normalised grants, sorted by workspace, folder, user.
func (x *Access) Grants() []Grant { return append([]Grant(nil), x.a.grants...) }

// Rank returns user's effective rank on path p of workspace ws ("" = the
// vault): the highest grant on it or an ancestor. In an open vault every
// identified user has RankManage, as the engine lets the first writer
// bootstrap the grants.
func (x *Access) Rank(user, ws, p string) Rank {
	if x.a.open() {
		return RankManage
	}
	return x.a.rank(user, ws, p)
}

// HasGrantsInside reports whether user holds a grant on a folder strictly
// inside folder p of ws, which may give a rank there that p lacks.
func (x *Access) HasGrantsInside(user, ws, p string) bool {
	for _, g := range x.a.grants {
		if g.User == user && g.Workspace == ws && g.Folder != "" && (p == "" || strings.HasPrefix(g.Folder, p+"/")) {
			return true
		}
	}
	return false
}

// GrantChange is a grant added, removed or changed between two versions
// of the grants: Old or New is nil when it was added or removed.
type GrantChange struct {
	Old, New *Grant
}

// Target returns where the changed grant applies.
func (c GrantChange) Target() (ws, folder string) {
	g := c.New
	if g == nil {
		g = c.Old
	}
	return g.Workspace, g.Folder
}

// DiffAccess lists the grants that differ between from and to, sorted by
// target and user.
func DiffAccess(from, to *Access) []GrantChange {
	key := func(g Grant) string { return g.Workspace + "\x00" + g.Folder + "\x00" + g.User }
	old := map[string]*Grant{}
	for i := range from.a.grants {
		old[key(from.a.grants[i])] = &from.a.grants[i]
	}
	var out []GrantChange
	seen := map[string]bool{}
	for i := range to.a.grants {
		g := &to.a.grants[i]
		k := key(*g)
		seen[k] = true
		if o := old[k]; o == nil || o.Rank != g.Rank {
			out = append(out, GrantChange{Old: o, New: g})
		}
	}
	for k, o := range old {
		if !seen[k] {
			out = append(out, GrantChange{Old: o})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		wi, fi := out[i].Target()
		wj, fj := out[j].Target()
		if wi != wj {
			return wi < wj
		}
		return fi < fj
	})
	return out
}

// VaultManagers counts the grants of manage on the whole vault.
func (x *Access) VaultManagers() int {
	n := 0
	for _, g := range x.a.grants {
		if g.Workspace == "" && g.Rank == RankManage {
			n++
		}
	}
	return n
}
