package engine

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/thalix/tv/icm"
)

// A commit stores files, not folders: a folder that holds no file is not
// in the version it makes, and ICM validation must judge that version,
// not the disk. These helpers turn a listing of what is on disk (or in an
// import source) into the listing of the tree that will be stored.

// RuleScope is the id of the finding that stands for ICM errors in parts
// of a workspace a partial (folder-grant) checkout does not hold.
const RuleScope = "scope"

// storedListing drops from a walk listing every folder that holds no file
// (regular or irregular) below it: git stores no empty folder. It returns
// the kept listing, still in walk order, and the dropped folders. When no
// folder is dropped, kept is listing itself (no copy of a whole tree's
// listing per walk-test).
func storedListing(listing []icm.Entry) (kept []icm.Entry, dropped []string) {
	full := fullFolders(listing)
	if !anyEmptyFolder(listing, full) {
		return listing, nil
	}
	kept = make([]icm.Entry, 0, len(listing))
	for i, e := range listing {
		if e.Type.IsDir() && !full[i] {
			dropped = append(dropped, e.Path)
			continue
		}
		kept = append(kept, e)
	}
	return kept, dropped
}

// anyEmptyFolder reports whether listing holds a folder that full says
// has no file below it.
func anyEmptyFolder(listing []icm.Entry, full []bool) bool {
	for i, e := range listing {
		if e.Type.IsDir() && !full[i] {
			return true
		}
	}
	return false
}

// fullFolders says, per entry of a walk listing, whether it is a folder
// with a file (regular or irregular) somewhere below it. In walk order a
// folder's contents follow it, so the folders holding an entry are the
// ones still open on a stack: no per-folder map.
func fullFolders(listing []icm.Entry) []bool {
	full := make([]bool, len(listing))
	var open []int // indexes of the folders holding the current entry
	for i, e := range listing {
		for len(open) > 0 {
			d := listing[open[len(open)-1]].Path
			if len(e.Path) > len(d) && e.Path[len(d)] == '/' && e.Path[:len(d)] == d {
				break
			}
			open = open[:len(open)-1]
		}
		if e.Type.IsDir() {
			open = append(open, i)
			continue
		}
		for k := len(open) - 1; k >= 0 && !full[open[k]]; k-- {
			full[open[k]] = true
		}
	}
	return full
}

// droppedFindings warns about the topmost dropped folders: they exist on
// disk but will not be stored.
func droppedFindings(dropped []string) []icm.Finding {
	set := make(map[string]bool, len(dropped))
	for _, d := range dropped {
		set[d] = true
	}
	var out []icm.Finding
	for _, d := range dropped {
		if i := strings.LastIndexByte(d, '/'); i > 0 && set[d[:i]] {
			continue
		}
		out = append(out, icm.Finding{Rule: icm.RuleGitkeep, Severity: icm.SeverityWarning, Path: d,
			Message: "empty folder: it is not stored (a version holds files, not empty folders); add a .gitkeep to keep it"})
	}
	return out
}

// validateStoredListing validates the tree stored from a walk listing
// (see storedListing), reading files from fsys, and warns about the
// folders it drops.
func validateStoredListing(fsys fs.FS, listing []icm.Entry) ([]icm.Finding, error) {
	return validateStoredListingCached(fsys, listing, nil)
}

// validateStoredListingCached is validateStoredListing with the facts of
// Markdown files already read (cache; nil: none).
func validateStoredListingCached(fsys fs.FS, listing []icm.Entry, cache icm.FactCache) ([]icm.Finding, error) {
	kept, dropped := storedListing(listing)
	findings, err := icm.ValidateEntriesCached(fsys, kept, icm.KnownTools(), cache)
	if err != nil {
		return nil, err
	}
	if len(dropped) == 0 {
		return findings, nil
	}
	return sortFindings(append(findings, droppedFindings(dropped)...)), nil
}

// validateSourceFS validates the tree an import of fsys stores: its walk
// listing without tv's own metadata files and without empty folders.
func validateSourceFS(fsys fs.FS) ([]icm.Finding, error) {
	var listing []icm.Entry
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." || (isReserved(p) && !d.IsDir()) {
			return nil
		}
		t := d.Type()
		if d.IsDir() {
			t |= fs.ModeDir
		}
		listing = append(listing, icm.Entry{Path: p, Type: t})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	return validateStoredListing(fsys, listing)
}

// judgeStored validates, for checkout plan p, the tree that a commit of it
// would write, when that differs from the checkout's own tree: a partial
// checkout (the folders it does not hold are carried over from tree), or a
// checkout behind its workspace's head (its changes land on tree, the
// head). It replaces p's findings and validity. The disk's own findings
// that no version can show (irregular files, dropped folders, path rules)
// are kept.
func (e *Engine) judgeStored(ctx context.Context, p *Plan, tree Hash) error {
	combined, err := validateCombined(ctx, e.vault, tree, p.changes(), p.disk.FS())
	if _, ok := err.(*ConflictError); ok {
		return err
	}
	if err != nil {
		return fmt.Errorf("validate the tree a commit of %s would store: %w", p.Dir, err)
	}
	for _, f := range p.diskFindings {
		if f.Rule == icm.RuleFileType || f.Rule == icm.RuleGitkeep || f.Rule == RulePathRules || f.Rule == RuleConflict {
			combined = append(combined, f)
		}
	}
	if scope := p.base.Header.Scope; len(scope) > 0 {
		combined = withinScope(combined, scope)
	}
	p.Findings = sortFindings(dedupeFindings(combined))
	p.Valid = !icm.HasErrors(p.Findings)
	return nil
}

// withinScope keeps the findings about paths inside a partial checkout's
// scope. The errors elsewhere still block a commit, so they are counted
// in one finding that names no path the checkout may not see.
func withinScope(fs []icm.Finding, scope []string) []icm.Finding {
	var kept []icm.Finding
	hidden := 0
	for _, f := range fs {
		switch {
		case f.Path != "" && underAny(f.Path, scope):
			kept = append(kept, f)
		case f.Severity == icm.SeverityError:
			hidden++
		}
	}
	if hidden > 0 {
		kept = append(kept, icm.Finding{Rule: RuleScope, Severity: icm.SeverityError,
			Message: fmt.Sprintf("%d ICM error(s) in parts of the workspace this checkout does not hold; a commit stores the whole tree, so someone who can read all of it must fix them first", hidden)})
	}
	return kept
}

// dedupeFindings drops exact repeats (a rule seen on disk and in the
// combined tree).
func dedupeFindings(fs []icm.Finding) []icm.Finding {
	seen := map[icm.Finding]bool{}
	out := fs[:0]
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}
