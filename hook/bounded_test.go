package hook

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
)

// setPath returns tree with entry placed at slash path p (folders made as
// needed), writing the changed trees into w.
func setPath(t *testing.T, v *gitbackend.Vault, w engine.ObjectWriter, tree engine.Hash, p string, entry engine.TreeEntry) engine.Hash {
	t.Helper()
	var entries []engine.TreeEntry
	if !tree.IsZero() {
		var err error
		if entries, err = v.ReadTree(context.Background(), tree); err != nil {
			t.Fatal(err)
		}
	}
	first, rest, deeper := strings.Cut(p, "/")
	out := entries[:0:0]
	var sub engine.Hash
	for _, e := range entries {
		if e.Name == first {
			sub = e.ID
			continue
		}
		out = append(out, e)
	}
	if deeper {
		entry = engine.TreeEntry{Name: first, Mode: engine.ModeDir, ID: setPath(t, v, w, sub, rest, entry)}
	} else {
		entry.Name = first
	}
	id, err := w.WriteTree(append(out, entry))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestWorkFollowsTheChange judges one-file changes to a 10,000-file
// workspace and counts the objects the hook reads: a content change deep
// in the tree reads the trees along its path, not the tree; a deletion,
// which an ICM Inputs path may depend on, revalidates the whole listing.
func TestWorkFollowsTheChange(t *testing.T) {
	r := newLocalRepo(t)
	v, err := gitbackend.Open(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := engine.New(v, engine.Options{Actor: &engine.Credentials{User: "alice", Email: "alice@example.com"}})
	ws, err := e.InitWorkspace(ctx, "big", "")
	if err != nil {
		t.Fatal(err)
	}
	base, err := v.ReadCommit(ctx, ws.Head)
	if err != nil {
		t.Fatal(err)
	}
	w, err := v.NewObjectWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const folders, perFolder = 100, 100
	var bulk []engine.TreeEntry
	for d := range folders {
		var files []engine.TreeEntry
		for f := range perFolder {
			body := fmt.Sprintf("file %d/%d\n", d, f)
			id, err := w.WriteBlob(strings.NewReader(body), int64(len(body)))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, engine.TreeEntry{Name: fmt.Sprintf("f%03d.md", f), Mode: engine.ModeFile, ID: id})
		}
		id, err := w.WriteTree(files)
		if err != nil {
			t.Fatal(err)
		}
		bulk = append(bulk, engine.TreeEntry{Name: fmt.Sprintf("d%03d", d), Mode: engine.ModeDir, ID: id})
	}
	bulkTree, err := w.WriteTree(bulk)
	if err != nil {
		t.Fatal(err)
	}
	big := setPath(t, v, w, base.Tree, "stages/01-research/references/bulk", engine.TreeEntry{Mode: engine.ModeDir, ID: bulkTree})
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if w, err = v.NewObjectWriter(ctx); err != nil {
		t.Fatal(err)
	}
	edited := "new content\n"
	editedBlob, err := w.WriteBlob(strings.NewReader(edited), int64(len(edited)))
	if err != nil {
		t.Fatal(err)
	}
	oneFile := setPath(t, v, w, big, "stages/01-research/references/bulk/d042/f007.md", engine.TreeEntry{Mode: engine.ModeFile, ID: editedBlob})
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	ref := engine.WorkspaceRefPrefix + ws.ID
	bigCommit := r.git(wsMessage("10,000 files", ws.ID, "big"), "commit-tree", big.String(), "-p", ws.Head.String())
	r.git("", "update-ref", ref, bigCommit)

	judge := func(tree engine.Hash) (int64, string) {
		c := r.git(wsMessage("change", ws.ID, "big"), "commit-tree", tree.String(), "-p", bigCommit)
		var reads atomic.Int64
		var stderr bytes.Buffer
		in := fmt.Sprintf("%s %s %s\n", bigCommit, c, ref)
		getenv := func(k string) string { return map[string]string{"REMOTE_USER": "alice"}[k] }
		err := PreReceive(ctx, strings.NewReader(in), Options{GitDir: r.dir, Getenv: getenv, Env: r.env, Stderr: &stderr, reads: &reads})
		if err != nil {
			t.Fatalf("refused: %v\n%s", err, stderr.String())
		}
		return reads.Load(), stderr.String()
	}
	t.Run("one file changed", func(t *testing.T) {
		n, _ := judge(oneFile)
		// new commit, old commit, access ref (commit, tree, blob), two
		// trees per level of stages/01-research/references/bulk/d042, one blob size.
		if depth := strings.Count("stages/01-research/references/bulk/d042/f007.md", "/"); n > int64(2*(depth+1)+8) {
			t.Fatalf("the hook read %d objects for a one-file change %d folders deep", n, depth)
		}
		t.Logf("one-file change of a %d-file workspace: %d objects read", folders*perFolder, n)
	})
	t.Run("one file deleted", func(t *testing.T) {
		w, err := v.NewObjectWriter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Replace folder d042 by the same folder without f007.md.
		entries, err := v.ReadTree(ctx, bulk[42].ID)
		if err != nil {
			t.Fatal(err)
		}
		kept := append([]engine.TreeEntry(nil), entries[:7]...)
		kept = append(kept, entries[8:]...)
		d042, err := w.WriteTree(kept)
		if err != nil {
			t.Fatal(err)
		}
		tree := setPath(t, v, w, big, path.Join("stages/01-research/references/bulk", "d042"), engine.TreeEntry{Mode: engine.ModeDir, ID: d042})
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		n, _ := judge(tree)
		if n < folders {
			t.Fatalf("a deletion read only %d objects: the ICM listing was not rebuilt", n)
		}
		t.Logf("one-file deletion of a %d-file workspace: %d objects read (the whole listing)", folders*perFolder, n)
	})
}
