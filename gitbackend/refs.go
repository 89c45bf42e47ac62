package gitbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/fastio"
)

// Ref returns the current value of ref name: the loose ref file, else its
// line in packed-refs. Symbolic refs are followed.
func (v *Vault) Ref(ctx context.Context, name string) (engine.Hash, error) {
	if err := ctx.Err(); err != nil {
		return engine.ZeroHash, err
	}
	if err := checkRefName(name); err != nil {
		return engine.ZeroHash, err
	}
	var (
		h   engine.Hash
		ok  bool
		err error
	)
	if v.mem != nil {
		h, ok = v.memRef(name)
	} else {
		h, ok, err = v.readRef(name, nil)
	}
	if err != nil {
		return engine.ZeroHash, err
	}
	if !ok {
		return engine.ZeroHash, fmt.Errorf("%w: %s", engine.ErrRefNotFound, name)
	}
	return h, nil
}

// ListRefs returns every ref whose name starts with prefix, sorted by name.
// Loose refs override packed ones.
func (v *Vault) ListRefs(ctx context.Context, prefix string) ([]engine.Ref, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if v.mem != nil {
		return v.memListRefs(prefix), nil
	}
	found := map[string]engine.Hash{}
	// Walk the loose refs first, then read packed-refs: a concurrent
	// `git pack-refs` writes packed-refs before it deletes a loose ref, so
	// a ref moving from loose to packed is seen in one or the other.
	dir := "refs/"
	if strings.HasPrefix(prefix, "refs/") {
		dir = prefix[:strings.LastIndexByte(prefix, '/')+1]
	}
	var buf []byte
	if err := v.walkLooseRefs(dir, prefix, found, &buf); err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	packed, err := v.readPackedRefs()
	if err != nil {
		return nil, err
	}
	for _, r := range packed {
		if _, loose := found[r.Name]; !loose && strings.HasPrefix(r.Name, prefix) {
			found[r.Name] = r.Hash
		}
	}
	out := make([]engine.Ref, 0, len(found))
	for n, h := range found {
		out = append(out, engine.Ref{Name: n, Hash: h})
	}
	slices.SortFunc(out, func(a, b engine.Ref) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// walkLooseRefs adds the loose refs under folder dir ("refs/…/") whose
// names start with prefix to found. Each folder is listed once and each
// ref read by name in it (fastio: open, fstat, read, close), where
// filepath.WalkDir and os.ReadFile took ten system calls a ref (the
// poller's fcntl and epoll_ctl calls included): listing 1,001 workspaces
// spent a third of its 28 ms there.
func (v *Vault) walkLooseRefs(dir, prefix string, found map[string]engine.Hash, buf *[]byte) error {
	l, err := fastio.OpenLister(filepath.Join(v.path, filepath.FromSlash(dir)), false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return err
	}
	defer l.Close()
	ents, err := l.Entries(nil)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := dir + e.Name
		switch {
		case e.Type.IsDir():
			if err := v.walkLooseRefs(name+"/", prefix, found, buf); err != nil {
				return err
			}
			continue
		case !strings.HasPrefix(name, prefix) || refNameProblem(name) != "":
			continue // lock files, editor backups: git ignores them too
		case !e.Type.IsRegular():
			if err := v.addLooseRef(name, found); err != nil { // a symlink: followed, as git does
				return err
			}
			continue
		}
		st, data, err := l.StatRead(e.Name, MaxLooseRefBytes, *buf)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // deleted since the listing
		case err != nil:
			return fmt.Errorf("read ref %s: %w", name, err)
		case !fs.FileMode(st.Mode).IsRegular():
			continue
		}
		*buf = data
		if len(data) > MaxLooseRefBytes {
			return fmt.Errorf("ref %s (%s) is corrupt: over %d bytes (gitbackend.MaxLooseRefBytes); a ref holds an object id or \"ref: NAME\"", name, v.refPath(name), MaxLooseRefBytes)
		}
		h, target, err := parseLooseRef(data)
		if err != nil {
			return fmt.Errorf("ref %s (%s) is corrupt: %v", name, v.refPath(name), err)
		}
		if target != "" {
			if err := v.addLooseRef(name, found); err != nil { // followed; a dangling one is left out
				return err
			}
			continue
		}
		found[name] = h
	}
	return nil
}

