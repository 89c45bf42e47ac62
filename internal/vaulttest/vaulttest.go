// Package vaulttest holds test helpers that write a vault the way stock
// git or another client could, bypassing every engine check, so tests can
// plant what tv itself would refuse.
package vaulttest

import (
	"context"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
)

// ForceFile commits content at slash path p of workspace wsID's head
// straight through v's storage interface (one blob, the trees along p, a
// commit with the head's identity and message, one compare-and-swap of
// the workspace ref) and returns the new head. Any failure fails t.
func ForceFile(t testing.TB, v engine.Vault, wsID, p, content string) engine.Hash {
	t.Helper()
	ctx := context.Background()
	ref := engine.WorkspaceRefPrefix + wsID
	head, err := v.Ref(ctx, ref)
	check(t, err)
	c, err := v.ReadCommit(ctx, head)
	check(t, err)
	w, err := v.NewObjectWriter(ctx)
	check(t, err)
	defer w.Abort()
	blob, err := w.WriteBlob(strings.NewReader(content), int64(len(content)))
	check(t, err)
	var set func(tree engine.Hash, parts []string) engine.Hash
	set = func(tree engine.Hash, parts []string) engine.Hash {
		var entries, out []engine.TreeEntry
		if !tree.IsZero() {
			entries, err = v.ReadTree(ctx, tree)
			check(t, err)
		}
		sub := engine.ZeroHash
		for _, en := range entries {
			if en.Name == parts[0] {
				if en.Mode == engine.ModeDir {
					sub = en.ID
				}
				continue
			}
			out = append(out, en)
		}
		if len(parts) == 1 {
			out = append(out, engine.TreeEntry{Name: parts[0], Mode: engine.ModeFile, ID: blob})
		} else {
			out = append(out, engine.TreeEntry{Name: parts[0], Mode: engine.ModeDir, ID: set(sub, parts[1:])})
		}
		id, err := w.WriteTree(out)
		check(t, err)
		return id
	}
	tree := set(c.Tree, strings.Split(p, "/"))
	id, err := w.WriteCommit(&engine.Commit{Tree: tree, Parents: []engine.Hash{head}, Author: c.Author, Committer: c.Committer, Message: c.Message})
	check(t, err)
	check(t, w.Finish())
	check(t, v.UpdateRefs(ctx, engine.RefUpdate{Name: ref, Old: head, New: id}))
	return id
}

func check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
