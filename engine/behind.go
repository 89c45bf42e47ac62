package engine

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"

	"github.com/thalix/tv/internal/statcache"

	"github.com/thalix/tv/icm"
)

// RuleConflict is the id of the finding for a file changed both in the
// checkout and upstream (a commit would refuse it), or one left with
// merge conflict markers by `tv workspace update --merge`.
const RuleConflict = "conflict"

// RuleVault is the id of the warning that walk-test could not read the
// workspace in the vault, so it judged the checkout on its own.
const RuleVault = "vault"

// Behind says how far a checkout is behind its workspace's head.
type Behind struct {
	// Head is the workspace's current head.
	Head Hash `json:"head"`
	// Versions counts the versions between the baseline and the head
	// (the head included); More says the count stopped at MaxBehindVersions.
	Versions int  `json:"versions"`
	More     bool `json:"more,omitempty"`
	// Files lists the paths (in this checkout's scope) whose head version
	// this checkout does not hold, sorted; Conflicts those of them that
	// the checkout changed too.
	Files     []string `json:"files"`
	Conflicts []string `json:"conflicts,omitempty"`
	// Deleted: the workspace no longer exists in the vault.
	Deleted bool `json:"workspace_deleted,omitempty"`
}

// judge completes plan p with what only the vault knows: whether the
// workspace moved past the baseline (p.Behind, conflict findings), and
// the validation of the exact tree a commit would store when that is not
// the checkout's own (a partial checkout, or changes that would land on
// a moved head). A checkout of another vault keeps the disk's judgement
// (commit refuses it anyway).
func (e *Engine) judge(ctx context.Context, p *Plan) error {
	if p.VaultID != e.vault.ID() {
		return nil
	}
	head, err := e.vault.Ref(ctx, WorkspaceRefPrefix+p.WorkspaceID)
	if errors.Is(err, ErrNotFound) {
		p.Behind = &Behind{Deleted: true, Files: []string{}}
		return nil
	}
	if err != nil {
		return fmt.Errorf("workspace %s: %w", p.WorkspaceID, err)
	}
	tree := ZeroHash
	var conflicts []icm.Finding
	if head != p.Baseline {
		b, headTree, err := e.behind(ctx, p.base, head, p.localVersion)
		if err != nil {
			return err
		}
		p.Behind = b
		for _, c := range b.Conflicts {
			conflicts = append(conflicts, icm.Finding{Rule: RuleConflict, Severity: icm.SeverityError, Path: c,
				Message: "changed here and upstream since this checkout; run `tv workspace update` (with --merge to merge the text) before committing"})
		}
		if p.Changed() {
			tree = headTree
		}
	}
	if tree.IsZero() && len(p.base.Header.Scope) > 0 {
		c, err := e.vault.ReadCommit(ctx, p.Baseline)
		if err != nil {
			return fmt.Errorf("baseline of %s: %w", p.Dir, err)
		}
		tree = c.Tree
	}
	if !tree.IsZero() {
		err := e.judgeStored(ctx, p, tree)
		var ce *ConflictError
		if errors.As(err, &ce) && p.Behind != nil {
			// A file where the head made a folder, or the reverse.
			for _, c := range ce.Paths {
				p.Behind.Conflicts = append(p.Behind.Conflicts, c)
				conflicts = append(conflicts, icm.Finding{Rule: RuleConflict, Severity: icm.SeverityError, Path: c,
					Message: "a file here where the head has a folder, or a folder where it has a file; run `tv workspace update` before committing"})
			}
			sort.Strings(p.Behind.Conflicts)
		} else if err != nil {
			return err
		}
	}
	if len(conflicts) > 0 {
		p.Findings = sortFindings(append(p.Findings, conflicts...))
		p.Valid = false
	}
	return nil
}

// localVersion says what the checkout holds at path p when it changed
// it: changed is false for a path the plan does not touch; otherwise
// entry is the file (nil when deleted).
func (p *Plan) localVersion(path string) (entry *FileEntry, changed bool) {
	if f := p.changed[path]; f != nil {
		return &FileEntry{Path: path, Mode: f.mode, ID: f.id(), Size: f.stamp().Size}, true
	}
	i := p.base.Lookup(path)
	if i >= 0 && !p.disk.seen[i] {
		return nil, true
	}
	return nil, false
}

