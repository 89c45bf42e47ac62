package engine

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/statcache"

	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/mounts"
	"github.com/thalix/tv/starter"
)

// CheckoutResult describes a finished checkout.
type CheckoutResult struct {
	Dir           string `json:"dir"`
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	Baseline      Hash   `json:"baseline"`
	Files         int    `json:"files"`
	Bytes         int64  `json:"bytes"`
}

// Checkout writes the head version of a workspace (id or unambiguous name)
// into dir, which must be absent or empty (or hold only .git: the
// checkout then fills that repository's work tree; tv's own files are
// added to info/exclude of any git work tree holding dir). Every file is verified against
// its blob id and sha256 as it is written; the manifest is written last, so
// an interrupted checkout has none. Templates are refused: they are
// factories to init workspaces from.
func (e *Engine) Checkout(ctx context.Context, workspace, dir string) (res *CheckoutResult, err error) {
	a, err := e.loadAccess(ctx)
	if err != nil {
		return nil, err
	}
	info, err := e.resolveWorkspace(ctx, a, workspace)
	if err != nil {
		return nil, err
	}
	scope, err := e.readScope(a, info.ID)
	if err != nil {
		return nil, err
	}
	if err := prepareEmptyDir(dir); err != nil {
		return nil, err
	}
	defer func() {
		// The directory was absent or empty: whatever is in it now is this
		// checkout's, so a failed checkout leaves it empty to retry into.
		if err != nil {
			clearDir(dir)
		}
	}()
	c, err := e.vault.ReadCommit(ctx, info.Head)
	if err != nil {
		return nil, err
	}
	files, err := flatten(ctx, e.vault, c.Tree)
	if err != nil {
		return nil, hideUnreadable(err, scope)
	}
	files = inScope(files, scope)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	notes := 0
	for _, f := range files {
		if isMarkdownPath(f.Path) {
			notes++
		}
	}
	facts := &checkoutFacts{records: make([]factRecord, 0, notes)}
	written, err := e.writeCheckout(ctx, root, files, facts)
	if err != nil {
		return nil, err
	}
	writtenAt := time.Now()
	b := &statcache.Cache{
		Header: headerOf(&Manifest{VaultID: e.vault.ID(), WorkspaceID: info.ID, WorkspaceName: info.Name, Baseline: info.Head, Scope: scope}),
		Files:  make([]statcache.Entry, len(written)),
	}
	b.Header.ManifestBaseline = info.Head
	var total int64
	for i, f := range written {
		b.Files[i] = entryOf(f)
		total += f.stamp().Size
	}
	slices.SortFunc(b.Files, func(x, y statcache.Entry) int { return strings.Compare(x.Path, y.Path) })
	// The written records are copied into b: nothing uses them from here
	// on, so the collector may have them before the manifest and cache
	// buffers are made (at 100k files, 12 MiB).
	nwritten := len(written)
	if err := writeManifest(dir, b); err != nil {
		return nil, err
	}
	_ = facts.save(dir) // an accelerator, like the stat cache; keyed by content, not stamps
	// Let the file-system clock tick past the files' mtimes so the stat
	// cache can vouch for them (see base.clean); writing the manifest and
	// the notes' facts is part of the wait.
	time.Sleep(racyTick - time.Since(writtenAt))
	_ = saveStatCache(dir, b, time.Now().Add(-statcache.RacySmudge).UnixNano())
	if err := excludeOwnFiles(dir); err != nil {
		return nil, fmt.Errorf("checkout is complete, but adding tv's files to the git repository's info/exclude failed: %w", err)
	}
	abs, _ := filepath.Abs(dir)
	if e.opts.MountsPath != "" {
		if err := mounts.Add(e.opts.MountsPath, mounts.Mount{Path: abs, WorkspaceID: info.ID, WorkspaceName: info.Name, CheckedOutAt: e.opts.Now()}); err != nil {
			return nil, fmt.Errorf("checkout is complete, but recording it in the mount registry failed: %w", err)
		}
	}
	return &CheckoutResult{Dir: abs, WorkspaceID: info.ID, WorkspaceName: info.Name, Baseline: info.Head, Files: nwritten, Bytes: total}, nil
}

// racyTick is how long after its last file is written checkout stamps
// its stat cache.
const racyTick = 20 * time.Millisecond

// resolveWorkspace resolves a workspace and explains when the name or id
// belongs to a template instead.
func (e *Engine) resolveWorkspace(ctx context.Context, a *access, idOrName string) (*Info, error) {
	info, err := e.resolveVisible(ctx, a, KindWorkspace, idOrName)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return info, err
	}
	if idOrName == starter.Name || idOrName == BuiltinTemplateID {
		return nil, templateRefusal(idOrName)
	}
	if _, terr := e.resolveVisible(ctx, a, KindTemplate, idOrName); terr == nil || errors.Is(terr, ErrConflict) {
		return nil, templateRefusal(idOrName)
	}
	return nil, err
}

