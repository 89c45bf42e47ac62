package engine

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/thalix/tv/icm"
)

// validateCombined runs ICM validation on the tree a commit makes when it
// applies changes on top of a head (tree headTree) that moved since its
// checkout: a combination neither side has seen whole. Changed files are
// read from the checkout (disk), the others from the vault.
func validateCombined(ctx context.Context, o Objects, headTree Hash, changes []change, disk fs.FS) ([]icm.Finding, error) {
	files, err := flatten(ctx, o, headTree)
	if err != nil {
		return nil, err
	}
	fsys := versionFS{ctx: ctx, o: o, disk: disk, files: make(map[string]*FileEntry, len(files)+len(changes)), changed: map[string]bool{}}
	for i := range files {
		fsys.files[files[i].Path] = &files[i]
	}
	for _, c := range changes {
		if c.Delete {
			delete(fsys.files, c.Path)
			continue
		}
		fsys.files[c.Path] = &FileEntry{Path: c.Path, Mode: c.Mode, ID: c.ID}
		fsys.changed[c.Path] = true
	}
	all := make([]FileEntry, 0, len(fsys.files))
	for _, f := range fsys.files {
		all = append(all, *f)
	}
	slices.SortFunc(all, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })
	findings, err := icm.ValidateEntries(fsys, walkListing(all), icm.KnownTools())
	if err != nil {
		return nil, err
	}
	// The safe-input rules that span paths (walk-test's pathFindings):
	// each side's names were checked, not the two together.
	fold := foldSet{}
	for _, f := range all {
		if err := fold.add(f.Path); err != nil {
			findings = append(findings, icm.Finding{Rule: RulePathRules, Severity: icm.SeverityError, Path: f.Path, Message: ruleText(err)})
		}
	}
	if len(all) > MaxImportFiles {
		findings = append(findings, icm.Finding{Rule: RulePathRules, Severity: icm.SeverityError, Message: fmt.Sprintf("%d files, over the %d-file limit", len(all), MaxImportFiles)})
	}
	return sortFindings(findings), nil
}

// walkListing lists the files and their folders in fs.WalkDir order (each
// folder's entries sorted by name), which is not path order: a folder "a"
// comes before a file "a.md" here.
func walkListing(files []FileEntry) []icm.Entry {
	entries := make([]icm.Entry, len(files))
	for i, f := range files {
		entries[i] = icm.Entry{Path: f.Path}
	}
	return entriesListing(entries)
}

// versionFS serves the files of a combined tree for validation: changed
// ones from the checkout, the others from the vault.
type versionFS struct {
	ctx     context.Context
	o       Objects
	disk    fs.FS
	files   map[string]*FileEntry
	changed map[string]bool
}

func (v versionFS) Open(name string) (fs.File, error) {
	f, ok := v.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if v.changed[name] {
		return v.disk.Open(name)
	}
	rc, size, err := v.o.OpenBlob(v.ctx, f.ID)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return &versionFile{ReadCloser: rc, info: versionInfo{name: path.Base(name), size: size}}, nil
}

type versionFile struct {
	io.ReadCloser
	info versionInfo
}

func (f *versionFile) Stat() (fs.FileInfo, error) { return f.info, nil }

type versionInfo struct {
	name string
	size int64
}

func (i versionInfo) Name() string       { return i.name }
func (i versionInfo) Size() int64        { return i.size }
func (i versionInfo) Mode() fs.FileMode  { return 0o644 }
func (i versionInfo) ModTime() time.Time { return time.Time{} }
func (i versionInfo) IsDir() bool        { return false }
func (i versionInfo) Sys() any           { return nil }
