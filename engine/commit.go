package engine

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/statcache"

	"github.com/thalix/tv/icm"
)

// CommitResult describes the outcome of a commit.
type CommitResult struct {
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	// Version is the new head; zero when there was nothing to commit.
	Version  Hash `json:"version"`
	Parent   Hash `json:"parent"`
	Added    int  `json:"added"`
	Modified int  `json:"modified"`
	Deleted  int  `json:"deleted"`
	// NothingToCommit: the checkout matched its manifest (or its changes
	// were already upstream); no version was made.
	NothingToCommit bool `json:"nothing_to_commit"`
	// OnTopOf is set when the head had moved since the checkout and the
	// commit was applied on top of it (no file of the commit had changed
	// upstream).
	OnTopOf Hash `json:"on_top_of,omitempty"`
	// Behind: the checkout does not hold every file of the new version
	// (others changed them upstream); it keeps its baseline, and
	// `tv workspace update` brings those files in.
	Behind bool `json:"behind"`
}

// ConflictError lists the paths that changed upstream since the checkout's
// baseline. It matches ErrConflict.
type ConflictError struct {
	Paths []string
}

func (e *ConflictError) Error() string {
	shown := e.Paths
	more := ""
	if len(shown) > MaxPlanEntries {
		shown, more = shown[:MaxPlanEntries], fmt.Sprintf(" … and %d more", len(e.Paths)-MaxPlanEntries)
	}
	return fmt.Sprintf("%d file(s) changed upstream since this checkout: %s%s; nothing was committed. Run `tv workspace update` (with --merge to merge text files) to bring this checkout up to date, then commit again",
		len(e.Paths), strings.Join(shown, ", "), more)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// Commit records the changes of checkout dir as a new version of its
// workspace, in one compare-and-swap of the workspace ref. The reason is
// required. An invalid tree yields *InvalidTreeError and a changed
// baseline *ConflictError; either way the vault is unchanged. On success
// the manifest is rewritten, atomically, to the new baseline.
func (e *Engine) Commit(ctx context.Context, dir, reason string) (*CommitResult, error) {
	return e.CommitWorkspace(ctx, "", dir, reason)
}

// CommitWorkspace is Commit for a caller bound to one workspace: when
// workspaceID is not "", a checkout of any other workspace is refused
// before anything is written.
func (e *Engine) CommitWorkspace(ctx context.Context, workspaceID, dir, reason string) (*CommitResult, error) {
	return e.commitCheckout(ctx, workspaceID, "", dir, reason)
}

// commitCheckout is CommitWorkspace, confined to folder when it is not ""
// (see CommitWithin).
func (e *Engine) commitCheckout(ctx context.Context, workspaceID, folder, dir, reason string) (*CommitResult, error) {
	if err := ValidateReason(reason); err != nil {
		return nil, err
	}
	sig, err := e.signature()
	if err != nil {
		return nil, err
	}
	// One commit of a checkout at a time, from its plan to its manifest:
	// a second one must plan on what the first left.
	if unlock, err := fastio.LockDir(dir); err == nil {
		defer unlock()
		if err := rollForward(dir); err != nil {
			return nil, err
		}
		if err := e.settlePendingPush(ctx, dir); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	p, err := planCheckout(ctx, dir, false)
	if err != nil {
		return nil, err
	}
	if outside := p.changedOutside(folder); len(outside) > 0 {
		p.disk.close()
		return nil, &OutsideFolderError{Folder: folder, Paths: outside}
	}
	if err := e.judge(ctx, p); err != nil {
		p.disk.close()
		return nil, err
	}
	return e.commitPlan(ctx, p, workspaceID, sig, reason)
}

// commitPlan commits the changes of plan p (see CommitWorkspace) and
// closes its scan.
func (e *Engine) commitPlan(ctx context.Context, p *Plan, workspaceID string, sig Signature, reason string) (*CommitResult, error) {
	dir := p.Dir
	defer p.disk.close()
	// A commit that makes no version still leaves the stat cache as fresh
	// as a walk-test would; one that does rewrites it in rebase.
	defer func() {
		if !p.rebased && p.cacheStale() {
			_ = saveStatCache(dir, p.nextBase(false, ZeroHash), p.racyFrom())
		}
	}()
	if p.VaultID != e.vault.ID() {
		return nil, fmt.Errorf("%w: %s is a checkout of vault %s, but tv is using vault %s (set TV_VAULT to the vault it came from)", ErrUsage, dir, p.VaultID, e.vault.ID())
	}
	if workspaceID != "" && p.WorkspaceID != workspaceID {
		return nil, fmt.Errorf("%w: %s is a checkout of workspace %s, not %s", ErrUsage, dir, p.WorkspaceID, workspaceID)
	}
	if _, err := e.requireWrite(ctx, p); err != nil {
		return nil, err
	}
	if p.Behind != nil && len(p.Behind.Conflicts) > 0 {
		return nil, &ConflictError{Paths: p.Behind.Conflicts}
	}
	if !p.Valid {
		inv := &InvalidTreeError{Findings: p.Findings}
		if p.Behind != nil && p.Changed() {
			inv.OnTopOf = p.Behind.Head
		}
		return nil, inv
	}
	res := &CommitResult{WorkspaceID: p.WorkspaceID, WorkspaceName: p.WorkspaceName}
	if !p.Changed() {
		res.NothingToCommit = true
		return res, nil
	}
	ref := WorkspaceRefPrefix + p.WorkspaceID
	for attempt := 0; ; attempt++ {
		head, err := e.vault.Ref(ctx, ref)
		if err != nil {
			return nil, fmt.Errorf("workspace %s: %w", p.WorkspaceID, err)
		}
		version, changes, err := e.commitOnce(ctx, p, sig, reason, head)
		if errors.Is(err, ErrRefStale) && attempt < MaxCommitRetries {
			continue // the head or the grants moved under us: check again
		}
		if err != nil {
			return nil, err
		}
		res.Parent = head
		if head != p.Baseline {
			res.OnTopOf = head
		}
		if version.IsZero() {
			res.NothingToCommit = true
			version = head
		} else {
			res.Version = version
			res.Added, res.Modified, res.Deleted = countChanges(p, changes)
		}
		recorded := p.recordedAs(head, version)
		res.Behind = recorded != version
		if err := p.rebase(recorded); err != nil {
			return nil, fmt.Errorf("version %s was committed, but the manifest of %s could not be updated (check out again): %w", version.Short(), dir, err)
		}
		if err := clearPendingPush(dir); err != nil {
			return nil, err
		}
		return res, nil
	}
}

// commitOnce tries one compare-and-swap from head. It returns the new
// version (zero when every change is already upstream) and the changes.
//
// Every changed path is checked against head, even when head is the
// baseline: after a commit applied on top of a moved head, the manifest's
// per-file versions (not the baseline) say what this checkout last saw.
// The live grants are re-checked and bound to the same ref transaction, so
// a permission change during the commit leaves the vault unchanged.
func (e *Engine) commitOnce(ctx context.Context, p *Plan, sig Signature, reason string, head Hash) (Hash, []change, error) {
	accessVersion, err := e.requireWrite(ctx, p)
	if err != nil {
		return ZeroHash, nil, err
	}
	hc, err := e.vault.ReadCommit(ctx, head)
	if err != nil {
		return ZeroHash, nil, err
	}
	changes, err := e.checkUpstream(ctx, p, hc.Tree, p.changes())
	if err != nil || len(changes) == 0 {
		return ZeroHash, nil, err
	}
	w, err := e.vault.NewObjectWriter(ctx)
	if err != nil {
		return ZeroHash, nil, err
	}
	defer w.Abort()
	if err := e.writeChangedBlobs(p, w, changes); err != nil {
		return ZeroHash, nil, err
	}
	tree, err := applyChanges(ctx, e.vault, w, hc.Tree, changes)
	if err != nil {
		return ZeroHash, nil, err
	}
	if tree == hc.Tree {
		return ZeroHash, nil, nil
	}
	if head != p.Baseline {
		// The checkout judged its tree on the baseline; what lands is the
		// moved head plus these changes (applyChanges refused any
		// file/folder clash), which nobody has judged yet.
		findings, err := validateCombined(ctx, e.vault, hc.Tree, changes, p.disk.FS())
		if err != nil {
			return ZeroHash, nil, e.hideFromActor(ctx, p.WorkspaceID, err)
		}
		if icm.HasErrors(findings) {
			return ZeroHash, nil, &InvalidTreeError{Findings: findings, OnTopOf: head}
		}
	}
	// Identity comes from the vault, never from the (editable) manifest.
	t := parseTrailers(hc.Message)
	if t[trailerID] != p.WorkspaceID || ValidateName(t[trailerName]) != nil {
		return ZeroHash, nil, fmt.Errorf("head %s of workspace %s does not carry its identity trailers", head.Short(), p.WorkspaceID)
	}
	msg := commitMessage(reason, trailerKind, string(KindWorkspace), trailerID, p.WorkspaceID, trailerName, t[trailerName])
	id, err := w.WriteCommit(&Commit{Tree: tree, Parents: []Hash{head}, Author: sig, Committer: sig, Message: msg})
	if err != nil {
		return ZeroHash, nil, err
	}
	if err := w.Finish(); err != nil {
		return ZeroHash, nil, err
	}
	// Recorded before the ref moves: a push whose answer is lost is then
	// recognised by the next command (settlePendingPush).
	entry, err := p.logEntry(p.recordedAs(head, id))
	if err != nil {
		return ZeroHash, nil, err
	}
	if err := e.writePendingPush(p, WorkspaceRefPrefix+p.WorkspaceID, head, id, entry); err != nil {
		return ZeroHash, nil, err
	}
	if err := e.vault.UpdateRefs(ctx,
		RefUpdate{Name: WorkspaceRefPrefix + p.WorkspaceID, Old: head, New: id},
		RefUpdate{Name: AccessRef, Old: accessVersion, Verify: true}); err != nil {
		return ZeroHash, nil, err
	}
	return id, changes, nil
}

// changes turns the plan into tree edits.
func (p *Plan) changes() []change {
	var cs []change
	for _, l := range [][]PlanFile{p.Added, p.Modified} {
		for _, pf := range l {
			f := p.changed[pf.Path]
			cs = append(cs, change{Path: pf.Path, Mode: f.mode, ID: f.id()})
		}
	}
	for _, pf := range p.Deleted {
		cs = append(cs, change{Path: pf.Path, Delete: true})
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
	return cs
}

// checkUpstream compares each changed path's version at head with the
// checkout's baseline version. A path whose upstream version is neither
// the baseline's nor ours is a conflict; one that is already ours is
// dropped from the changes.
func (e *Engine) checkUpstream(ctx context.Context, p *Plan, headTree Hash, changes []change) ([]change, error) {
	var conflicts []string
	kept := changes[:0:0]
	for _, c := range changes {
		up, ok, err := lookupPath(ctx, e.vault, headTree, c.Path)
		if err != nil {
			return nil, err
		}
		if ok && up.Mode == ModeDir {
			ok = false
		}
		var base *statcache.Entry
		if i := p.base.Lookup(c.Path); i >= 0 {
			base = &p.base.Files[i]
		}
		switch {
		case !ok && base == nil, ok && base != nil && up.ID == base.ID && up.Mode == FileMode(base.Mode):
			kept = append(kept, c) // unchanged upstream
		case !ok && c.Delete, ok && !c.Delete && up.ID == c.ID && up.Mode == c.Mode:
			// already upstream exactly as we would make it
		default:
			conflicts = append(conflicts, c.Path)
		}
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Paths: conflicts}
	}
	return kept, nil
}

// writeChangedBlobs streams the changed files into w and checks that each
// still hashes to what the scan saw.
func (e *Engine) writeChangedBlobs(p *Plan, w ObjectWriter, changes []change) error {
	for i, c := range changes {
		if c.Delete {
			continue
		}
		f := p.changed[c.Path]
		fh, err := p.disk.dir.openRegular(c.Path)
		if err != nil {
			return fmt.Errorf("read %s: %w", c.Path, err)
		}
		id, err := w.WriteBlob(fh, f.stamp().Size)
		fh.Close()
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrUsage) {
			return fmt.Errorf("%w: %s changed size while committing (%v); run the commit again", ErrConflict, c.Path, err)
		}
		if err != nil {
			return fmt.Errorf("write %s into the vault: %w", c.Path, err)
		}
		if id != c.ID {
			return fmt.Errorf("%w: %s changed while committing; run the commit again", ErrConflict, c.Path)
		}
		e.progress("commit", int64(i+1), int64(len(changes)))
	}
	return nil
}

func countChanges(p *Plan, changes []change) (added, modified, deleted int) {
	for _, c := range changes {
		switch had := p.base.Lookup(c.Path) >= 0; {
		case c.Delete:
			deleted++
		case had:
			modified++
		default:
			added++
		}
	}
	return
}

// rebase records version as the checkout's baseline, with every file the
// plan changed at its new version; the caller holds the checkout's lock.
// It appends the commit to the manifest log and a record to the stat
// cache, so its cost follows the changed files; when the log would
// outgrow a quarter of the manifest (MinManifestLogBytes at least), it
// writes the manifest and cache whole instead and removes the log.
func (p *Plan) rebase(version Hash) error {
	line, err := p.logEntry(version)
	if err != nil {
		return err
	}
	if p.logFull(len(line)) {
		nb := p.nextBase(true, version)
		nb.Header.ManifestBaseline, nb.Header.Log = version, fastio.FileID{}
		if err := writeManifest(p.Dir, nb); err != nil {
			return err
		}
		// A log left behind names the previous manifest: it is ignored,
		// and replaced by the next commit.
		_ = os.Remove(filepath.Join(p.Dir, ManifestLogName))
		p.base, p.rebased = nb, true
		_ = saveStatCache(p.Dir, nb, p.racyFrom()) // an accelerator only
		return nil
	}
	log, err := appendManifestLog(p.Dir, p.base.Header.ManifestBaseline, line)
	if err != nil {
		return err
	}
	p.rebased = true
	r := &statcache.Record{Baseline: version, Log: log, Deleted: p.deletedPaths(), Dirs: p.disk.fresh}
	for _, f := range p.disk.files {
		if !f.clean { // hashed now: changed, or unchanged but stamped anew
			r.Set = append(r.Set, entryOf(f))
		}
	}
	if p.base.Append(filepath.Join(p.Dir, StatCacheName), r, p.racyFrom()) != nil {
		nb := p.nextBase(true, version)
		nb.Header.Log = log
		_ = saveStatCache(p.Dir, nb, p.racyFrom()) // an accelerator only
	}
	return nil
}

// logEntry is the manifest log line that records version as the
// checkout's baseline with every file the plan changed at its new version.
func (p *Plan) logEntry(version Hash) ([]byte, error) {
	entry := manifestLogEntry{Baseline: version, Deleted: p.deletedPaths()}
	for _, l := range [][]PlanFile{p.Added, p.Modified} {
		for _, pf := range l {
			f := p.changed[pf.Path]
			sum := f.sha256()
			entry.Files = append(entry.Files, ManifestFile{Path: f.path, Version: f.id(), SHA256: hex.EncodeToString(sum[:]), Size: f.stamp().Size, Mode: modeText(f.mode)})
		}
	}
	return json.Marshal(entry)
}

func (p *Plan) deletedPaths() []string {
	var out []string
	for _, pf := range p.Deleted {
		out = append(out, pf.Path)
	}
	return out
}

// recordedAs returns the baseline the checkout records after committing
// version on top of head. After a commit on top of a moved head, the
// checkout holds its own files at the new version but, in general, not
// the other files of it: it keeps its baseline (walk-test then reports it
// behind) and records its own files at their new versions. Only when it
// already held every file of that head does the new version become its
// baseline.
func (p *Plan) recordedAs(head, version Hash) Hash {
	if head != p.Baseline && (p.Behind == nil || p.Behind.Head != head || len(p.Behind.Files) > 0) {
		return p.Baseline
	}
	return version
}

// logFull reports whether appending a line of n bytes would grow the
// manifest log past a quarter of the manifest (and MinManifestLogBytes).
func (p *Plan) logFull(n int) bool {
	mfi, err := os.Lstat(filepath.Join(p.Dir, ManifestName))
	if err != nil {
		return true
	}
	grown := currentLogStamp(p.Dir).Size + int64(n) + 128 // 128: a header line
	return grown > max(MinManifestLogBytes, mfi.Size()/4)
}

// requireWrite checks, against the live grants, that the actor may write
// every path the plan changes, and returns the grants' version.
func (e *Engine) requireWrite(ctx context.Context, p *Plan) (Hash, error) {
	a, err := e.loadAccess(ctx)
	if err != nil {
		return ZeroHash, err
	}
	var denied *DeniedError
	for _, c := range p.changes() {
		err := e.require(a, RankWrite, p.WorkspaceID, c.Path)
		var d *DeniedError
		if !errors.As(err, &d) {
			if err != nil {
				return ZeroHash, err
			}
			continue
		}
		if denied == nil {
			denied = &DeniedError{User: d.User, Need: RankWrite, Have: d.Have, Target: p.WorkspaceID}
		}
		denied.Have = min(denied.Have, d.Have)
		denied.Paths = append(denied.Paths, c.Path)
	}
	if denied != nil {
		return ZeroHash, denied
	}
	return a.version, nil
}