// addLooseRef reads loose ref name through readLoose (following a symbolic
// ref) and adds it to found when it resolves.
func (v *Vault) addLooseRef(name string, found map[string]engine.Hash) error {
	h, ok, err := v.readLoose(name, nil)
	if ok {
		found[name] = h
	}
	return err
}

func (v *Vault) refPath(name string) string {
	return filepath.Join(v.path, filepath.FromSlash(name))
}

// readRef returns the value of a ref: loose, else packed.
// seen tracks symbolic refs already followed.
func (v *Vault) readRef(name string, seen []string) (engine.Hash, bool, error) {
	h, ok, err := v.readLoose(name, seen)
	if err != nil || ok {
		return h, ok, err
	}
	// A loose ref is only ever replaced by rename or removed after
	// packed-refs was rewritten, so missing here means: look in packed-refs.
	packed, err := v.readPackedRefs()
	if err != nil {
		return engine.ZeroHash, false, err
	}
	if i, ok := slices.BinarySearchFunc(packed, name, func(r engine.Ref, n string) int { return strings.Compare(r.Name, n) }); ok {
		return packed[i].Hash, true, nil
	}
	return engine.ZeroHash, false, nil
}

// readLoose reads the loose ref file of name. ok is false when there is no
// such file.
func (v *Vault) readLoose(name string, seen []string) (engine.Hash, bool, error) {
	data, err := os.ReadFile(v.refPath(name))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) {
			return engine.ZeroHash, false, nil
		}
		return engine.ZeroHash, false, fmt.Errorf("read ref %s: %w", name, err)
	}
	h, target, err := parseLooseRef(data)
	if err != nil {
		return engine.ZeroHash, false, fmt.Errorf("ref %s (%s) is corrupt: %v", name, v.refPath(name), err)
	}
	if target == "" {
		return h, true, nil
	}
	if len(seen) >= MaxSymrefDepth || slices.Contains(seen, target) || checkRefName(target) != nil {
		return engine.ZeroHash, false, fmt.Errorf("ref %s: symbolic ref to %q cannot be followed", name, target)
	}
	return v.readRef(target, append(seen, name))
}