func templateRefusal(t string) error {
	return fmt.Errorf("%w: %q is a template: templates are immutable factories to init workspaces from; run `tv workspace init --name NAME --template %s`, then check out that workspace", ErrUsage, t, t)
}

// readScope returns nil when the actor may read all of workspace ws, else
// the folders of it they may read; no read anywhere is a DeniedError.
func (e *Engine) readScope(a *access, ws string) ([]string, error) {
	err := e.require(a, RankRead, ws, "")
	if err == nil || e.opts.Actor == nil {
		return nil, err
	}
	if folders := a.readableFolders(e.opts.Actor.User, ws); len(folders) > 0 {
		return folders, nil
	}
	return nil, err
}

// inScope keeps the files under one of the scope folders (all when scope
// is nil).
func inScope(files []FileEntry, scope []string) []FileEntry {
	if scope == nil {
		return files
	}
	kept := files[:0]
	for _, f := range files {
		if underAny(f.Path, scope) {
			kept = append(kept, f)
		}
	}
	return kept
}

// underAny reports whether slash path p is one of folders or below one.
func underAny(p string, folders []string) bool {
	for _, d := range folders {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// clearDir removes everything inside dir but a .git, best effort.
func clearDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		if en.Name() != ".git" {
			os.RemoveAll(filepath.Join(dir, en.Name()))
		}
	}
}

// prepareEmptyDir creates dir, or checks that an existing one is empty
// but for a .git: a fresh `git init` folder or a repository's root whose
// work tree the checkout then fills.
func prepareEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return fmt.Errorf("%w: output %s: %v", ErrUsage, dir, err)
	case len(entries) == 1 && entries[0].Name() == ".git":
		return nil
	case len(entries) > 0:
		return fmt.Errorf("%w: output directory %s is not empty (it holds %s); choose a new or empty directory, or one whose only entry is .git", ErrConflict, dir, entries[0].Name())
	}
	return nil
}

// checkoutRun is how many files of one folder a checkout worker writes
// in a row. Creating a file holds its folder's lock in the kernel (on
// ext4 that includes finding a free inode), so workers writing the same
// folder wait on each other and spin on the lock; in runs they write
// different folders at once. On bench/remote's 10,000 files in folders
// of 100, four alternating rounds while this machine's ext4 was slow to
// allocate inodes took 9.7 s in runs of 64 against 11.9 s file by file;
// with inode allocation fast the two were equal (medians 540 / 530 ms).
const checkoutRun = 64

// writeCheckout writes files under root in parallel, verifying each.
// Each folder is made and opened once, and its files are created relative
// to it by name (no per-file path walk); a folder is closed as soon as
// its files and subfolders are done, so open folders stay few. A worker
// takes up to checkoutRun files of one folder at a time.
func (e *Engine) writeCheckout(ctx context.Context, root *os.Root, files []FileEntry, facts *checkoutFacts) ([]*diskFile, error) {
	out := make([]*diskFile, len(files))
	byDir := map[string][]int{".": nil} // folder -> indexes of its files
	subdirs := map[string]int32{}
	for i, f := range files {
		d := path.Dir(f.Path)
		_, known := byDir[d]
		byDir[d] = append(byDir[d], i)
		for !known && d != "." {
			parent := path.Dir(d)
			subdirs[parent]++
			_, known = byDir[parent]
			if !known {
				byDir[parent] = nil
			}
			d = parent
		}
	}
	rootDir, err := fastio.OpenDir(root)
	if err != nil {
		return nil, err
	}
	type job struct {
		files []int // indexes of files of one folder
		dir   *openDir
	}
	var (
		mu       sync.Mutex
		done     int64
		firstErr error
		failed   atomic.Bool
		wg       sync.WaitGroup
		jobs     = make(chan job, ScanWorkers)
		opened   = make(map[string]*openDir, len(byDir))
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		failed.Store(true)
	}
	for range ScanWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, max(256<<10, icm.MaxMarkdownBytes))
			for j := range jobs {
				for _, i := range j.files {
					var df *diskFile
					var err error
					if !failed.Load() {
						df, err = e.writeOne(ctx, j.dir.h, files[i], buf, facts)
					}
					j.dir.release()
					if err != nil {
						fail(err)
					}
					mu.Lock()
					out[i] = df
					done++
					e.progress("checkout", done, int64(len(files)))
					mu.Unlock()
				}
			}
		}()
	}
	// The root first, then a parent before its children (path order).
	dirs := slices.DeleteFunc(sortedKeys(byDir), func(d string) bool { return d == "." })
	dirs = slices.Insert(dirs, 0, ".")
