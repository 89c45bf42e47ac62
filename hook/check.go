package hook

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
)

// EnforcedRef marks a repository whose pushes go through this hook. `tv
// hook install` creates it (a commit with the trailer
// "Tv-Hook-Version: 1"); the hook refuses every push that changes it.
const EnforcedRef = "refs/tv/enforced"

// HookVersionTrailer is the trailer of EnforcedRef's commit; a client that
// sees it skips its own verify-only step on the access ref.
const HookVersionTrailer = "Tv-Hook-Version"

// HookVersion is the enforcement version this hook implements.
const HookVersion = "1"

// refKind classifies a pushed ref name.
type refKind int

const (
	refOther refKind = iota
	refMalformed
	refWorkspace
	refTemplate
	refAccess
	refEnforced
	refVaultID
)

// classifyRef returns what a ref is and, for a workspace or template, its id.
func classifyRef(ref string) (refKind, string) {
	switch ref {
	case engine.AccessRef:
		return refAccess, ""
	case EnforcedRef:
		return refEnforced, ""
	case gitbackend.VaultIDRef:
		return refVaultID, ""
	}
	for _, k := range []struct {
		prefix string
		kind   engine.Kind
		rk     refKind
	}{{engine.WorkspaceRefPrefix, engine.KindWorkspace, refWorkspace}, {engine.TemplateRefPrefix, engine.KindTemplate, refTemplate}} {
		if id, ok := strings.CutPrefix(ref, k.prefix); ok {
			if engine.IsID(id) && strings.HasPrefix(id, engine.IDPrefix(k.kind)) {
				return k.rk, id
			}
			return refMalformed, id
		}
	}
	return refOther, ""
}

// checker judges the commands of one push.
type checker struct {
	ctx  context.Context
	o    *objects
	user string
	rs   *refusals
	cmds []Command

	access   *engine.Access  // the current grants
	creating map[string]bool // workspace ids this push creates
	names    map[engine.Kind]map[string]string
}

func (c *checker) run() error {
	var err error
	if c.access, err = c.currentAccess(); err != nil {
		return err
	}
	c.creating = map[string]bool{}
	for _, cmd := range c.cmds {
		if k, id := classifyRef(cmd.Ref); k == refWorkspace && cmd.Old.IsZero() {
			c.creating[id] = true
		}
	}
	for _, cmd := range c.cmds {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if err := c.command(cmd); err != nil {
			return err
		}
	}
	return nil
}

// currentAccess reads the grants at the access ref (an open vault when it
// does not exist).
func (c *checker) currentAccess() (*engine.Access, error) {
	head, ok, err := c.o.resolve(engine.AccessRef)
	if err != nil {
		return nil, err
	}
	if !ok {
		return engine.ParseAccess(engine.ZeroHash, []byte("[]"))
	}
	a, problem, err := c.readAccess(head)
	if err != nil {
		return nil, err
	}
	if problem != "" {
		return nil, fmt.Errorf("the repository's %s (%s) is damaged: %s; repair it before accepting pushes", engine.AccessRef, head.Short(), problem)
	}
	return a, nil
}

// readAccess reads the grants of access commit id; problem says what is
// wrong with a commit that holds no valid grants.
func (c *checker) readAccess(id engine.Hash) (a *engine.Access, problem string, err error) {
	co, err := c.o.commit(id)
	if err != nil {
		return nil, objectProblem(err), ignoreObjectProblem(err)
	}
	entries, err := c.o.tree(co.Tree)
	if err != nil {
		return nil, objectProblem(err), ignoreObjectProblem(err)
	}
	if len(entries) != 1 || entries[0].Name != engine.GrantsFile || entries[0].Mode != engine.ModeFile {
		return nil, fmt.Sprintf("its tree must hold exactly one regular file, %s", engine.GrantsFile), nil
	}
	data, _, err := c.o.read(entries[0].ID, "blob", engine.MaxGrantsBytes, false)
	if err != nil {
		return nil, objectProblem(err), ignoreObjectProblem(err)
	}
	a, err = engine.ParseAccess(id, data)
	if err != nil {
		return nil, refusedText(err), nil
	}
	return a, "", nil
}