// parseLooseRef parses a loose ref file: 40 hex digits and a newline, or
// "ref: <target>".
func parseLooseRef(data []byte) (engine.Hash, string, error) {
	if t, ok := bytes.CutPrefix(data, []byte("ref:")); ok {
		return engine.ZeroHash, string(bytes.TrimSpace(t)), nil
	}
	s := string(bytes.TrimRight(data, " \t\r\n"))
	if len(s) != 40 {
		return engine.ZeroHash, "", fmt.Errorf("content %q is not an object id", truncate(s, 60))
	}
	h, err := engine.ParseHash(s)
	return h, "", err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// readPackedRefs parses packed-refs, sorted by name. A missing file is no refs.
func (v *Vault) readPackedRefs() ([]engine.Ref, error) {
	data, err := os.ReadFile(filepath.Join(v.path, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	var out []engine.Ref
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue
		}
		hexID, name, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return nil, fmt.Errorf("packed-refs is corrupt: line %q", truncate(string(line), 80))
		}
		h, err := engine.ParseHash(string(hexID))
		if err != nil {
			return nil, fmt.Errorf("packed-refs is corrupt: line %q", truncate(string(line), 80))
		}
		out = append(out, engine.Ref{Name: string(name), Hash: h})
	}
	slices.SortFunc(out, func(a, b engine.Ref) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// UpdateRefs applies all updates or none, by git's lockfile protocol.
func (v *Vault) UpdateRefs(ctx context.Context, updates ...engine.RefUpdate) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ups := slices.Clone(updates)
	slices.SortFunc(ups, func(a, b engine.RefUpdate) int { return strings.Compare(a.Name, b.Name) })
	for i, u := range ups {
		if err := checkRefName(u.Name); err != nil {
			return err
		}
		if i > 0 && ups[i-1].Name == u.Name {
			return fmt.Errorf("%w: ref %s appears twice in one transaction", engine.ErrUsage, u.Name)
		}
		for _, o := range ups[:i] {
			if strings.HasPrefix(u.Name, o.Name+"/") {
				return fmt.Errorf("%w: refs %s and %s cannot both exist", engine.ErrUsage, o.Name, u.Name)
			}
		}
	}
	if len(ups) == 0 {
		return nil
	}
	// Like git update-ref: never point a ref at an object the vault lacks.
	for _, u := range ups {
		if !u.Verify && !u.New.IsZero() && !v.objectExists(u.New) {
			return fmt.Errorf("%w: cannot point %s at %s: the vault has no such object (write it with a finished ObjectWriter first)",
				engine.ErrObjectNotFound, u.Name, u.New)
		}
	}
	if v.mem != nil {
		return v.memUpdateRefs(ups)
	}
	return v.diskUpdateRefs(ups)
}

// refLock is one held `<ref>.lock`.
type refLock struct {
	u        engine.RefUpdate
	refPath  string
	lockPath string
	f        *os.File // open until its new value is written
	done     bool     // renamed or removed: no longer ours to clean up
}

// diskUpdateRefs applies ups as one transaction by git's lockfile
// protocol: lock every changing ref in sorted order, check every old
// value, write the new values into the locks, rewrite packed-refs for
// packed deletions, then rename each lock over its ref.
func (v *Vault) diskUpdateRefs(ups []engine.RefUpdate) (err error) {
	var locks []*refLock
	defer func() {
		// On failure remove only the locks this call created.
		for _, l := range locks {
			if l.f != nil {
				l.f.Close()
			}
			if !l.done {
				os.Remove(l.lockPath)
			}
		}
	}()
	locks, verifies, err := v.lockRefs(ups)
	if err != nil {
		return err
	}
	packedDeletes, err := v.checkLocked(locks)
	if err != nil {
		return err
	}
	if err := v.verifyUnlocked(verifies); err != nil {
		return err
	}
	if err := writeLocks(locks); err != nil {
		return err
	}
	// Deletions of packed refs rewrite packed-refs first, like git:
	// until the loose file goes, readers still see the old value.
	if len(packedDeletes) > 0 {
		if err := v.deletePackedRefs(packedDeletes); err != nil {
			return err
		}
	}
	return v.commitLocks(locks)
}

// lockRefs locks every ref that changes, in sorted name order (step 1),
// and returns the locks taken (also on failure, for the caller to clean
// up) and the verify-only steps, which take no lock: see verifyUnlocked.
func (v *Vault) lockRefs(ups []engine.RefUpdate) (locks []*refLock, verifies []engine.RefUpdate, err error) {
	locks = make([]*refLock, 0, len(ups))
	for _, u := range ups {
		if u.Verify {
			verifies = append(verifies, u)
			continue
		}
		l := &refLock{u: u, refPath: v.refPath(u.Name)}
		l.lockPath = l.refPath + ".lock"
		f, err := createLockFile(l.lockPath, RefLockTimeout)
		if err != nil {
			return locks, nil, refLockError(u.Name, l.lockPath, err)
		}
		l.f = f
		locks = append(locks, l)
	}
	return locks, verifies, nil
}

// checkLocked checks every old value while all locks are held (step 2)
// and returns the packed refs to delete. Nobody following the protocol
// can change a locked ref, and `git pack-refs` needs the ref's lock to
// drop a loose ref, so loose-else-packed is stable.
func (v *Vault) checkLocked(locks []*refLock) (packedDeletes []string, err error) {
	packed, err := v.readPackedRefs()
	if err != nil {
		return nil, err
	}
	inPacked := map[string]bool{}
	for _, r := range packed {
		inPacked[r.Name] = true
	}
	for _, l := range locks {
		if isSymref(l.refPath) {
			return nil, fmt.Errorf("%w: %s is a symbolic ref; tv does not update symbolic refs", engine.ErrUsage, l.u.Name)
		}
		cur, exists, err := v.readLoose(l.u.Name, nil)
		if err != nil {
			return nil, err
		}
		if !exists {
			if i, ok := slices.BinarySearchFunc(packed, l.u.Name, func(r engine.Ref, n string) int { return strings.Compare(r.Name, n) }); ok {
				cur, exists = packed[i].Hash, true
			}
		}
		if err := checkOld(l.u, cur, exists); err != nil {
			return nil, err
		}
		if l.u.Verify {
			continue
		}
		if l.u.Old.IsZero() && !l.u.New.IsZero() {
			if err := v.checkNoDirConflict(l.u.Name, packed); err != nil {
				return nil, err
			}
		}
		if l.u.New.IsZero() && inPacked[l.u.Name] {
			packedDeletes = append(packedDeletes, l.u.Name)
		}
	}
	return packedDeletes, nil
}

// writeLocks writes and fsyncs the new values into the lock files (step
// 3) and closes them. The fsyncs of a transaction's locks run at once
// (see syncPaths).
func writeLocks(locks []*refLock) error {
	var written []*refLock
	for _, l := range locks {
		if l.u.New.IsZero() || l.u.Verify {
			continue
		}
		if _, err := l.f.WriteString(l.u.New.String() + "\n"); err != nil {
			return fmt.Errorf("write %s: %w", l.lockPath, err)
		}
		written = append(written, l)
	}
	errs := make([]error, len(written))
	var wg sync.WaitGroup
	for i, l := range written {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.f.Sync(); err != nil {
				errs[i] = fmt.Errorf("fsync %s: %w", l.lockPath, err)
			}
		}()
	}
	wg.Wait()
	for i, l := range written {
		if errs[i] != nil {
			return errs[i]
		}
		err := l.f.Close()
		l.f = nil
		if err != nil {
			return fmt.Errorf("close %s: %w", l.lockPath, err)
		}
	}
	return nil
}

