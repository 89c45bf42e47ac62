package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/thalix/tv/internal/statcache"

	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/ignore"
)

// CheckResult is `tv check`'s verdict on a tree: walk-test's findings for
// it, as if every file were new.
type CheckResult struct {
	// Files is how many files were checked.
	Files int `json:"files"`
	// Ignored is how many entries .gitignore rules left out (disk only).
	Ignored  int           `json:"ignored"`
	Findings []icm.Finding `json:"findings"`
	Valid    bool          `json:"valid"`
}

// CheckOptions say which disk entries CheckDir leaves out, as git would.
type CheckOptions struct {
	// Ignore, when set, leaves out what it ignores: the matcher of the git
	// work tree holding the folder. When nil, the folder's own .gitignore
	// files (and .git/info/exclude, when it holds .git) apply, as
	// walk-test applies them to a checkout.
	Ignore *ignore.Matcher
	// Prefix is the folder's slash path inside Ignore's root ("" when the
	// folder is that root).
	Prefix string
}

// CheckDir validates folder dir as an ICM workspace with exactly the rules
// walk-test applies to a checkout (the ICM profile, the safe-input path
// rules, the file and byte limits), as if every file were new. It reads
// the folder only: no vault, no manifest, nothing written. Like walk-test
// it never follows a symlink and leaves out .git, tv's own files and what
// .gitignore rules ignore (opts.Ignore: what git would not commit); a
// nested repository is refused.
func CheckDir(ctx context.Context, dir string, opts CheckOptions) (*CheckResult, error) {
	if err := RequireFolder(dir); err != nil {
		return nil, err
	}
	filter := &scanFilter{m: opts.Ignore, prefix: opts.Prefix}
	if opts.Ignore == nil {
		own, err := newCheckoutFilter(dir)
		if err != nil {
			return nil, err
		}
		filter = own
	}
	filter.nested, filter.facts, filter.statless = true, true, true
	if opts.Ignore != nil {
		opts.Ignore.UseListings(filter.hasIgnoreFile)
	}
	if filter.prefix != "" && !strings.HasSuffix(filter.prefix, "/") {
		filter.prefix += "/"
	}
	disk, err := scanCheckout(dir, &statcache.Cache{}, filter)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("%w: %v: tv check must read every folder (and Markdown file) of the tree", ErrRefused, err)
		}
		return nil, err
	}
	defer disk.close()
	// The path rules need no file's content: they are judged while the
	// validator reads the contracts and notes.
	paths := make([]string, len(disk.files))
	for i, f := range disk.files {
		paths[i] = f.path
	}
	pathFindings := make(chan []icm.Finding, 1)
	go func() { pathFindings <- pathRuleFindings(paths, paths, len(paths), disk.bytes) }()
	// The tree a commit (or git) stores: empty folders are not in it.
	findings, err := validateStoredListingCached(disk.FS(), disk.listing, disk.facts)
	findings = append(findings, <-pathFindings...)
	if err != nil {
		return nil, readRefusal(dir, err)
	}
	res := &CheckResult{Files: len(paths), Ignored: disk.ignored, Findings: sortFindings(findings)}
	res.Valid = !icm.HasErrors(res.Findings)
	return res, ctx.Err()
}

// RequireFolder returns nil when dir is a folder (or a symlink to one),
// else an error naming it: ErrNotFound when it does not exist, ErrRefused
// when it is something else or cannot be read.
func RequireFolder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s does not exist", ErrNotFound, dir)
	case err != nil:
		return fmt.Errorf("%w: %v", ErrRefused, err)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a folder (it is a %s); give the folder of a workspace tree", ErrRefused, dir, typeText(fi.Mode()))
	}
	return nil
}

func typeText(m fs.FileMode) string {
	if m.IsRegular() {
		return "regular file"
	}
	return icm.TypeName(m.Type())
}

// readRefusal is the error for a file validation could not read.
func readRefusal(dir string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w: %s: %v: tv check reads every Markdown file of the tree", ErrRefused, dir, err)
	}
	return fmt.Errorf("validate %s: %w", dir, err)
}

// TreeFile is one file of a stored tree (a git index or commit) to check.
type TreeFile struct {
	Path string      // slash path from the tree's root
	Type fs.FileMode // 0 for a regular file, fs.ModeSymlink for a symlink
	Size int64
}

// CheckFiles validates a stored tree, given as its files, with the rules
// of CheckDir; Markdown files are read from fsys. tv's own files at the
// root are left out, as a scan leaves them out.
func CheckFiles(ctx context.Context, fsys fs.FS, files []TreeFile) (*CheckResult, error) {
	var entries []icm.Entry
	var paths []string
	var total int64
	for _, f := range files {
		if isReserved(f.Path) {
			continue
		}
		entries = append(entries, icm.Entry{Path: f.Path, Type: f.Type})
		if f.Type.IsRegular() {
			paths = append(paths, f.Path)
			total += f.Size
		}
	}
	findings, err := icm.ValidateEntries(fsys, entriesListing(entries), icm.KnownTools())
	if err != nil {
		return nil, err
	}
	findings = append(findings, pathRuleFindings(paths, paths, len(paths), total)...)
	res := &CheckResult{Files: len(paths), Findings: sortFindings(findings)}
	res.Valid = !icm.HasErrors(res.Findings)
	return res, ctx.Err()
}

// entriesListing lists entries (files, any order) and their folders in
// fs.WalkDir order: each folder's entries sorted by name, its contents
// right after it (a folder "a" comes before a file "a.md").
func entriesListing(files []icm.Entry) []icm.Entry {
	parent := func(p string) string {
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			return p[:i]
		}
		return ""
	}
	children := map[string][]icm.Entry{}
	listed := map[string]bool{"": true} // folders
	for _, f := range files {
		dir := parent(f.Path)
		children[dir] = append(children[dir], f)
		for d := dir; !listed[d]; d = parent(d) {
			listed[d] = true
			children[parent(d)] = append(children[parent(d)], icm.Entry{Path: d, Type: fs.ModeDir})
		}
	}
	out := make([]icm.Entry, 0, len(files)+len(children))
	var visit func(dir string)
	visit = func(dir string) {
		kids := children[dir]
		slices.SortFunc(kids, func(a, b icm.Entry) int { return strings.Compare(path.Base(a.Path), path.Base(b.Path)) })
		for _, e := range kids {
			out = append(out, e)
			if e.Type.IsDir() {
				visit(e.Path)
			}
		}
	}
	visit("")
	return out
}