// objectProblem describes a missing, oversized or malformed object, or ""
// for a failure of git itself.
func objectProblem(err error) string {
	if errors.Is(err, ErrGit) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return ""
	}
	return err.Error()
}

// ignoreObjectProblem returns err when it is a failure of git itself
// (which stops the check), nil when it is a problem of the pushed objects.
func ignoreObjectProblem(err error) error {
	if objectProblem(err) == "" {
		return err
	}
	return nil
}

// refusedText is an engine refusal's message without its kind prefix.
func refusedText(err error) string {
	for _, k := range []error{engine.ErrRefused, engine.ErrUsage, engine.ErrPermission, engine.ErrConflict} {
		if s, ok := strings.CutPrefix(err.Error(), k.Error()+": "); ok {
			return s
		}
	}
	return err.Error()
}

// command judges one ref update.
func (c *checker) command(cmd Command) error {
	kind, id := classifyRef(cmd.Ref)
	switch kind {
	case refOther:
		c.rs.add(CodeNotTvRef, cmd.Ref, "not one of tv's refs (refs/tv/workspaces/ws_…, refs/tv/templates/tpl_…, %s, %s); this repository is a tv vault", engine.AccessRef, gitbackend.VaultIDRef)
		return nil
	case refMalformed:
		c.rs.add(CodeRefused, cmd.Ref, "malformed id %q: tv ids are ws_ or tpl_ followed by 20 characters of a-z and 2-7", id)
		return nil
	case refEnforced:
		c.rs.add(CodePermission, cmd.Ref, "it marks that this server enforces tv's rules; only `tv hook install` on the server writes it")
		return nil
	case refVaultID:
		// The vault's identity: created once (by the first client of an
		// empty repository, or `tv vault push`), never moved or deleted.
		if !cmd.Old.IsZero() && cmd.Old != cmd.New {
			c.rs.add(CodePermission, cmd.Ref, "it is the vault's identity, which never changes")
		}
		return nil
	}
	if cmd.Old == cmd.New {
		return nil // a verify-only step: nothing moves
	}
	switch kind {
	case refAccess:
		return c.accessUpdate(cmd)
	case refTemplate:
		return c.templateUpdate(cmd, id)
	}
	return c.workspaceUpdate(cmd, id)
}

// deletion allows a vault manager to delete a workspace or template.
func (c *checker) deletion(cmd Command, k engine.Kind) {
	if have := c.access.Rank(c.user, "", ""); have < engine.RankManage {
		c.denied(cmd.Ref, engine.RankManage, have, engine.VaultTarget, fmt.Sprintf("to delete a %s", k))
	}
}

// denied adds a permission refusal in the engine's words.
func (c *checker) denied(ref string, need, have engine.Rank, target, what string) {
	e := &engine.DeniedError{User: c.user, Need: need, Have: have, Target: target}
	msg := strings.TrimPrefix(e.Error(), engine.ErrPermission.Error()+": ")
	if what != "" {
		msg = what + ": " + msg
	}
	c.rs.add(CodePermission, ref, "%s", msg)
}

func (c *checker) workspaceUpdate(cmd Command, id string) error {
	if cmd.New.IsZero() {
		c.deletion(cmd, engine.KindWorkspace)
		return nil
	}
	if cmd.Old.IsZero() {
		if have := c.access.Rank(c.user, "", ""); have < engine.RankWrite {
			c.denied(cmd.Ref, engine.RankWrite, have, engine.VaultTarget, "to create a workspace")
			return nil
		}
	}
	chain, err := c.chain(cmd)
	if err != nil || chain == nil {
		return err
	}
	prevTree, oldName := engine.ZeroHash, ""
	if !cmd.Old.IsZero() {
		old, err := c.o.commit(cmd.Old)
		if err != nil {
			return fmt.Errorf("read the current value of %s: %w", cmd.Ref, err)
		}
		prevTree, oldName = old.Tree, engine.ParseTrailers(old.Message)[engine.TrailerName]
	}
	for _, co := range chain {
		if !c.trailers(cmd.Ref, co, engine.KindWorkspace, id) {
			return nil
		}
		if err := c.change(cmd.Ref, id, prevTree, co.Tree); err != nil {
			return err
		}
		prevTree = co.Tree
	}
	if name := engine.ParseTrailers(chain[len(chain)-1].Message)[engine.TrailerName]; name != oldName {
		return c.nameFree(cmd.Ref, engine.KindWorkspace, id, name)
	}
	return nil
}

