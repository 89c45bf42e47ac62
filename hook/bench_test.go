package hook

import (
	"context"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
)

// BenchmarkObjectReaders compares the hook's two readers: one `git
// cat-file --batch-command` child (any layout) and gitbackend.PushReader
// in-process (what a small push to a plain bare repository gets). Each
// iteration opens the reader and reads the access ref, a workspace head's
// commit and its root tree, as the check of a one-file push begins.
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
	for _, reader := range []struct {
		name    string
		withGit bool
	}{{"git-cat-file-child", true}, {"in-process", false}} {
		b.Run(reader.name, func(b *testing.B) {
			opts := Options{GitDir: path, Env: env, readWithGit: reader.withGit}
			for b.Loop() {
				src, err := openSource(context.Background(), opts)
				if err != nil {
					b.Fatal(err)
				}
				if _, isGit := src.(*catFile); isGit != reader.withGit {
					b.Fatalf("opened %T", src)
				}
				o := newObjects(src, nil)
				_, _, err = o.resolve(engine.AccessRef)
				var c *engine.Commit
				if err == nil {
					c, err = o.commit(head)
				}
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
	}
}
