package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// countFiles counts the files under tree by walking its tree objects
// (walkTrees: in parallel), without an entry list: what a version's log
// line needs of a folder added or deleted whole (the first version's root
// is one).
func countFiles(ctx context.Context, o Objects, tree Hash) (int, error) {
	var n atomic.Int64
	err := walkTrees(ctx, o, tree, func(_ string, entries []TreeEntry) error {
		files := 0
		for _, en := range entries {
			switch en.Mode {
			case ModeDir:
			case ModeFile, ModeExecutable:
				files++
			default:
				return fmt.Errorf("%w: %s has git mode %o, which tv does not handle", ErrRefused, en.Name, en.Mode)
			}
		}
		n.Add(int64(files))
		return nil
	})
	if err != nil {
		return 0, err
	}
	return int(n.Load()), nil
}

// buildTree writes the trees of a new version holding exactly the files
// of changes (none deleted) and returns the root tree. It sorts changes by
// path, so that every folder's files are one run of the slice, and writes
// each folder from its run: no per-folder maps or copies of the changes,
// which for an import of 100k files were most of its garbage. Its result
// is applyChanges' on an empty base.
func buildTree(ctx context.Context, w ObjectWriter, changes []change) (Hash, error) {
	slices.SortFunc(changes, func(a, b change) int { return strings.Compare(a.Path, b.Path) })
	for i := 1; i < len(changes); i++ {
		if p, q := changes[i-1].Path, changes[i].Path; p == q || strings.HasPrefix(q, p) && q[len(p)] == '/' {
			return ZeroHash, &ConflictError{Paths: []string{q}}
		}
	}
	var entries []TreeEntry // reused across folders: WriteTree copies
	var build func(run []change, off int) (Hash, error)
	build = func(run []change, off int) (Hash, error) {
		if err := ctx.Err(); err != nil {
			return ZeroHash, err
		}
		mark := len(entries)
		for i := 0; i < len(run); {
			c := run[i]
			name, _, nested := strings.Cut(c.Path[off:], "/")
			if !nested {
				entries = append(entries, TreeEntry{Name: name, Mode: c.Mode, ID: c.ID})
				i++
				continue
			}
			prefix := c.Path[:off+len(name)+1]
			j := i + 1
			for j < len(run) && strings.HasPrefix(run[j].Path, prefix) {
				j++
			}
			id, err := build(run[i:j], len(prefix))
			if err != nil {
				return ZeroHash, err
			}
			entries = append(entries, TreeEntry{Name: name, Mode: ModeDir, ID: id})
			i = j
		}
		id, err := w.WriteTree(entries[mark:])
		entries = entries[:mark]
		return id, err
	}
	return build(changes, 0)
}
