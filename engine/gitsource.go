package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/thalix/tv/gitwork"
	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/ignore"
)

// openWorkTree opens folder dir of git work tree repo as an import
// source: what git would commit there (as tv check sees it), leaving out
// .git and what .gitignore files, .git/info/exclude and the global
// excludes ignore; a nested repository is refused.
func openWorkTree(dir string, repo *gitwork.Repo) (*source, error) {
	prefix, err := workTreePrefix(dir, repo)
	if err != nil {
		return nil, err
	}
	global, err := gitwork.GlobalExcludes(context.Background(), repo.Top, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	top, err := os.OpenRoot(repo.Top)
	if err != nil {
		return nil, err
	}
	m, err := ignore.NewMatcher(top, ignore.Options{GitIgnore: true, GlobalExcludes: global})
	if err != nil {
		top.Close()
		return nil, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		top.Close()
		return nil, err
	}
	b := newBeneath(root)
	closeBoth := func() error { b.close(); return top.Close() }
	filter := &scanFilter{m: m, prefix: prefix}
	files, err := inventoryFS(root.FS(), filter, func(p string, size int64) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) { return openRegular(b, p, size) }
	})
	if err == nil {
		err = filter.err()
	}
	if err != nil {
		closeBoth()
		return nil, err
	}
	return &source{files: files, fsys: sourceFS{b}, close: closeBoth, listing: sourceListing(files)}, nil
}

// workTreePrefix is dir's slash path inside the work tree, "" or ending
// in "/".
func workTreePrefix(dir string, repo *gitwork.Repo) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(repo.Top, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%w: %s is outside the work tree %s", ErrRefused, dir, repo.Top)
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel) + "/", nil
}

// sourceListing is the walk listing of a source's files.
func sourceListing(files []sourceFile) []icm.Entry {
	entries := make([]icm.Entry, len(files))
	for i, f := range files {
		entries[i] = icm.Entry{Path: f.path}
	}
	return entriesListing(entries)
}

// openRevision opens the tree of commit rev of the git work tree holding
// dir, limited to dir's folder, as an import source: exactly the
// committed files, read through git. A symlink or submodule in it is
// refused, naming its path.
func openRevision(ctx context.Context, dir, rev string) (*source, error) {
	if err := RequireFolder(dir); err != nil {
		return nil, err
	}
	repo, err := gitwork.Find(dir)
	if err != nil {
		return nil, err
	}
	prefix, err := workTreePrefix(dir, repo)
	if err != nil {
		return nil, err
	}
	all, _, err := repo.Tree(ctx, rev)
	if err != nil {
		return nil, err
	}
	var mine []gitwork.File
	for _, f := range all {
		if p, ok := strings.CutPrefix(f.Path, prefix); ok {
			f.Path = p
			mine = append(mine, f)
		}
	}
	blobs, err := repo.OpenBlobs(ctx, mine)
	if err != nil {
		return nil, err
	}
	inv := newInventory()
	for i := range mine {
		f := &mine[i]
		if f.Type() != 0 {
			blobs.Close()
			return nil, fmt.Errorf("%w: %q is a symlink in %s; tv stores no symlinks", ErrRefused, f.Path, rev)
		}
		if isReserved(f.Path) {
			continue
		}
		mode := ModeFile
		if f.Executable() {
			mode = ModeExecutable
		}
		open := func() (io.ReadCloser, error) {
			data, err := blobs.Read(f)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(data)), nil
		}
		if err := inv.addFile(sourceFile{path: f.Path, mode: mode, size: f.Size, open: open}); err != nil {
			blobs.Close()
			return nil, err
		}
	}
	files := inv.sorted()
	return &source{files: files, fsys: blobs.FS(), close: blobs.Close, listing: sourceListing(files)}, nil
}

// ImportWorkspaceRevision makes a workspace from the tree of commit rev
// (a commit, tag or tree name) of the git repository holding folder dir,
// limited to dir's part of it: exactly the committed files, under the
// rules of ImportWorkspace. It works on a shallow clone.
func (e *Engine) ImportWorkspaceRevision(ctx context.Context, dir, rev, name string) (*Created, error) {
	if _, err := e.precreate(ctx, KindWorkspace, name); err != nil {
		return nil, err
	}
	src, err := openRevision(ctx, dir, rev)
	if err != nil {
		return nil, err
	}
	defer src.close()
	return e.createFromSource(ctx, KindWorkspace, name, src, "import "+displayName(dir)+" at "+rev, "")
}