produce:
	for _, d := range dirs {
		h := rootDir
		if d != "." {
			parent := opened[path.Dir(d)]
			h, err = parent.h.Mkdir(path.Base(d))
			parent.release()
			if err != nil {
				fail(fmt.Errorf("mkdir %s: %w", d, refusedName(err)))
				break
			}
		}
		od := &openDir{h: h}
		od.refs.Store(1 + int32(len(byDir[d])) + subdirs[d])
		opened[d] = od
		for chunk := range slices.Chunk(byDir[d], checkoutRun) {
			if failed.Load() || ctx.Err() != nil {
				break produce
			}
			jobs <- job{chunk, od}
		}
		od.release()
	}
	close(jobs)
	wg.Wait()
	for _, od := range opened {
		if od.refs.Load() > 0 {
			od.h.Close() // left open by an early stop
		}
	}
	if len(opened) == 0 {
		rootDir.Close()
	}
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return out, firstErr
}

// refusedName makes fastio's refusal of a name that is not one path
// element an ErrRefused.
func refusedName(err error) error {
	if errors.Is(err, fastio.ErrNotElement) {
		return fmt.Errorf("%w: %w", ErrRefused, err)
	}
	return err
}

// openDir is a folder being written and how many files and subfolders of
// it are still to be made.
type openDir struct {
	h    *fastio.Dir
	refs atomic.Int32
}

func (d *openDir) release() {
	if d.refs.Add(-1) == 0 {
		d.h.Close()
	}
}

// writeOne writes one blob to a new file in dir, hashing as it goes, and
// checks the bytes against the blob id.
// A Markdown file's first bytes (all of a note) are read before they are
// written, and what the validator would learn from them goes into facts:
// the checkout's ICM cache then holds every note's facts, and its first
// walk-test reads no Markdown but the contracts. buf must hold at least
// icm.MaxMarkdownBytes.
func (e *Engine) writeOne(ctx context.Context, dir *fastio.Dir, f FileEntry, buf []byte, facts *checkoutFacts) (*diskFile, error) {
	rc, size, err := e.vault.OpenBlob(ctx, f.ID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	defer rc.Close()
	perm := fs.FileMode(0o644)
	if f.Mode == ModeExecutable {
		perm = 0o755
	}
	fh, err := dir.Create(path.Base(f.Path), perm)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", f.Path, refusedName(err))
	}
	h1, h2 := blobHasher(size), sha256.New()
	w := io.MultiWriter(fh, h1, h2)
	var (
		n      int64
		learnt icm.MarkdownFacts
		note   = isMarkdownPath(f.Path)
	)
	if note {
		head := buf[:min(size, icm.MaxMarkdownBytes)]
		if _, err = io.ReadFull(rc, head); err == nil {
			learnt = icm.FactsOf(head, size > int64(len(head)))
			_, err = w.Write(head)
			n = int64(len(head))
		}
	}
	if err == nil {
		var rest int64
		rest, err = io.CopyBuffer(w, rc, buf)
		n += rest
	}
	if err == nil && n != size {
		err = fmt.Errorf("blob %s of %s has %d bytes, expected %d", f.ID, f.Path, n, size)
	}
	var stamp fastio.Stamp
	if err == nil {
		stamp, err = fh.Finish(perm) // umask must not change what the version says
	} else {
		fh.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", f.Path, err)
	}
	written := &struct {
		diskFile
		stamp fastio.Stamp
		sum   fileSum
	}{diskFile: diskFile{path: f.Path, mode: f.Mode}, stamp: stamp} // one allocation
	df := &written.diskFile
	df.st, df.sum = &written.stamp, &written.sum
	h1.Sum(df.sum.id[:0])
	h2.Sum(df.sum.sha256[:0])
	if df.sum.id != f.ID {
		return nil, fmt.Errorf("verify %s: content hashes to %s, not its version %s: the vault is damaged (run `git fsck`)", f.Path, df.sum.id, f.ID)
	}
	if note {
		facts.add(df.sum.id, learnt)
	}
	return df, nil
}

// checkoutFacts collects the MarkdownFacts of the notes a checkout
// writes, by content id, for its ICM cache.
type checkoutFacts struct {
	mu           sync.Mutex
	records      []factRecord
	placeholders map[Hash][]icm.Placeholder
}

func (c *checkoutFacts) add(id Hash, f icm.MarkdownFacts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = append(c.records, factRecord{id: id, lines: uint32(f.Lines), truncated: f.Truncated})
	if len(f.Placeholders) > 0 {
		if c.placeholders == nil {
			c.placeholders = map[Hash][]icm.Placeholder{}
		}
		c.placeholders[id] = f.Placeholders
	}
}

// save writes the facts as checkout dir's ICM cache, remembering no
// tree's findings (the first walk-test validates, without reading notes).
func (c *checkoutFacts) save(dir string) error {
	recs, byIndex := factTable(c.records, c.placeholders)
	return writeICMCache(dir, [32]byte{}, nil, recs, byIndex)
}
