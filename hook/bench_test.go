package hook

import (
	"context"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
)

// benchReaders compares the two ways the hook could read a push's objects:
// a `git cat-file --batch-command` child (what it does) and gitbackend
// opening the repository in-process (which would also need alternates
// support to see a quarantine). Each iteration starts the reader and reads
// a workspace head's commit and root tree, as a one-file push begins.
func BenchmarkObjectReaders(b *testing.B) {
	path, ws := seedVault(b)
	v, err := gitbackend.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	head, err := v.Ref(context.Background(), engine.WorkspaceRefPrefix+ws)
	if err != nil {
		b.Fatal(err)
	}
	env := testEnv(b, b.TempDir())
	b.Run("git-cat-file-child", func(b *testing.B) {
		for b.Loop() {
			o, err := startObjects(context.Background(), path, env)
			if err != nil {
				b.Fatal(err)
			}
			c, err := o.commit(head)
			if err == nil {
				_, err = o.tree(c.Tree)
			}
			if err != nil {
				b.Fatal(err)
			}
			if err := o.close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gitbackend-open", func(b *testing.B) {
		for b.Loop() {
			v, err := gitbackend.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			c, err := v.ReadCommit(context.Background(), head)
			if err == nil {
				_, err = v.ReadTree(context.Background(), c.Tree)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("git-cat-file-per-object", func(b *testing.B) {
		o, err := startObjects(context.Background(), path, env)
		if err != nil {
			b.Fatal(err)
		}
		defer o.close()
		for b.Loop() {
			if _, err := o.commit(head); err != nil {
				b.Fatal(err)
			}
		}
	})
}