// commitLocks renames each lock over its ref, or removes the ref (step
// 5), then fsyncs the folders touched. A failure here leaves the
// transaction partly applied, and says so.
func (v *Vault) commitLocks(locks []*refLock) error {
	dirs := map[string]bool{}
	var errs []error
	for _, l := range locks {
		if l.f != nil {
			l.f.Close()
			l.f = nil
		}
		if l.u.Verify {
			os.Remove(l.lockPath)
			l.done = true
			continue
		}
		if l.u.New.IsZero() {
			if err := os.Remove(l.refPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("delete ref %s: %w", l.u.Name, err))
			}
			os.Remove(l.lockPath)
			l.done = true
			v.removeEmptyRefDirs(filepath.Dir(l.refPath))
		} else {
			if err := os.Rename(l.lockPath, l.refPath); err != nil {
				errs = append(errs, fmt.Errorf("update ref %s: %w", l.u.Name, err))
				continue // the caller's cleanup removes the lock
			}
			l.done = true
		}
		dirs[filepath.Dir(l.refPath)] = true
	}
	var paths []string
	for d := range dirs {
		if _, err := os.Stat(d); err == nil { // an emptied ref folder may be gone
			paths = append(paths, d)
		}
	}
	if err := syncPaths(paths); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("fsync: %w", err))
	}
	if len(errs) > 0 {
		return fmt.Errorf("ref transaction partly applied: %w", errors.Join(errs...))
	}
	return nil
}

