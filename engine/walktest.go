package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/statcache"

	"github.com/thalix/tv/icm"
)

// PlanFile is one file of a change plan.
type PlanFile struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`               // bytes now (0 when deleted)
	OldSize int64  `json:"old_size,omitempty"` // bytes at the baseline (modified, deleted)
	Mode    string `json:"mode,omitempty"`
}

// Plan is the exact change a commit of a checkout would make, and the
// checkout's ICM findings. Lists are sorted by path and complete; callers
// bound what they print (MaxPlanEntries).
type Plan struct {
	Dir           string        `json:"-"`
	VaultID       string        `json:"vault_id"`
	WorkspaceID   string        `json:"workspace_id"`
	WorkspaceName string        `json:"workspace_name"`
	Baseline      Hash          `json:"baseline"`
	Added         []PlanFile    `json:"added"`
	Modified      []PlanFile    `json:"modified"`
	Deleted       []PlanFile    `json:"deleted"`
	AddedDirs     []string      `json:"added_folders"`
	DeletedDirs   []string      `json:"deleted_folders"`
	Findings      []icm.Finding `json:"findings"`
	Valid         bool          `json:"valid"`
	// Behind is set when the workspace's head is not the baseline: how
	// far the checkout is behind and which files it lacks.
	Behind *Behind `json:"behind,omitempty"`
	// Ignored is how many entries .gitignore rules (and .git/info/exclude)
	// left out of the plan: neither planned nor committed.
	Ignored int `json:"ignored"`

	// diskFindings are the findings of the checkout's own stored tree,
	// before judgeStored combines it with what it does not hold.
	diskFindings []icm.Finding
	base         *statcache.Cache
	disk         *snapshot
	refreshed    bool                 // a hashed file changes the cache: back to its base, or a stale stamp to drop
	rebased      bool                 // a commit recorded its version in the manifest (log) and cache
	changed      map[string]*diskFile // the added and modified files
}

// Changed reports whether the plan changes any file.
func (p *Plan) Changed() bool { return len(p.Added)+len(p.Modified)+len(p.Deleted) > 0 }

// WalkTest scans checkout dir against its manifest, validates its ICM tree
// and returns the change plan. It never writes to the vault; in the
// checkout it refreshes only its own stat cache.
func (e *Engine) WalkTest(ctx context.Context, dir string) (*Plan, error) {
	// An update interrupted after its journal is completed first: the
	// plan must describe the files as the manifest does.
	if err := recoverUpdate(dir); err != nil {
		return nil, err
	}
	// A commit whose push landed unanswered is recorded first, when the
	// vault can tell (a vault error here is the judge's to report).
	if err := e.settlePendingPushLocked(ctx, dir); errors.Is(err, ErrRefused) {
		return nil, err
	}
	p, err := planCheckout(ctx, dir, true)
	if err != nil {
		return nil, err
	}
	defer p.disk.close()
	if err := e.judge(ctx, p); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// The checkout is judged on its own; commit will need the vault.
		p.Findings = sortFindings(append(p.Findings, icm.Finding{Rule: RuleVault, Severity: icm.SeverityWarning,
			Message: fmt.Sprintf("could not read the workspace in the vault (%v): whether this checkout is behind, and the tree a commit would store beyond it, were not checked", err)}))
	}
	return p, nil
}

// planCheckout builds the plan and keeps the scan open for a commit. With
// refresh, a stat cache that was missing or vouched for too little is
// written (a commit writes its own, once, after the new version).
func planCheckout(ctx context.Context, dir string, refresh bool) (*Plan, error) {
	p, err := scanPlanAs(ctx, dir, refresh, true)
	if err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		p.disk.close()
		return nil, err
	}
	return p, nil
}

// scanPlan is planCheckout without the ICM validation: the changes only
// (what update and diff need), from a scan that builds no listing.
func scanPlan(ctx context.Context, dir string, refresh bool) (*Plan, error) {
	return scanPlanAs(ctx, dir, refresh, false)
}

// scanPlanAs is scanPlan; with listing the scan builds the listing that
// validate judges.
func scanPlanAs(ctx context.Context, dir string, refresh, listing bool) (*Plan, error) {
	// The manifest (or the cache that copies it) comes first: a directory
	// that is not a checkout is refused before anything is scanned.
	b, err := loadBase(dir)
	if err != nil {
		return nil, err
	}
	filter, err := newCheckoutFilter(dir)
	if err != nil {
		return nil, err
	}
	disk, err := scanCheckoutAs(dir, b, filter, listing)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", dir, err)
	}
	m := &b.Header
	p := &Plan{Dir: dir, VaultID: m.VaultID, WorkspaceID: m.WorkspaceID, WorkspaceName: m.WorkspaceName, Baseline: m.Baseline, Ignored: disk.ignored, base: b, disk: disk}
	if err := p.hashDirty(); err != nil {
		disk.close()
		return nil, err
	}
	p.classify()
	if refresh && p.cacheStale() {
		// An accelerator only: a failure costs speed, not truth.
		_ = saveStatCache(dir, p.restampBase(), p.racyFrom())
	}
	if err := ctx.Err(); err != nil {
		disk.close()
		return nil, err
	}
	return p, nil
}

// validate judges the checkout's own stored tree: ICM rules, path rules,
// unresolved merge conflicts.
func (p *Plan) validate() error {
	kept, dropped := storedListing(p.disk.listing)
	var err error
	p.Findings, err = validateCheckout(p.Dir, p.disk, kept)
	if err != nil {
		return fmt.Errorf("validate %s: %w", p.Dir, err)
	}
	if len(dropped) > 0 {
		p.Findings = sortFindings(append(slices.Clip(p.Findings), droppedFindings(dropped)...))
	}
	if scope := p.base.Header.Scope; len(scope) > 0 {
		p.Findings = scopedFindings(p.Findings, scope)
	}
	if pf := p.pathFindings(); len(pf) > 0 {
		p.Findings = sortFindings(append(p.Findings, pf...))
	}
	if cf := p.conflictFindings(); len(cf) > 0 {
		p.Findings = sortFindings(append(p.Findings, cf...))
	}
	p.diskFindings = p.Findings
	p.Valid = !icm.HasErrors(p.Findings)
	return nil
}

// cacheStale reports whether the stat cache should be written afresh: it
// was missing, vouched for too little (files were hashed, folders listed
// again), or carries many records appended by commits.
func (p *Plan) cacheStale() bool {
	b := p.base
	return b.WantsRewrite() || p.refreshed || p.disk.relisted
}

// racyFrom is the time from which a stamp this plan saw is too recent to
// vouch for: a change within the file system's timestamp tick of the
// scan's lstat could keep the stamp (see statcache.RacySmudge).
func (p *Plan) racyFrom() int64 { return p.disk.scanned - int64(statcache.RacySmudge) }

// hashDirty hashes the files whose stat stamp the cache cannot vouch for.
func (p *Plan) hashDirty() error {
	var dirty []*diskFile
	for _, f := range p.disk.files {
		if !f.clean {
			dirty = append(dirty, f)
		}
	}
	if err := p.disk.hashFiles(dirty); err != nil {
		return err
	}
	// The cache changes only for a file hashed back to its base version
	// (a stamp to vouch for) or a file edited since the cache vouched for
	// it (that stamp to drop: where a platform has no change time, a
	// same-size edit whose mtime was put back would match it). A file
	// that stays edited changes nothing, so a checkout with edits does not
	// rewrite its cache on every walk-test.
	p.refreshed = slices.ContainsFunc(dirty, p.changesCache)
	return nil
}

// changesCache reports whether hashed file f changes what the stat cache
// holds for it: it is back to its base version, or its base entry still
// carries a stamp, which no longer vouches for the file.
func (p *Plan) changesCache(f *diskFile) bool {
	if f.base < 0 {
		return false
	}
	e := &p.base.Files[f.base]
	back := e.ID == f.id() && FileMode(e.Mode) == f.mode
	return back || e.Stamp != (fastio.Stamp{Size: e.Stamp.Size})
}

// classify fills the file and folder lists.
func (p *Plan) classify() {
	b := p.base
	for _, f := range p.disk.files {
		if f.base < 0 {
			p.Added = append(p.Added, PlanFile{Path: f.path, Size: f.stamp().Size, Mode: modeText(f.mode)})
			p.change(f)
			continue
		}
		if be := &b.Files[f.base]; be.ID != f.id() || FileMode(be.Mode) != f.mode {
			p.Modified = append(p.Modified, PlanFile{Path: f.path, Size: f.stamp().Size, OldSize: be.Stamp.Size, Mode: modeText(f.mode)})
			p.change(f)
		}
	}
	if p.disk.matched != len(b.Files) {
		for i := range b.Files {
			if !p.disk.seen[i] {
				p.Deleted = append(p.Deleted, PlanFile{Path: b.Files[i].Path, OldSize: b.Files[i].Stamp.Size})
			}
		}
	}
	// Folders appear or disappear only with added or deleted files.
	if len(p.Added)+len(p.Deleted) > 0 {
		before, after := map[string]bool{}, map[string]bool{}
		for i := range b.Files {
			addParents(before, b.Files[i].Path)
			if p.disk.seen[i] {
				addParents(after, b.Files[i].Path)
			}
		}
		for _, a := range p.Added {
			addParents(after, a.Path)
		}
		for d := range after {
			if !before[d] {
				p.AddedDirs = append(p.AddedDirs, d)
			}
		}
		for d := range before {
			if !after[d] {
				p.DeletedDirs = append(p.DeletedDirs, d)
			}
		}
	}
	// The scan lists in walk order, which is not path order.
	for _, l := range [][]PlanFile{p.Added, p.Modified} {
		slices.SortFunc(l, func(a, b PlanFile) int { return strings.Compare(a.Path, b.Path) })
	}
	sort.Strings(p.AddedDirs)
	sort.Strings(p.DeletedDirs)
}

// change records f as added or modified.
func (p *Plan) change(f *diskFile) {
	if p.changed == nil {
		p.changed = map[string]*diskFile{}
	}
	p.changed[f.path] = f
}

func addParents(set map[string]bool, p string) {
	for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p, '/') {
		p = p[:i]
		if set[p] {
			return
		}
		set[p] = true
	}
}

// nextBase is the checkout's base as the scan vouches for it: every file
// whose content is its base version stamped with what the scan saw, the
// others unstamped. When committed, the plan's changes are applied and
// version becomes the baseline: deleted files are gone, added and
// modified ones are recorded at their new versions.
func (p *Plan) nextBase(committed bool, version Hash) *statcache.Cache {
	b := p.base
	nb := &statcache.Cache{Header: b.Header, Files: make([]statcache.Entry, len(b.Files), len(b.Files)+len(p.Added)), Dirs: p.disk.dirs}
	copy(nb.Files, b.Files)
	p.restamp(nb.Files, committed)
	if committed {
		var added []statcache.Entry
		for _, f := range p.disk.files {
			if f.base < 0 {
				added = append(added, entryOf(f))
			}
		}
		nb.Header.Baseline = version
		kept := nb.Files[:0]
		for i, e := range nb.Files {
			if p.disk.seen[i] {
				kept = append(kept, e)
			}
		}
		nb.Files = statcache.MergeEntries(kept, added)
	}
	return nb
}

// restampBase is nextBase(false) made in the base itself, for the stat
// cache a walk-test saves: only the entries' stamps change (a file whose
// content is its base version gets the scan's, the others lose theirs),
// and nothing reads a base entry's stamp once the plan is classified. At
// 100k files this spares a copy of the base (11 MiB) at the command's
// peak.
func (p *Plan) restampBase() *statcache.Cache {
	b := p.base
	p.restamp(b.Files, false)
	return &statcache.Cache{Header: b.Header, Files: b.Files, Dirs: p.disk.dirs}
}

// restamp gives files (the base's entries or a copy of them) the scan's
// entries of the files whose content is their base version — of every
// scanned base file when committed — and leaves the others unstamped.
func (p *Plan) restamp(files []statcache.Entry, committed bool) {
	// The scan's entries first: a clean file's stamp is its base entry's
	// (diskFile.vouched), which may be files[f.base] itself.
	stamped := make([]bool, len(files))
	for _, f := range p.disk.files {
		if f.base >= 0 && (committed || files[f.base].ID == f.id() && FileMode(files[f.base].Mode) == f.mode) {
			files[f.base] = entryOf(f)
			stamped[f.base] = true
		}
	}
	for i := range files {
		if !stamped[i] {
			files[i].Stamp = fastio.Stamp{Size: files[i].Stamp.Size}
		}
	}
}

// entryOf is the base entry of a hashed (or vouched-for) scanned file.
func entryOf(f *diskFile) statcache.Entry {
	return statcache.Entry{Path: f.path, Stamp: f.stamp(), ID: f.id(), SHA256: f.sha256(), Mode: uint32(f.mode)}
}

// scopedFindings keeps the findings about paths inside a partial
// checkout's scope: the rest of the tree is not there to be judged.
func scopedFindings(fs []icm.Finding, scope []string) []icm.Finding {
	var kept []icm.Finding
	for _, f := range fs {
		// An Inputs path may name a file outside the scope, which this
		// checkout cannot see; the full tree is judged where it is whole.
		if underAny(f.Path, scope) && f.Rule != icm.RuleInputsResolve {
			kept = append(kept, f)
		}
	}
	return kept
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
