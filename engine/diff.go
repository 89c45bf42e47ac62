package engine

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/thalix/tv/internal/fastio"

	"github.com/thalix/tv/textmerge"
)

// DiffOptions configure Diff.
type DiffOptions struct {
	// Head compares with the workspace's current head instead of the
	// checkout's baseline.
	Head bool
	// Paths limits the diff to these slash paths (relative to the
	// checkout's root) and the files below them; none means every file.
	Paths []string
}

// FileChange is one file of a diff: how it changed and its hunks.
type FileChange struct {
	Path string `json:"path"`
	// Status is "added", "modified" or "deleted" (from the compared
	// version to the checkout).
	Status     string `json:"status"`
	OldVersion Hash   `json:"old_version,omitzero"`
	NewVersion Hash   `json:"new_version,omitzero"`
	OldMode    string `json:"old_mode,omitempty"`
	NewMode    string `json:"new_mode,omitempty"`
	OldSize    int64  `json:"old_size"`
	NewSize    int64  `json:"new_size"`
	// Binary: either side is binary (or over MaxMergeBytes); no hunks.
	Binary bool             `json:"binary"`
	Hunks  []textmerge.Hunk `json:"hunks"`
	// Truncated: the diff's output limit (MaxDiffBytes) was reached
	// before this file's hunks.
	Truncated bool `json:"truncated,omitempty"`
}

// DiffResult is a checkout's diff against a version of its workspace.
type DiffResult struct {
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	// Against is the version compared with: the baseline, or the head.
	Against Hash         `json:"against"`
	Files   []FileChange `json:"files"`
	// Truncated: hunks were left out past MaxDiffBytes of diff lines.
	Truncated bool `json:"truncated"`
}

// Diff compares checkout dir with its baseline (or, with opts.Head, with
// its workspace's current head), file by file, as a unified diff. Output
// is bounded: past MaxDiffBytes of hunk lines, files are listed without
// hunks. It writes nothing (an update it finds interrupted is completed first).
func (e *Engine) Diff(ctx context.Context, dir string, opts DiffOptions) (*DiffResult, error) {
	for _, p := range opts.Paths {
		if err := CheckPath(p); err != nil {
			return nil, err
		}
	}
	if err := recoverUpdate(dir); err != nil {
		return nil, err
	}
	p, err := scanPlan(ctx, dir, false)
	if err != nil {
		return nil, err
	}
	defer p.disk.close()
	res := &DiffResult{WorkspaceID: p.WorkspaceID, WorkspaceName: p.WorkspaceName, Against: p.Baseline, Files: []FileChange{}}
	pairs, err := e.diffPairs(ctx, p, opts, res)
	if err != nil {
		return nil, err
	}
	budget := int64(MaxDiffBytes)
	for _, pr := range pairs {
		fc, err := e.diffPair(ctx, p, pr, &budget)
		if err != nil {
			return nil, err
		}
		if fc.Truncated {
			res.Truncated = true
		}
		res.Files = append(res.Files, fc)
	}
	return res, nil
}

// diffPair is one path's two sides: the compared version's (nil: absent)
// and the checkout's (nil: absent; newOnDisk: read it from disk).
type diffPair struct {
	path      string
	old, new  *FileEntry
	newOnDisk bool
}

// diffPairs lists the paths that differ, sorted, within opts.Paths.
func (e *Engine) diffPairs(ctx context.Context, p *Plan, opts DiffOptions, res *DiffResult) ([]diffPair, error) {
	wanted := func(path string) bool { return len(opts.Paths) == 0 || underAny(path, opts.Paths) }
	base := func(path string) *FileEntry {
		if i := p.base.Lookup(path); i >= 0 {
			f := &p.base.Files[i]
			return &FileEntry{Path: path, Mode: FileMode(f.Mode), ID: f.ID, Size: f.Stamp.Size}
		}
		return nil
	}
	// The checkout's side of a path: its change, else the manifest's.
	mine := func(path string) (*FileEntry, bool) {
		if f, changed := p.localVersion(path); changed {
			return f, f != nil
		}
		return base(path), false
	}
	paths := map[string]bool{}
	for _, l := range [][]PlanFile{p.Added, p.Modified, p.Deleted} {
		for _, f := range l {
			paths[f.Path] = true
		}
	}
	old := base
	if opts.Head {
		if p.VaultID != e.vault.ID() {
			return nil, fmt.Errorf("%w: %s is a checkout of vault %s, but tv is using vault %s (set TV_VAULT to the vault it came from)", ErrUsage, p.Dir, p.VaultID, e.vault.ID())
		}
		head, err := e.vault.Ref(ctx, WorkspaceRefPrefix+p.WorkspaceID)
		if err != nil {
			return nil, fmt.Errorf("head of workspace %s: %w", p.WorkspaceID, err)
		}
		res.Against = head
		if head != p.Baseline {
			hc, err := e.vault.ReadCommit(ctx, head)
			if err != nil {
				return nil, err
			}
			bc, err := e.vault.ReadCommit(ctx, p.Baseline)
			if err != nil {
				return nil, err
			}
			diffs, err := diffFiles(ctx, e.vault, bc.Tree, hc.Tree)
			if err != nil {
				return nil, err
			}
			headSide := map[string]*FileEntry{}
			for _, d := range staleAgainst(p.base, diffs) {
				paths[d.Path] = true
				headSide[d.Path] = d.New
			}
			// Paths changed here but not upstream: the head has the baseline's.
			old = func(path string) *FileEntry {
				if f, ok := headSide[path]; ok {
					return f
				}
				return base(path)
			}
		}
	}
	var out []diffPair
	for _, path := range sortedKeys(paths) {
		if !wanted(path) {
			continue
		}
		n, onDisk := mine(path)
		o := old(path)
		if sameFile(o, n) {
			continue
		}
		out = append(out, diffPair{path: path, old: o, new: n, newOnDisk: onDisk})
	}
	return out, nil
}