// verifyUnlocked checks verify-only steps without taking their locks,
// while the locks of every changing ref are held.
//
// Why no lock: the verify step binds a commit to the grants it was checked
// against (refs/tv/access). Taking refs/tv/access.lock made every commit
// of every workspace serialise on that one file: with 20 parallel commits
// to different workspaces, several lost the 100 ms lock race and failed.
// A ref file is only ever replaced by rename, so reading it gives the old
// or the new value, never a torn one; a writer of the access ref (grant,
// revoke) that renames after this read is ordered after the commit, as if
// the commit had finished first — the same order a lock would have
// produced had the commit taken it first. A revoke is thus never
// "overtaken" by a commit that read the grants before it: the commit's
// check and its read happen before the revoke's rename. What is given up
// is only that a revoke racing a commit could have been the one to fail;
// now the revoke always succeeds and the commit is ordered before it.
func (v *Vault) verifyUnlocked(verifies []engine.RefUpdate) error {
	for _, u := range verifies {
		if isSymref(v.refPath(u.Name)) {
			return fmt.Errorf("%w: %s is a symbolic ref; tv does not update symbolic refs", engine.ErrUsage, u.Name)
		}
		cur, exists, err := v.readLoose(u.Name, nil)
		if err != nil {
			return err
		}
		if !exists {
			// Packed (perhaps just now: pack-refs writes packed-refs
			// before it removes the loose file), so read packed-refs now.
			packed, err := v.readPackedRefs()
			if err != nil {
				return err
			}
			if i, ok := slices.BinarySearchFunc(packed, u.Name, func(r engine.Ref, n string) int { return strings.Compare(r.Name, n) }); ok {
				cur, exists = packed[i].Hash, true
			}
		}
		if err := checkOld(u, cur, exists); err != nil {
			return err
		}
	}
	return nil
}

// isSymref reports whether the loose ref file at path is a symbolic ref.
func isSymref(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	n, _ := f.Read(b[:])
	return string(b[:n]) == "ref:"
}

// checkOld compares a ref's current value with the update's expected one.
func checkOld(u engine.RefUpdate, cur engine.Hash, exists bool) error {
	switch {
	case u.Old.IsZero() && exists:
		return fmt.Errorf("%w: %s already exists at %s (expected it to be absent)", engine.ErrRefStale, u.Name, cur)
	case !u.Old.IsZero() && !exists:
		return fmt.Errorf("%w: %s does not exist (expected %s)", engine.ErrRefStale, u.Name, u.Old)
	case !u.Old.IsZero() && cur != u.Old:
		return fmt.Errorf("%w: %s is at %s (expected %s)", engine.ErrRefStale, u.Name, cur, u.Old)
	}
	return nil
}

