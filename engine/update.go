package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/statcache"

	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/textmerge"
)

// UpdateOptions configure Update.
type UpdateOptions struct {
	// Merge attempts a three-way text merge of every file changed both in
	// the checkout and upstream; regions both changed differently are
	// written between conflict markers.
	Merge bool
}

// UpdateResult describes what an update did.
type UpdateResult struct {
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	// From is the baseline before, To the baseline after (the head).
	From Hash `json:"from"`
	To   Hash `json:"to"`
	// UpToDate: the checkout was at the head already; nothing changed.
	UpToDate bool `json:"up_to_date"`
	// Updated lists the files written or removed from upstream; Merged
	// those merged cleanly with local changes; Conflicts those written
	// with conflict markers (walk-test reports them until resolved).
	Updated   []string `json:"updated"`
	Merged    []string `json:"merged"`
	Conflicts []string `json:"conflicts"`
	// Kept counts the local changes the update left as they were.
	Kept int `json:"kept"`
}

// UpdateConflictError lists the files an update cannot bring in without
// losing a local change; nothing was changed. It matches ErrConflict.
type UpdateConflictError struct {
	// Paths changed both here and upstream (mergeable with --merge).
	Paths []string
	// Unmergeable maps paths that --merge cannot merge to the reason.
	Unmergeable map[string]string
}

func (e *UpdateConflictError) Error() string {
	var b strings.Builder
	list := func(paths []string) string {
		shown, more := paths, ""
		if len(shown) > MaxPlanEntries {
			shown, more = shown[:MaxPlanEntries], fmt.Sprintf(" … and %d more", len(paths)-MaxPlanEntries)
		}
		return strings.Join(shown, ", ") + more
	}
	if len(e.Paths) > 0 {
		fmt.Fprintf(&b, "%d file(s) changed both here and upstream: %s; ", len(e.Paths), list(e.Paths))
	}
	if len(e.Unmergeable) > 0 {
		var ps []string
		for _, p := range sortedKeys(e.Unmergeable) {
			ps = append(ps, p+" ("+e.Unmergeable[p]+")")
		}
		fmt.Fprintf(&b, "%d file(s) cannot be merged as text: %s; ", len(ps), list(ps))
	}
	b.WriteString("nothing was changed. ")
	if len(e.Unmergeable) > 0 {
		b.WriteString("Copy your version of those files aside and undo your change to them (or commit it elsewhere), then update again")
	} else {
		b.WriteString("Run `tv workspace update --merge` to merge them (conflict markers where both changed the same lines), or undo your changes to them first")
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *UpdateConflictError) Unwrap() error { return ErrConflict }

// Update brings checkout dir to its workspace's head: files changed
// upstream and not here are written (or removed), files changed here and
// not upstream are kept, and a file changed on both sides is a conflict:
// without opts.Merge nothing at all is changed and an
// *UpdateConflictError lists them; with it each is merged as text.
//
// It is atomic with respect to the checkout: the new files are staged in
// UpdateDirName beside the manifest, then a journal naming them is
// written, and only then are they moved into place and the manifest log
// moved to the head. A failure or kill before the journal leaves the old
// state; after it, the next walk-test, commit or update completes the
// journal (rollForward), so the manifest always describes the files.
func (e *Engine) Update(ctx context.Context, dir string, opts UpdateOptions) (*UpdateResult, error) {
	unlock, err := fastio.LockDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: checkout %s does not exist", ErrNotFound, dir)
	}
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := rollForward(dir); err != nil {
		return nil, err
	}
	if err := e.settlePendingPush(ctx, dir); err != nil {
		return nil, err
	}
	p, err := scanPlan(ctx, dir, false)
	if err != nil {
		return nil, err
	}
	defer p.disk.close()
	return e.update(ctx, p, opts)
}

// updateFile is one file an update changes: the head's entry (nil when
// upstream deleted it) and what the checkout gets.
type updateFile struct {
	path    string
	head    *FileEntry
	sha256  [32]byte // of the head's version
	size    int64    // of the head's version (set when staged)
	content []byte   // merged text to write; nil: the head's blob
	write   bool     // the checkout's file is written (or removed when head is nil)
	merged  bool
	markers bool
}