func (c *checker) templateUpdate(cmd Command, id string) error {
	switch {
	case cmd.New.IsZero():
		c.deletion(cmd, engine.KindTemplate)
		return nil
	case !cmd.Old.IsZero():
		c.rs.add(CodeConflict, cmd.Ref, "templates are create-only, and this one already exists (at %s); import a new template instead", cmd.Old.Short())
		return nil
	}
	if have := c.access.Rank(c.user, "", ""); have < engine.RankManage {
		c.denied(cmd.Ref, engine.RankManage, have, engine.VaultTarget, "to create a template")
		return nil
	}
	chain, err := c.chain(cmd)
	if err != nil || chain == nil {
		return err
	}
	if len(chain) != 1 {
		c.rs.add(CodeRefused, cmd.Ref, "a template is one commit without parents; this push brings %d", len(chain))
		return nil
	}
	if !c.trailers(cmd.Ref, chain[0], engine.KindTemplate, id) {
		return nil
	}
	if err := c.change(cmd.Ref, "", engine.ZeroHash, chain[0].Tree); err != nil {
		return err
	}
	return c.nameFree(cmd.Ref, engine.KindTemplate, id, engine.ParseTrailers(chain[0].Message)[engine.TrailerName])
}

// chain returns the commits a ref update adds, oldest first: linear
// history from cmd.New back to cmd.Old (or to a root commit for a new
// ref), at most MaxNewCommits. It returns nil after adding a refusal.
func (c *checker) chain(cmd Command) ([]*engine.Commit, error) {
	var out []*engine.Commit
	for h := cmd.New; h != cmd.Old; {
		if len(out) == MaxNewCommits {
			if cmd.Old.IsZero() {
				c.rs.add(CodeRefused, cmd.Ref, "more than %d new commits in one push", MaxNewCommits)
			} else {
				c.rs.add(CodeConflict, cmd.Ref, "%s is not within %d commits of the current value %s: it does not descend from it, or brings too many commits; fetch, re-apply and push again", cmd.New.Short(), MaxNewCommits, cmd.Old.Short())
			}
			return nil, nil
		}
		co, err := c.o.commit(h)
		if err != nil {
			if p := objectProblem(err); p != "" {
				c.rs.add(CodeRefused, cmd.Ref, "commit %s: %s", h.Short(), p)
				return nil, nil
			}
			return nil, err
		}
		out = append(out, co)
		switch len(co.Parents) {
		case 0:
			if !cmd.Old.IsZero() {
				c.rs.add(CodeConflict, cmd.Ref, "%s does not descend from the current value %s (the history was rewritten or the workspace moved); fetch, re-apply your changes and push again", cmd.New.Short(), cmd.Old.Short())
				return nil, nil
			}
			slices.Reverse(out)
			return out, nil
		case 1:
			h = co.Parents[0]
		default:
			c.rs.add(CodeRefused, cmd.Ref, "commit %s is a merge; every tv version has one parent", h.Short())
			return nil, nil
		}
	}
	slices.Reverse(out)
	return out, nil
}

// trailers checks that commit co carries tv's identity trailers for a ref
// of kind k and id.
func (c *checker) trailers(ref string, co *engine.Commit, k engine.Kind, id string) bool {
	t := engine.ParseTrailers(co.Message)
	if t[engine.TrailerKind] != string(k) || t[engine.TrailerID] != id {
		c.rs.add(CodeRefused, ref, "commit %s lacks tv's trailers: its message must end with \"%s: %s\", \"%s: %s\" and \"%s: NAME\" lines", co.ID.Short(), engine.TrailerKind, k, engine.TrailerID, id, engine.TrailerName)
		return false
	}
	if err := engine.ValidateName(t[engine.TrailerName]); err != nil {
		c.rs.add(CodeRefused, ref, "commit %s: trailer %s: %s", co.ID.Short(), engine.TrailerName, refusedText(err))
		return false
	}
	return true
}

