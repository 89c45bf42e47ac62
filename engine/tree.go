package engine

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// FileEntry is one file of a workspace version.
type FileEntry struct {
	Path string   // slash-separated, relative to the workspace root
	Mode FileMode // ModeFile or ModeExecutable
	ID   Hash     // blob id: the file's version
	Size int64    // bytes; filled in where known
}

// flatten lists every file under tree, sorted by path. Entries that tv
// never writes (symlinks, submodules) are refused: a vault written by tv
// never holds them.
func flatten(ctx context.Context, o Objects, tree Hash) ([]FileEntry, error) {
	var (
		mu  sync.Mutex
		out []FileEntry
	)
	err := walkTrees(ctx, o, tree, func(dir string, entries []TreeEntry) error {
		var files []FileEntry
		for _, en := range entries {
			p := path.Join(dir, en.Name)
			switch en.Mode {
			case ModeDir:
			case ModeFile, ModeExecutable:
				files = append(files, FileEntry{Path: p, Mode: en.Mode, ID: en.ID})
			default:
				return &BadEntryError{Path: p, Mode: en.Mode}
			}
		}
		mu.Lock()
		out = append(out, files...)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// walkTrees reads every tree under tree (ZeroHash: none) in parallel,
// ScanWorkers reads at a time (a workspace of 10k+ files has 1k+ trees),
// and calls visit with each tree's folder path ("" for the root) and
// entries; visit may run concurrently with itself. The first error, of a
// read or of visit, stops the walk and is returned.
func walkTrees(ctx context.Context, o Objects, tree Hash, visit func(dir string, entries []TreeEntry) error) error {
	if tree.IsZero() {
		return nil
	}
	var (
		errOnce  sync.Once
		firstErr error
		failed   atomic.Bool
		wg       sync.WaitGroup
		sem      = make(chan struct{}, ScanWorkers)
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		failed.Store(true)
	}
	var walk func(dir string, id Hash)
	walk = func(dir string, id Hash) {
		defer wg.Done()
		if failed.Load() {
			return
		}
		sem <- struct{}{}
		entries, err := o.ReadTree(ctx, id)
		<-sem
		if err == nil {
			err = visit(dir, entries)
		}
		if err != nil {
			fail(err)
			return
		}
		for _, en := range entries {
			if en.Mode == ModeDir {
				wg.Add(1)
				go walk(path.Join(dir, en.Name), en.ID)
			}
		}
	}
	wg.Add(1)
	walk("", tree)
	wg.Wait()
	return firstErr
}

// lookupPath returns the entry at a slash path inside tree, reading only
// the trees along the path; ok is false when nothing is there.
func lookupPath(ctx context.Context, o Objects, tree Hash, p string) (TreeEntry, bool, error) {
	cur := TreeEntry{Mode: ModeDir, ID: tree}
	for _, name := range strings.Split(p, "/") {
		if cur.Mode != ModeDir || cur.ID.IsZero() {
			return TreeEntry{}, false, nil
		}
		entries, err := o.ReadTree(ctx, cur.ID)
		if err != nil {
			return TreeEntry{}, false, err
		}
		found := false
		for _, en := range entries {
			if en.Name == name {
				cur, found = en, true
				break
			}
		}
		if !found {
			return TreeEntry{}, false, nil
		}
	}
	return cur, true, nil
}

// change is one path edit applied to a tree: set a file, or delete it.
type change struct {
	Path   string
	Mode   FileMode
	ID     Hash
	Delete bool
}

// applyChanges writes the trees that result from applying changes to base
// (ZeroHash for an empty tree) and returns the new root tree. Only the
// trees along changed paths are read and written, so the cost is
// proportional to the changed paths and their depth, not to the tree.
// Directories left empty disappear.
func applyChanges(ctx context.Context, o Objects, w ObjectWriter, base Hash, changes []change) (Hash, error) {
	root, err := applyDir(ctx, o, w, base, changes, 0)
	if err != nil {
		return ZeroHash, err
	}
	if root.IsZero() {
		return w.WriteTree(nil)
	}
	return root, nil
}

// applyDir applies changes (paths relative to this dir, starting at byte
// offset off) to tree dir and returns its new id, or ZeroHash when empty.
// Folder contents change before the entries of this folder, so a folder
// replaced by a file (or a file by a folder) ends as the change says. A
// change that would silently swallow an upstream entry — a file where
// upstream has a non-empty folder, a path below an upstream file the
// change does not delete — is a *ConflictError.
func applyDir(ctx context.Context, o Objects, w ObjectWriter, dir Hash, changes []change, off int) (Hash, error) {
	entries := map[string]TreeEntry{}
	if !dir.IsZero() {
		list, err := o.ReadTree(ctx, dir)
		if err != nil {
			return ZeroHash, err
		}
		for _, en := range list {
			entries[en.Name] = en
		}
	}
	sub := map[string][]change{}
	leaves := map[string]change{}
	for _, c := range changes {
		name, _, nested := strings.Cut(c.Path[off:], "/")
		if nested {
			sub[name] = append(sub[name], c)
		} else {
			leaves[name] = c
		}
	}
	var conflicts []string
	for _, name := range sortedKeys(sub) {
		base := ZeroHash
		if en, ok := entries[name]; ok {
			if en.Mode == ModeDir {
				base = en.ID
			} else if leaf, ok := leaves[name]; !ok || !leaf.Delete {
				conflicts = append(conflicts, sub[name][0].Path[:off+len(name)])
				continue
			}
		}
		id, err := applyDir(ctx, o, w, base, sub[name], off+len(name)+1)
		var ce *ConflictError
		if errors.As(err, &ce) {
			conflicts = append(conflicts, ce.Paths...)
			continue
		}
		if err != nil {
			return ZeroHash, err
		}
		if id.IsZero() {
			delete(entries, name)
			continue
		}
		entries[name] = TreeEntry{Name: name, Mode: ModeDir, ID: id}
	}
	for _, name := range sortedKeys(leaves) {
		c := leaves[name]
		en, ok := entries[name]
		switch {
		case c.Delete && ok && en.Mode != ModeDir:
			delete(entries, name)
		case c.Delete:
			// already absent, or a folder now: nothing of ours to delete
		case ok && en.Mode == ModeDir:
			conflicts = append(conflicts, c.Path)
		default:
			entries[name] = TreeEntry{Name: name, Mode: c.Mode, ID: c.ID}
		}
	}
	if len(conflicts) > 0 {
		return ZeroHash, &ConflictError{Paths: conflicts}
	}
	if len(entries) == 0 {
		return ZeroHash, nil
	}
	list := make([]TreeEntry, 0, len(entries))
	for _, en := range entries {
		list = append(list, en)
	}
	return w.WriteTree(list)
}

// diffTrees counts files added, modified and deleted from a to b, skipping
// identical subtrees by id.
func diffTrees(ctx context.Context, o Objects, a, b Hash) (added, modified, deleted int, err error) {
	var walk func(a, b Hash) error
	count := func(id Hash, n *int) error {
		files, err := countFiles(ctx, o, id)
		*n += files
		return err
	}
	read := func(id Hash) (map[string]TreeEntry, error) { return readTreeMap(ctx, o, id) }
	walk = func(a, b Hash) error {
		if a == b {
			return nil
		}
		ma, err := read(a)
		if err != nil {
			return err
		}
		mb, err := read(b)
		if err != nil {
			return err
		}
		for name, ea := range ma {
			eb, ok := mb[name]
			switch {
			case !ok && ea.Mode == ModeDir:
				err = count(ea.ID, &deleted)
			case !ok:
				deleted++
			case ea.Mode == ModeDir && eb.Mode == ModeDir:
				err = walk(ea.ID, eb.ID)
			case ea.Mode == ModeDir:
				modified++ // file replaced a directory: count the file as modified
				err = count(ea.ID, &deleted)
				deleted--
			case eb.Mode == ModeDir:
				modified++
				err = count(eb.ID, &added)
				added--
			case ea.ID != eb.ID || ea.Mode != eb.Mode:
				modified++
			}
			if err != nil {
				return err
			}
		}
		for name, eb := range mb {
			if _, ok := ma[name]; ok {
				continue
			}
			if eb.Mode == ModeDir {
				err = count(eb.ID, &added)
			} else {
				added++
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	err = walk(a, b)
	return added, modified, deleted, err
}

// readTreeMap reads tree id's entries keyed by name; ZeroHash is the empty
// tree.
func readTreeMap(ctx context.Context, o Objects, id Hash) (map[string]TreeEntry, error) {
	m := map[string]TreeEntry{}
	if id.IsZero() {
		return m, nil
	}
	list, err := o.ReadTree(ctx, id)
	for _, en := range list {
		m[en.Name] = en
	}
	return m, err
}