func (e *Engine) update(ctx context.Context, p *Plan, opts UpdateOptions) (*UpdateResult, error) {
	if p.VaultID != e.vault.ID() {
		return nil, fmt.Errorf("%w: %s is a checkout of vault %s, but tv is using vault %s (set TV_VAULT to the vault it came from)", ErrUsage, p.Dir, p.VaultID, e.vault.ID())
	}
	if err := e.requireReadScope(ctx, p); err != nil {
		return nil, err
	}
	head, err := e.vault.Ref(ctx, WorkspaceRefPrefix+p.WorkspaceID)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: workspace %s (%s) no longer exists in the vault; nothing was changed", ErrNotFound, p.WorkspaceName, p.WorkspaceID)
	}
	if err != nil {
		return nil, err
	}
	res := &UpdateResult{WorkspaceID: p.WorkspaceID, WorkspaceName: p.WorkspaceName, From: p.Baseline, To: head, Updated: []string{}, Merged: []string{}, Conflicts: []string{}}
	res.Kept = len(p.Added) + len(p.Modified) + len(p.Deleted)
	if head == p.Baseline {
		res.UpToDate = true
		return res, nil
	}
	hc, err := e.vault.ReadCommit(ctx, head)
	if err != nil {
		return nil, err
	}
	bc, err := e.vault.ReadCommit(ctx, p.Baseline)
	if err != nil {
		return nil, fmt.Errorf("baseline %s of %s: %w", p.Baseline.Short(), p.Dir, err)
	}
	diffs, err := diffFiles(ctx, e.vault, bc.Tree, hc.Tree)
	if err != nil {
		return nil, err
	}
	files, err := e.planUpdate(ctx, p, staleAgainst(p.base, diffs), opts)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		switch {
		case f.markers:
			res.Conflicts = append(res.Conflicts, f.path)
		case f.merged:
			res.Merged = append(res.Merged, f.path)
		case f.write:
			res.Updated = append(res.Updated, f.path)
		}
		if _, changed := p.localVersion(f.path); changed {
			res.Kept--
		}
	}
	j, err := e.stageUpdate(ctx, p, head, files)
	if err != nil {
		return nil, err
	}
	log, err := applyJournal(p.Dir, j, &p.base.Header)
	if err != nil {
		return nil, fmt.Errorf("update of %s was interrupted (the next walk-test, commit or update completes it): %w", p.Dir, err)
	}
	p.recordUpdateInCache(head, log, files)
	return res, nil
}

// requireReadScope checks that the actor may still read everything the
// checkout holds.
func (e *Engine) requireReadScope(ctx context.Context, p *Plan) error {
	a, err := e.loadAccess(ctx)
	if err != nil {
		return err
	}
	scope, err := e.readScope(a, p.WorkspaceID)
	if err != nil {
		return fmt.Errorf("%w; nothing was changed", err)
	}
	held := p.base.Header.Scope
	if scope == nil {
		return nil
	}
	lost := []string{}
	if held == nil {
		lost = append(lost, "the whole workspace")
	}
	for _, f := range held {
		if !underAny(f, scope) {
			lost = append(lost, f)
		}
	}
	if len(lost) == 0 {
		return nil
	}
	return fmt.Errorf("%w: this checkout holds %s, which you may no longer read (you may read %s); nothing was changed. Check out the workspace again into a new directory",
		ErrPermission, strings.Join(lost, ", "), strings.Join(scope, ", "))
}