// nameFree refuses name when another ref of kind k will carry it after
// this push.
func (c *checker) nameFree(ref string, k engine.Kind, id, name string) error {
	if c.names == nil {
		c.names = map[engine.Kind]map[string]string{}
	}
	names, ok := c.names[k]
	if !ok {
		var err error
		if names, err = c.finalNames(k); err != nil {
			return err
		}
		c.names[k] = names
	}
	for other, n := range names {
		if n == name && other != id {
			c.rs.add(CodeConflict, ref, "a %s named %q already exists (%s); pick another name", k, name, other)
			return nil
		}
	}
	return nil
}

// finalNames maps the id of every ref of kind k to its name as it will be
// after this push.
func (c *checker) finalNames(k engine.Kind) (map[string]string, error) {
	prefix := engine.WorkspaceRefPrefix
	if k == engine.KindTemplate {
		prefix = engine.TemplateRefPrefix
	}
	refs, err := c.o.refs(prefix)
	if err != nil {
		return nil, err
	}
	heads := map[string]engine.Hash{}
	for name, h := range refs {
		if id, ok := strings.CutPrefix(name, prefix); ok {
			heads[id] = h
		}
	}
	for _, cmd := range c.cmds {
		if id, ok := strings.CutPrefix(cmd.Ref, prefix); ok {
			heads[id] = cmd.New
		}
	}
	out := map[string]string{}
	for id, h := range heads {
		if h.IsZero() {
			continue
		}
		co, err := c.o.commit(h)
		if err != nil {
			if objectProblem(err) != "" {
				continue // a pushed head this check refuses anyway
			}
			return nil, err
		}
		out[id] = engine.ParseTrailers(co.Message)[engine.TrailerName]
	}
	return out, nil
}

// accessUpdate judges a change of the access ref: linear history on top
// of the current version, every commit holding valid grants, the grants
// changed (from the current version to the pushed one) only where the
// pusher manages, leaving the vault a manager.
func (c *checker) accessUpdate(cmd Command) error {
	if cmd.New.IsZero() {
		c.rs.add(CodePermission, cmd.Ref, "the access ref is never deleted: it holds the vault's grants and their history")
		return nil
	}
	chain, err := c.chain(cmd)
	if err != nil || chain == nil {
		return err
	}
	var next *engine.Access
	for _, co := range chain {
		if engine.ParseTrailers(co.Message)[engine.TrailerKind] != "access" {
			c.rs.add(CodeRefused, cmd.Ref, "commit %s lacks tv's trailer \"%s: access\"", co.ID.Short(), engine.TrailerKind)
			return nil
		}
		a, problem, err := c.readAccess(co.ID)
		if err != nil {
			return err
		}
		if problem != "" {
			c.rs.add(CodeRefused, cmd.Ref, "commit %s: %s", co.ID.Short(), problem)
			return nil
		}
		next = a
	}
	if next.VaultManagers() == 0 {
		c.rs.add(CodeConflict, cmd.Ref, "these grants leave the vault without a manager; grant manage on %s to someone first", engine.VaultTarget)
		return nil
	}
	if c.access.Open() {
		if next.Rank(c.user, "", "") < engine.RankManage {
			c.rs.add(CodePermission, cmd.Ref, "the first grants of a vault must make their author, %s, a manager of %s", c.user, engine.VaultTarget)
		}
		return nil
	}
	for _, ch := range engine.DiffAccess(c.access, next) {
		ws, folder := ch.Target()
		have := c.access.Rank(c.user, ws, folder)
		if have >= engine.RankManage || c.creatorGrant(ch) {
			continue
		}
		g := ch.New
		if g == nil {
			g = ch.Old
		}
		c.denied(cmd.Ref, engine.RankManage, have, g.Target(), fmt.Sprintf("to change %s's grant", g.User))
	}
	return nil
}

// creatorGrant reports whether ch is the manage grant a workspace's
// creator gets on it, pushed with the workspace's creation.
func (c *checker) creatorGrant(ch engine.GrantChange) bool {
	g := ch.New
	return ch.Old == nil && g != nil && g.User == c.user && g.Rank == engine.RankManage &&
		g.Workspace != "" && g.Folder == "" && c.creating[g.Workspace]
}
