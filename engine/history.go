package engine

import (
	"context"
	"slices"
)

// History shown to a reader of some folders only (folder grants, no read on
// the workspace): a version that changed no path they can read is
// redacted — its reason, author and e-mail are blank, its counts zero and
// Redacted set; only its id and time remain, so the chain of versions
// stays whole. A version that changed a readable path keeps its reason
// and author, and counts only the readable paths. `tv workspace log`,
// `tv workspace list` and vault_workspace_list all apply it.

// scopedCounts counts the files added, modified and deleted between trees
// a and b (either may be ZeroHash) under the scope folders only.
func scopedCounts(ctx context.Context, o Objects, a, b Hash, scope []string) (added, modified, deleted int, err error) {
	for _, f := range outermost(scope) {
		ea, okA, err := lookupPath(ctx, o, a, f)
		if err != nil {
			return 0, 0, 0, err
		}
		eb, okB, err := lookupPath(ctx, o, b, f)
		if err != nil {
			return 0, 0, 0, err
		}
		ad, md, dd, err := diffEntries(ctx, o, ea, okA, eb, okB)
		if err != nil {
			return 0, 0, 0, err
		}
		added, modified, deleted = added+ad, modified+md, deleted+dd
	}
	return added, modified, deleted, nil
}

// diffEntries counts the file changes from entry a to entry b (each a
// folder, a file, or absent).
func diffEntries(ctx context.Context, o Objects, a TreeEntry, okA bool, b TreeEntry, okB bool) (added, modified, deleted int, err error) {
	tree := func(e TreeEntry, ok bool) Hash {
		if ok && e.Mode == ModeDir {
			return e.ID
		}
		return ZeroHash
	}
	added, modified, deleted, err = diffTrees(ctx, o, tree(a, okA), tree(b, okB))
	fileA, fileB := okA && a.Mode != ModeDir, okB && b.Mode != ModeDir
	switch {
	case fileA && fileB:
		if a.ID != b.ID || a.Mode != b.Mode {
			modified++
		}
	case fileA:
		deleted++
	case fileB:
		added++
	}
	return added, modified, deleted, err
}

// outermost drops the folders that lie inside another of the list.
func outermost(folders []string) []string {
	out := slices.Clone(folders)
	slices.Sort(out)
	kept := out[:0]
	for _, f := range out {
		if !underAny(f, kept) {
			kept = append(kept, f)
		}
	}
	return kept
}

// redactVersion applies the partial reader's view to v: counts of the
// readable paths only, and no reason or author when there are none.
func (e *Engine) redactVersion(ctx context.Context, v *Version, parentTree, tree Hash, scope []string) error {
	a, m, d, err := scopedCounts(ctx, e.vault, parentTree, tree, scope)
	if err != nil {
		return err
	}
	v.Added, v.Modified, v.Deleted = a, m, d
	if a+m+d == 0 {
		v.Reason, v.Author, v.Email, v.Redacted = "", "", "", true
	}
	return nil
}

// redactInfo applies the partial reader's view to a workspace's head:
// when the head version changed no readable path, its reason and author
// are blanked and Redacted is set.
func (e *Engine) redactInfo(ctx context.Context, info *Info, scope []string) error {
	c, err := e.vault.ReadCommit(ctx, info.Head)
	if err != nil {
		return err
	}
	parentTree := ZeroHash
	if len(c.Parents) > 0 {
		pc, err := e.vault.ReadCommit(ctx, c.Parents[0])
		if err != nil {
			return err
		}
		parentTree = pc.Tree
	}
	v := Version{Reason: info.Reason, Author: info.UpdatedBy}
	if err := e.redactVersion(ctx, &v, parentTree, c.Tree, scope); err != nil {
		return err
	}
	info.Reason, info.UpdatedBy, info.Redacted = v.Reason, v.Author, v.Redacted
	return nil
}
