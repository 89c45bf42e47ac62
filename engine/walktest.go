package engine

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

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

	manifest  *Manifest
	refreshed bool
	byPath    map[string]*ManifestFile
	disk      *snapshot
}

// Changed reports whether the plan changes any file.
func (p *Plan) Changed() bool { return len(p.Added)+len(p.Modified)+len(p.Deleted) > 0 }

// WalkTest scans checkout dir against its manifest, validates its ICM tree
// and returns the change plan. It never writes to the vault; in the
// checkout it refreshes only its own stat cache.
func (e *Engine) WalkTest(ctx context.Context, dir string) (*Plan, error) {
	p, err := planCheckout(ctx, dir)
	if err != nil {
		return nil, err
	}
	p.disk.close()
	return p, nil
}

// planCheckout builds the plan and keeps the scan open for a commit.
func planCheckout(ctx context.Context, dir string) (*Plan, error) {
	// The manifest (or the cache that copies it) comes first: a directory
	// that is not a checkout is refused before anything is scanned.
	var m *Manifest
	cache := loadStatCache(dir)
	if cache != nil {
		m = cache.toManifest(sortedKeys(cache.entries))
		if err := m.checkIdentity(); err != nil {
			cache, m = nil, nil
		}
	}
	if m == nil {
		var err error
		if m, err = ReadManifest(dir); err != nil {
			return nil, err
		}
	}
	disk, err := scanCheckout(dir)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", dir, err)
	}
	p := &Plan{Dir: dir, VaultID: m.VaultID, WorkspaceID: m.WorkspaceID, WorkspaceName: m.WorkspaceName, Baseline: m.Baseline, manifest: m, disk: disk}
	p.byPath = make(map[string]*ManifestFile, len(m.Files))
	for i := range m.Files {
		p.byPath[m.Files[i].Path] = &m.Files[i]
	}
	if err := p.hashDirty(cache); err != nil {
		disk.close()
		return nil, err
	}
	p.classify()
	p.Findings, err = icm.Validate(disk.FS())
	if err != nil {
		disk.close()
		return nil, fmt.Errorf("validate %s: %w", dir, err)
	}
	if len(m.Scope) > 0 {
		p.Findings = scopedFindings(p.Findings, m.Scope)
	}
	if pf := p.pathFindings(); len(pf) > 0 {
		p.Findings = sortFindings(append(p.Findings, pf...))
	}
	p.Valid = !icm.HasErrors(p.Findings)
	if cache == nil || p.refreshed {
		_ = p.saveCache() // an accelerator only; a failure costs speed, not truth
	}
	return p, ctx.Err()
}

// hashDirty hashes the files whose stat stamp the cache cannot vouch for.
func (p *Plan) hashDirty(cache *statCache) error {
	var dirty []*diskFile
	for path, f := range p.disk.files {
		if cache != nil {
			if ce, ok := cache.entries[path]; ok && cache.clean(ce, f.stamp) && ce.mode == f.mode {
				f.id, f.sha256 = ce.id, ce.sha256
				continue
			}
		}
		dirty = append(dirty, f)
	}
	p.refreshed = len(dirty) > 0
	return p.disk.hashFiles(dirty)
}

// classify fills the file and folder lists.
func (p *Plan) classify() {
	for path, f := range p.disk.files {
		mf, ok := p.byPath[path]
		switch {
		case !ok:
			p.Added = append(p.Added, PlanFile{Path: path, Size: f.stamp.Size, Mode: modeText(f.mode)})
		case mf.Version != f.id || mf.Mode != modeText(f.mode):
			p.Modified = append(p.Modified, PlanFile{Path: path, Size: f.stamp.Size, OldSize: mf.Size, Mode: modeText(f.mode)})
		}
	}
	// Every file on disk but the added ones is in the manifest: when as
	// many are as the manifest has paths, none was deleted.
	if len(p.disk.files)-len(p.Added) != len(p.byPath) || len(p.byPath) != len(p.manifest.Files) {
		for _, mf := range p.manifest.Files {
			if _, ok := p.disk.files[mf.Path]; !ok {
				p.Deleted = append(p.Deleted, PlanFile{Path: mf.Path, OldSize: mf.Size})
			}
		}
	}
	// Folders appear or disappear only with added or deleted files.
	if len(p.Added)+len(p.Deleted) > 0 {
		before, after := map[string]bool{}, map[string]bool{}
		for _, mf := range p.manifest.Files {
			addParents(before, mf.Path)
			if _, ok := p.disk.files[mf.Path]; ok {
				addParents(after, mf.Path)
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
	for _, l := range [][]PlanFile{p.Added, p.Modified, p.Deleted} {
		slices.SortFunc(l, func(a, b PlanFile) int { return strings.Compare(a.Path, b.Path) })
	}
	sort.Strings(p.AddedDirs)
	sort.Strings(p.DeletedDirs)
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

// saveCache records the manifest and, for every file whose content equals
// its manifest version, the stamp it was seen with.
func (p *Plan) saveCache() error {
	return writeStatCache(p.Dir, p.manifest, p.cacheEntries())
}

func (p *Plan) cacheEntries() map[string]*cacheEntry {
	entries := make(map[string]*cacheEntry, len(p.manifest.Files))
	all := make([]cacheEntry, len(p.manifest.Files)) // one allocation
	for i := range p.manifest.Files {
		mf := &p.manifest.Files[i]
		mode, _ := parseMode(mf.Mode)
		ce := &all[i]
		*ce = cacheEntry{id: mf.Version, mode: mode, stamp: fileStamp{Size: mf.Size}}
		if len(mf.SHA256) == 2*len(ce.sha256) {
			var text [64]byte // on the stack: no allocation per file
			copy(text[:], mf.SHA256)
			hex.Decode(ce.sha256[:], text[:])
		} else {
			hex.Decode(ce.sha256[:], []byte(mf.SHA256))
		}
		if f, ok := p.disk.files[mf.Path]; ok && f.id == mf.Version && f.mode == mode {
			ce.stamp = f.stamp
		}
		entries[mf.Path] = ce
	}
	return entries
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