// behind compares checkout base b with head: the versions between them
// and the files (in b's scope) whose head version b does not record.
// local says what the checkout holds at a path it changed: a path
// changed on both sides to different content is a conflict, one changed
// to the head's content is no longer behind. It returns head's tree too.
func (e *Engine) behind(ctx context.Context, b *statcache.Cache, head Hash, local func(string) (*FileEntry, bool)) (*Behind, Hash, error) {
	out := &Behind{Head: head, Files: []string{}}
	hc, err := e.vault.ReadCommit(ctx, head)
	if err != nil {
		return nil, ZeroHash, err
	}
	out.Versions, out.More, err = e.countVersions(ctx, hc, b.Header.Baseline)
	if err != nil {
		return nil, ZeroHash, err
	}
	bc, err := e.vault.ReadCommit(ctx, b.Header.Baseline)
	if err != nil {
		return nil, ZeroHash, fmt.Errorf("baseline %s: %w", Hash(b.Header.Baseline).Short(), err)
	}
	diffs, err := diffFiles(ctx, e.vault, bc.Tree, hc.Tree)
	if err != nil {
		return nil, ZeroHash, err
	}
	for _, d := range staleAgainst(b, diffs) {
		mine, changed := local(d.Path)
		if changed && sameFile(mine, d.New) {
			continue // the checkout already holds the head's version
		}
		out.Files = append(out.Files, d.Path)
		if changed {
			out.Conflicts = append(out.Conflicts, d.Path)
		}
	}
	return out, hc.Tree, nil
}

// staleAgainst keeps, of the differences between the baseline's tree and
// a newer one, those inside b's scope whose new side b does not record
// (a commit applied on top of a moved head records its own files at
// their new versions while keeping the older baseline).
func staleAgainst(b *statcache.Cache, diffs []fileDiff) []fileDiff {
	var out []fileDiff
	for _, d := range diffs {
		if len(b.Header.Scope) > 0 && !underAny(d.Path, b.Header.Scope) {
			continue
		}
		i := b.Lookup(d.Path)
		switch {
		case d.New == nil && i < 0:
			continue // deleted upstream, and gone here too
		case d.New != nil && i >= 0 && b.Files[i].ID == d.New.ID && FileMode(b.Files[i].Mode) == d.New.Mode:
			continue // this checkout already records the new version
		}
		out = append(out, d)
	}
	return out
}

// sameFile reports whether a and b (nil: absent) are the same version.
func sameFile(a, b *FileEntry) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.Mode == b.Mode
}

// countVersions follows first parents from head until baseline, at most
// MaxBehindVersions steps.
func (e *Engine) countVersions(ctx context.Context, head *Commit, baseline Hash) (int, bool, error) {
	c := head
	for n := 1; ; n++ {
		if len(c.Parents) == 0 || c.Parents[0] == baseline {
			return n, false, nil
		}
		if n == MaxBehindVersions {
			return n, true, nil
		}
		next, err := e.vault.ReadCommit(ctx, c.Parents[0])
		if err != nil {
			return 0, false, err
		}
		c = next
	}
}

// fileDiff is one file that differs between two trees: Old or New is nil
// where the file is absent.
type fileDiff struct {
	Path     string
	Old, New *FileEntry
}

// diffFiles lists the files that differ between trees a and b (ZeroHash:
// empty), sorted by path, reading only the subtrees whose ids differ.
func diffFiles(ctx context.Context, o Objects, a, b Hash) ([]fileDiff, error) {
	var out []fileDiff
	read := func(id Hash) (map[string]TreeEntry, error) { return readTreeMap(ctx, o, id) }
	var walk func(dir string, a, b Hash) error
	walk = func(dir string, a, b Hash) error {
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
		names := map[string]bool{}
		for n := range ma {
			names[n] = true
		}
		for n := range mb {
			names[n] = true
		}
		for n := range names {
			ea, inA := ma[n]
			eb, inB := mb[n]
			p := path.Join(dir, n)
			var subA, subB Hash
			var fa, fb *FileEntry
			if inA {
				if ea.Mode == ModeDir {
					subA = ea.ID
				} else {
					fa = &FileEntry{Path: p, Mode: ea.Mode, ID: ea.ID}
				}
			}
			if inB {
				if eb.Mode == ModeDir {
					subB = eb.ID
				} else {
					fb = &FileEntry{Path: p, Mode: eb.Mode, ID: eb.ID}
				}
			}
			if !subA.IsZero() || !subB.IsZero() {
				if err := walk(p, subA, subB); err != nil {
					return err
				}
			}
			if (fa != nil || fb != nil) && (fa == nil || fb == nil || fa.ID != fb.ID || fa.Mode != fb.Mode) {
				out = append(out, fileDiff{Path: p, Old: fa, New: fb})
			}
		}
		return nil
	}
	if err := walk("", a, b); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