// planUpdate decides, for every file the checkout lacks the head's
// version of, what the update does, and refuses conflicts.
func (e *Engine) planUpdate(ctx context.Context, p *Plan, stale []fileDiff, opts UpdateOptions) ([]*updateFile, error) {
	diskFiles := map[string]bool{}
	diskFolders := map[string]bool{}
	for _, f := range p.disk.files {
		diskFiles[f.path] = true
		addParents(diskFolders, f.path)
	}
	removed := map[string]bool{}
	for _, d := range stale {
		if mine, changed := p.localVersion(d.Path); d.New == nil && (!changed || mine == nil) {
			removed[d.Path] = true
		}
	}
	var (
		out         []*updateFile
		conflicts   []string
		unmergeable = map[string]string{}
	)
	for _, d := range stale {
		f := &updateFile{path: d.Path, head: d.New}
		mine, changed := p.localVersion(d.Path)
		switch {
		case changed && sameFile(mine, d.New):
			// Already the head's version here: only the manifest moves.
			if mine != nil {
				f.sha256 = p.changed[d.Path].sha256()
			}
		case !changed:
			f.write = true
		case !opts.Merge:
			conflicts = append(conflicts, d.Path)
			continue
		default:
			if why, err := e.mergeFile(ctx, p, f, mine); err != nil {
				return nil, err
			} else if why != "" {
				unmergeable[d.Path] = why
				continue
			}
		}
		if f.write && f.head != nil {
			if why := clash(d.Path, diskFiles, diskFolders, removed); why != "" {
				unmergeable[d.Path] = why
				continue
			}
		}
		out = append(out, f)
	}
	if len(conflicts)+len(unmergeable) > 0 {
		return nil, &UpdateConflictError{Paths: conflicts, Unmergeable: unmergeable}
	}
	return out, nil
}

// clash says why the head's file at p cannot be written: a folder of
// local files there, or a local file where it needs a folder.
func clash(p string, diskFiles, diskFolders, removed map[string]bool) string {
	if diskFolders[p] {
		return "the head has a file where this checkout has a folder"
	}
	for d := p; ; {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			return ""
		}
		d = d[:i]
		if diskFiles[d] && !removed[d] {
			return "the head has a folder where this checkout has the file " + d
		}
	}
}

// mergeFile merges the checkout's version of f (mine) with the head's,
// from the version the manifest records (none: both added it). It
// returns why the file cannot be merged, or "".
func (e *Engine) mergeFile(ctx context.Context, p *Plan, f *updateFile, mine *FileEntry) (string, error) {
	if mine == nil || f.head == nil {
		return "deleted on one side, changed on the other", nil
	}
	var baseText []byte
	if i := p.base.Lookup(f.path); i >= 0 {
		b, why, err := e.readBlobText(ctx, p.base.Files[i].ID)
		if why != "" || err != nil {
			return why, err
		}
		baseText = b
	}
	theirs, why, err := e.readBlobText(ctx, f.head.ID)
	if why != "" || err != nil {
		return why, err
	}
	ours, err := p.readDiskText(f.path)
	if err != nil {
		return "", err
	}
	if ours == nil {
		return fmt.Sprintf("binary, or over the %d-byte merge limit", MaxMergeBytes), nil
	}
	r := textmerge.Merge(baseText, ours, theirs, "this checkout", "head "+f.head.ID.Short())
	f.content, f.write, f.merged, f.markers = r.Text, true, true, r.Conflicts > 0
	f.sha256 = sha256.Sum256(theirs)
	return "", nil
}

// readBlobText reads a blob for merging, or says why it cannot be merged.
func (e *Engine) readBlobText(ctx context.Context, id Hash) ([]byte, string, error) {
	rc, size, err := e.vault.OpenBlob(ctx, id)
	if err != nil {
		return nil, "", err
	}
	defer rc.Close()
	if size > MaxMergeBytes {
		return nil, fmt.Sprintf("over the %d-byte merge limit", MaxMergeBytes), nil
	}
	b, err := io.ReadAll(io.LimitReader(rc, MaxMergeBytes+1))
	if err != nil {
		return nil, "", err
	}
	if textmerge.IsBinary(b) {
		return nil, "binary", nil
	}
	return b, "", nil
}