// checkNoDirConflict refuses to create name when a ref below it exists
// (refs/a/b blocks refs/a and the other way round).
func (v *Vault) checkNoDirConflict(name string, packed []engine.Ref) error {
	for _, r := range packed {
		if strings.HasPrefix(r.Name, name+"/") || strings.HasPrefix(name, r.Name+"/") {
			return fmt.Errorf("%w: cannot create ref %s: ref %s exists", engine.ErrConflict, name, r.Name)
		}
	}
	if fi, err := os.Stat(v.refPath(name)); err == nil && fi.IsDir() {
		if v.removeEmptyRefDirs(v.refPath(name)); dirExists(v.refPath(name)) {
			return fmt.Errorf("%w: cannot create ref %s: refs below %s/ exist", engine.ErrConflict, name, name)
		}
	}
	return nil
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// removeEmptyRefDirs removes dir and its parents while they are empty,
// stopping above refs/<x>/, like git after deleting a ref.
func (v *Vault) removeEmptyRefDirs(dir string) {
	stop := filepath.Join(v.path, "refs")
	for len(dir) > len(stop) && filepath.Dir(dir) != stop {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// createLockFile creates path with O_CREATE|O_EXCL, retrying for up to
// timeout while it exists, and creating missing parent directories.
func createLockFile(path string, timeout time.Duration) (*os.File, error) {
	deadline := time.Now().Add(timeout)
	backoff := time.Millisecond
	mkdirs := 0
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, nil
		}
		switch {
		case errors.Is(err, fs.ErrNotExist) && mkdirs < 3:
			// The directory is missing, or a concurrent delete just
			// removed it as empty: create it and try again.
			mkdirs++
			if merr := os.MkdirAll(filepath.Dir(path), 0o755); merr != nil {
				return nil, merr
			}
		case errors.Is(err, fs.ErrExist) && time.Now().Before(deadline):
			time.Sleep(backoff + rand.N(backoff))
			backoff = min(2*backoff, 20*time.Millisecond)
		default:
			return nil, err
		}
	}
}

func refLockError(name, lockPath string, err error) error {
	if errors.Is(err, fs.ErrExist) {
		return lockedError(lockPath)
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%w: cannot lock ref %s: a ref exists where a directory of its path should be", engine.ErrConflict, name)
	}
	return fmt.Errorf("lock ref %s: %w", name, err)
}

func lockedError(lockPath string) error {
	return fmt.Errorf("%w: Unable to create '%s': File exists. Another tv or git process seems to be running in this vault, "+
		"or one crashed and left the lock file behind. If no other process is running, remove the file by hand and try again",
		engine.ErrRefLocked, lockPath)
}

// deletePackedRefs rewrites packed-refs without names, under
// packed-refs.lock, the way git does.
func (v *Vault) deletePackedRefs(names []string) error {
	packedPath := filepath.Join(v.path, "packed-refs")
	lockPath := packedPath + ".lock"
	f, err := createLockFile(lockPath, PackedRefsLockTimeout)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return lockedError(lockPath)
		}
		return fmt.Errorf("lock packed-refs: %w", err)
	}
	committed := false
	defer func() {
		f.Close()
		if !committed {
			os.Remove(lockPath)
		}
	}()
	data, err := os.ReadFile(packedPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("read packed-refs: %w", err)
	}
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	var out bytes.Buffer
	dropping := false
	for line := range bytes.Lines(data) {
		switch {
		case len(line) > 0 && line[0] == '^':
			if dropping {
				continue // peeled value of a dropped ref
			}
		case len(line) > 0 && line[0] != '#':
			_, name, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(" "))
			dropping = drop[string(name)]
			if dropping {
				continue
			}
		}
		out.Write(line)
	}
	if _, err := f.Write(out.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", lockPath, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", lockPath, err)
	}
	if err := os.Rename(lockPath, packedPath); err != nil {
		return fmt.Errorf("rewrite packed-refs: %w", err)
	}
	committed = true
	return syncDir(v.path)
}

// In-memory refs: the vault's memStore behind the vault's mutex.

// memRef returns the value of ref name in memory and whether it exists.
func (v *Vault) memRef(name string) (engine.Hash, bool) {
	v.memMu.RLock()
	defer v.memMu.RUnlock()
	return v.mem.ref(name)
}

// memListRefs returns the refs in memory whose name starts with prefix,
// sorted by name.
func (v *Vault) memListRefs(prefix string) []engine.Ref {
	v.memMu.RLock()
	defer v.memMu.RUnlock()
	return v.mem.listRefs(prefix)
}

// memUpdateRefs applies ups to the refs in memory, all or none: every
// update is checked before any is applied.
func (v *Vault) memUpdateRefs(ups []engine.RefUpdate) error {
	v.memMu.Lock()
	defer v.memMu.Unlock()
	refs := v.mem.refs
	for _, u := range ups {
		cur, exists := refs[u.Name]
		if err := checkOld(u, cur, exists); err != nil {
			return err
		}
		if u.Old.IsZero() && !u.New.IsZero() && !u.Verify {
			for n := range refs {
				if strings.HasPrefix(n, u.Name+"/") || strings.HasPrefix(u.Name, n+"/") {
					return fmt.Errorf("%w: cannot create ref %s: ref %s exists", engine.ErrConflict, u.Name, n)
				}
			}
		}
	}
	for _, u := range ups {
		if u.Verify {
			continue
		}
		if u.New.IsZero() {
			delete(refs, u.Name)
		} else {
			refs[u.Name] = u.New
		}
	}
	return nil
}