// diffPair compares one path's sides; budget is the hunk bytes left.
func (e *Engine) diffPair(ctx context.Context, p *Plan, pr diffPair, budget *int64) (FileChange, error) {
	fc := FileChange{Path: pr.path, Status: "modified", Hunks: []textmerge.Hunk{}}
	if pr.old == nil {
		fc.Status = "added"
	} else {
		fc.OldVersion, fc.OldMode = pr.old.ID, modeText(pr.old.Mode)
	}
	if pr.new == nil {
		fc.Status = "deleted"
	} else {
		fc.NewVersion, fc.NewMode = pr.new.ID, modeText(pr.new.Mode)
	}
	oldText, oldBin, err := e.diffSide(ctx, p, pr.old, false, &fc.OldSize)
	if err != nil {
		return fc, err
	}
	newText, newBin, err := e.diffSide(ctx, p, pr.new, pr.newOnDisk, &fc.NewSize)
	if err != nil {
		return fc, err
	}
	if oldBin || newBin {
		fc.Binary = true
		return fc, nil
	}
	if *budget <= 0 {
		fc.Truncated = true
		return fc, nil
	}
	fc.Hunks = textmerge.Hunks(oldText, newText, textmerge.DefaultContext)
	for _, h := range fc.Hunks {
		for _, l := range h.Lines {
			*budget -= int64(len(l)) + 1
		}
	}
	return fc, nil
}

// diffSide reads one side of a diff: nil f is an empty side. binary is
// set for binary content or content over MaxMergeBytes.
func (e *Engine) diffSide(ctx context.Context, p *Plan, f *FileEntry, onDisk bool, size *int64) (text []byte, binary bool, err error) {
	if f == nil {
		return nil, false, nil
	}
	var r io.ReadCloser
	if onDisk {
		var st fastio.Stamp
		r, st, err = p.disk.openRead(f.Path)
		*size = st.Size
	} else {
		r, *size, err = e.vault.OpenBlob(ctx, f.ID)
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", f.Path, err)
	}
	defer r.Close()
	if *size > MaxMergeBytes {
		return nil, true, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxMergeBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", f.Path, err)
	}
	return b, textmerge.IsBinary(b), nil
}

// WriteUnified writes d as git writes a unified diff: per file a
// "diff --git" header, mode and index lines, "---"/"+++" names, and its
// hunks ("Binary files … differ" for binary ones).
func (d *DiffResult) WriteUnified(w io.Writer) error {
	var b strings.Builder
	for _, f := range d.Files {
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", f.Path, f.Path)
		oldName, newName := "a/"+f.Path, "b/"+f.Path
		switch f.Status {
		case "added":
			fmt.Fprintf(&b, "new file mode %s\nindex %s..%s\n", f.NewMode, shortID(ZeroHash), shortID(f.NewVersion))
			oldName = "/dev/null"
		case "deleted":
			fmt.Fprintf(&b, "deleted file mode %s\nindex %s..%s\n", f.OldMode, shortID(f.OldVersion), shortID(ZeroHash))
			newName = "/dev/null"
		default:
			if f.OldMode != f.NewMode {
				fmt.Fprintf(&b, "old mode %s\nnew mode %s\nindex %s..%s\n", f.OldMode, f.NewMode, shortID(f.OldVersion), shortID(f.NewVersion))
			} else {
				fmt.Fprintf(&b, "index %s..%s %s\n", shortID(f.OldVersion), shortID(f.NewVersion), f.NewMode)
			}
		}
		switch {
		case f.Binary:
			fmt.Fprintf(&b, "Binary files %s and %s differ\n", oldName, newName)
		case f.Truncated:
			fmt.Fprintf(&b, "(hunks left out: the diff reached its %d-byte limit, MaxDiffBytes)\n", MaxDiffBytes)
		case len(f.Hunks) > 0:
			fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
			for _, h := range f.Hunks {
				b.WriteString(h.Header())
				b.WriteByte('\n')
				for _, l := range h.Lines {
					b.WriteString(l)
					b.WriteByte('\n')
				}
			}
		}
		if b.Len() > 64<<10 {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shortID is the 7-digit abbreviation git prints in an index line.
func shortID(h Hash) string { return h.String()[:7] }