// readDiskText reads a checkout file for merging; nil when it is binary
// or over MaxMergeBytes.
func (p *Plan) readDiskText(path string) ([]byte, error) {
	fh, st, err := p.disk.openRead(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer fh.Close()
	if st.Size > MaxMergeBytes {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(fh, MaxMergeBytes+1))
	if err != nil || textmerge.IsBinary(b) {
		return nil, err
	}
	return b, nil
}

// stageUpdate writes every new file into the staging folder (synced),
// then the journal that names them: the update's commit point.
func (e *Engine) stageUpdate(ctx context.Context, p *Plan, head Hash, files []*updateFile) (*updateJournal, error) {
	stage := filepath.Join(p.Dir, UpdateDirName)
	if err := os.RemoveAll(stage); err != nil {
		return nil, err
	}
	if err := os.Mkdir(stage, 0o700); err != nil {
		return nil, err
	}
	j := &updateJournal{Format: updateJournalFormat, From: p.Baseline, To: head}
	j.Entry.Baseline = head
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(stage) // nothing of the update is in place yet
		}
	}()
	for i, f := range files {
		if err := stageFault(i); err != nil {
			return nil, err
		}
		if f.head == nil {
			j.Entry.Deleted = append(j.Entry.Deleted, f.path)
			if f.write {
				j.Ops = append(j.Ops, journalOp{Path: f.path, Delete: true})
			}
			continue
		}
		size := int64(-1) // the head's version's, once known
		if f.write {
			name := fmt.Sprintf("%06d", i)
			sum, n, err := e.stageFile(ctx, filepath.Join(stage, name), f)
			if err != nil {
				return nil, fmt.Errorf("stage %s: %w", f.path, err)
			}
			if f.content == nil {
				f.sha256, size = sum, n
			}
			j.Ops = append(j.Ops, journalOp{Path: f.path, Staged: name})
		}
		if f.markers {
			j.Conflicts = append(j.Conflicts, f.path)
		}
		if size < 0 {
			rc, n, err := e.vault.OpenBlob(ctx, f.head.ID)
			if err != nil {
				return nil, err
			}
			rc.Close()
			size = n
		}
		f.size = size
		j.Entry.Files = append(j.Entry.Files, ManifestFile{Path: f.path, Version: f.head.ID, SHA256: hex.EncodeToString(f.sha256[:]), Size: size, Mode: modeText(f.head.Mode)})
	}
	data, err := encodeJournal(j)
	if err != nil {
		return nil, err
	}
	if err := replaceFile(filepath.Join(stage, updateJournalName), data, 0o600, true); err != nil {
		return nil, err
	}
	ok = true
	return j, nil
}

// stageFile writes f's new content (merged text, or the head's blob,
// verified against its id) to path and syncs it; for the head's blob it
// returns the blob's sha256 and size.
func (e *Engine) stageFile(ctx context.Context, path string, f *updateFile) (sum [32]byte, size int64, err error) {
	perm := fs.FileMode(0o644)
	if f.head.Mode == ModeExecutable {
		perm = 0o755
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|fastio.NoFollow, perm)
	if err != nil {
		return sum, 0, err
	}
	defer out.Close()
	if f.content != nil {
		_, err = out.Write(f.content)
	} else {
		size, err = e.copyBlob(ctx, out, f.head.ID, &sum)
	}
	if err == nil {
		err = out.Chmod(perm) // umask must not change what the version says
	}
	if err == nil {
		err = out.Sync()
	}
	return sum, size, err
}

// copyBlob streams blob id into w, checking its bytes against the id,
// stores their sha256 in sum and returns their count.
func (e *Engine) copyBlob(ctx context.Context, w io.Writer, id Hash, sum *[32]byte) (int64, error) {
	rc, size, err := e.vault.OpenBlob(ctx, id)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	h1, h2 := blobHasher(size), sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h1, h2), rc)
	if err != nil {
		return 0, err
	}
	var got Hash
	h1.Sum(got[:0])
	if n != size || got != id {
		return 0, fmt.Errorf("blob %s does not hash to its id: the vault is damaged (run `git fsck`)", id)
	}
	h2.Sum(sum[:0])
	return size, nil
}

