package hook

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
)

// validateICM runs the ICM rules of `tv workspace walk-test` on tree and
// refuses the ref with one line per error finding. Warnings are not the
// hook's business.
func (c *checker) validateICM(ref string, tree engine.Hash) error {
	fsys := &treeFS{o: c.o, blobs: map[string]engine.Hash{}}
	var entries []icm.Entry
	if err := c.listing("", tree, 0, &entries, fsys.blobs); err != nil {
		return err
	}
	findings, err := icm.ValidateEntries(fsys, entries, icm.KnownTools())
	if err != nil {
		return err
	}
	for _, f := range findings {
		if f.Severity == icm.SeverityError {
			c.rs.add(CodeInvalidTree, ref, "%s", f.String())
		}
	}
	return nil
}

// listing appends the entries below folder p (tree id) in fs.WalkDir
// order — each folder's entries sorted by name, a folder's contents right
// after it — and records the blob of every Markdown file.
func (c *checker) listing(p string, id engine.Hash, depth int, out *[]icm.Entry, blobs map[string]engine.Hash) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	entries, err := c.o.tree(id)
	if err != nil {
		return err
	}
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b engine.TreeEntry) int { return strings.Compare(a.Name, b.Name) })
	for _, e := range entries {
		full := path.Join(p, e.Name)
		switch e.Mode {
		case engine.ModeDir:
			*out = append(*out, icm.Entry{Path: full, Type: fs.ModeDir})
			if depth < engine.MaxDepth {
				if err := c.listing(full, e.ID, depth+1, out, blobs); err != nil {
					return err
				}
			}
		case engine.ModeFile, engine.ModeExecutable:
			*out = append(*out, icm.Entry{Path: full})
			if strings.HasSuffix(strings.ToLower(e.Name), ".md") {
				blobs[full] = e.ID
			}
		case modeSymlink:
			*out = append(*out, icm.Entry{Path: full, Type: fs.ModeSymlink})
		default:
			*out = append(*out, icm.Entry{Path: full, Type: fs.ModeIrregular})
		}
	}
	return nil
}

// treeFS serves the Markdown files ICM validation opens. The contracts —
// the root's CONTEXT.md, AGENTS.md and CLAUDE.md and every
// stages/*/CONTEXT.md, the only files the error rules read — come from
// their blobs; every other Markdown file, read only for warnings, is
// served empty, so validation reads no more than the contracts.
type treeFS struct {
	o     *objects
	blobs map[string]engine.Hash
}

// isContract reports whether p is a file the ICM error rules read.
func isContract(p string) bool {
	switch p {
	case "CONTEXT.md", "AGENTS.md", "CLAUDE.md":
		return true
	}
	dir, base := path.Split(p)
	return base == "CONTEXT.md" && path.Dir(strings.TrimSuffix(dir, "/")) == "stages"
}

func (t *treeFS) Open(name string) (fs.File, error) {
	id, ok := t.blobs[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	var data []byte
	if isContract(name) {
		var err error
		if data, _, err = t.o.read(id, "blob", icm.MaxMarkdownBytes+1, true); err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
	}
	return &memFile{Reader: bytes.NewReader(data), name: path.Base(name), size: int64(len(data))}, nil
}

// memFile is a file read whole from a blob.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Name() string               { return f.name }
func (f *memFile) Size() int64                { return f.size }
func (f *memFile) Mode() fs.FileMode          { return 0o644 }
func (f *memFile) ModTime() time.Time         { return time.Time{} }
func (f *memFile) IsDir() bool                { return false }
func (f *memFile) Sys() any                   { return nil }

var _ io.Reader = (*memFile)(nil)