// recordUpdateInCache records the update in the stat cache as a commit
// does, at a cost that follows the files it changed: one record appended
// to the cache file the base came from, with the new baseline and log
// stamp, the entries of the files the update wrote or removed, those of
// the files the scan hashed and found unchanged, and the listings of the
// folders the scan read that the update left alone. When there is no such
// file (the base came from the manifest) or it was replaced, the cache is
// written whole. An accelerator only: a failure costs speed, not truth.
func (p *Plan) recordUpdateInCache(head Hash, log fastio.FileID, files []*updateFile) {
	r := &statcache.Record{Baseline: head, Log: log}
	touched := make(map[string]bool, len(files))
	changedDirs := map[string]bool{".": true}
	for _, f := range files {
		touched[f.path] = true
		for d := f.path; strings.Contains(d, "/"); {
			d = d[:strings.LastIndexByte(d, '/')]
			changedDirs[d] = true
		}
		if f.head == nil {
			r.Deleted = append(r.Deleted, f.path)
			continue
		}
		r.Set = append(r.Set, p.updatedEntry(f))
	}
	for rel, d := range p.disk.fresh {
		if !changedDirs[rel] {
			if r.Dirs == nil {
				r.Dirs = map[string]*statcache.Dir{}
			}
			r.Dirs[rel] = d
		}
	}
	for _, f := range p.disk.files {
		if f.clean || f.base < 0 || touched[f.path] {
			continue
		}
		if be := &p.base.Files[f.base]; be.ID == f.id() && FileMode(be.Mode) == f.mode {
			r.Set = append(r.Set, entryOf(f)) // hashed, unchanged: stamped anew
		}
	}
	if p.base.Append(filepath.Join(p.Dir, StatCacheName), r, p.racyFrom()) != nil {
		p.refreshCacheAfterUpdate(head, log, files)
	}
}

// updatedEntry is the base entry of a file the update brought to the
// head's version: stamped when the update wrote the version itself,
// unstamped when it merged (the content is not the version), the scan's
// stamp when the checkout held the head's version already.
func (p *Plan) updatedEntry(f *updateFile) statcache.Entry {
	e := statcache.Entry{Path: f.path, ID: f.head.ID, SHA256: f.sha256, Mode: uint32(f.head.Mode), Stamp: fastio.Stamp{Size: f.size}}
	switch {
	case !f.write:
		if df := p.changed[f.path]; df != nil {
			e.Stamp = df.stamp()
		}
	case !f.merged:
		if fi, err := os.Lstat(filepath.Join(p.Dir, filepath.FromSlash(f.path))); err == nil && fi.Size() == f.size {
			e.Stamp = fastio.StampOf(fi)
		}
	}
	return e
}

// refreshCacheAfterUpdate writes the stat cache for the updated checkout
// whole: the scan's stamps for the files the update left alone, new
// stamps for the ones it wrote (see updatedEntry), and no cached listing
// of the folders it changed.
func (p *Plan) refreshCacheAfterUpdate(head Hash, log fastio.FileID, files []*updateFile) {
	nb := p.nextBase(false, ZeroHash)
	nb.Header.Baseline = head
	nb.Header.Log = log
	byPath := map[string]statcache.Entry{}
	for _, e := range nb.Files {
		byPath[e.Path] = e
	}
	dirs := make(map[string]*statcache.Dir, len(nb.Dirs))
	for k, v := range nb.Dirs {
		dirs[k] = v
	}
	for _, f := range files {
		delete(dirs, ".")
		for d := f.path; strings.Contains(d, "/"); {
			d = d[:strings.LastIndexByte(d, '/')]
			delete(dirs, d)
		}
		if f.head == nil {
			delete(byPath, f.path)
			continue
		}
		byPath[f.path] = p.updatedEntry(f)
	}
	nb.Files = nb.Files[:0]
	for _, k := range sortedKeys(byPath) {
		nb.Files = append(nb.Files, byPath[k])
	}
	nb.Dirs = dirs
	_ = saveStatCache(p.Dir, nb, time.Now().Add(-statcache.RacySmudge).UnixNano()) // an accelerator only
}

// conflictFindings reports the files an update --merge left with conflict
// markers that still hold them.
func (p *Plan) conflictFindings() []icm.Finding {
	listed, err := readConflictList(p.Dir)
	if err != nil || len(listed) == 0 {
		return nil
	}
	onDisk := make(map[string]bool, len(p.disk.files))
	for _, f := range p.disk.files {
		onDisk[f.path] = true
	}
	var out []icm.Finding
	for _, path := range listed {
		if !onDisk[path] {
			continue
		}
		if b, err := p.readDiskText(path); err == nil && b != nil && textmerge.HasMarkers(b) {
			out = append(out, icm.Finding{Rule: RuleConflict, Severity: icm.SeverityError, Path: path,
				Message: "holds the conflict markers `tv workspace update --merge` wrote; edit the file to resolve them before committing"})
		}
	}
	return out
}
