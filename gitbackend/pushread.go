package gitbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/fastio"
)

// PushReader reads a repository as receive-pack shows it to a pre-receive
// hook: its refs, and the objects of the push (loose in the quarantine
// directory, GIT_OBJECT_DIRECTORY) or already in the repository (its own
// objects directory, packed or loose). It reads in-process, so a hook
// judging a small push starts no git child.
//
// It serves one layout only, the one receive-pack gives a small push to a
// plain bare repository: files refs, SHA-1 objects, no alternates but the
// repository's own objects directory, no pack in the quarantine (git
// keeps a push of receive.unpackLimit objects or more as a pack there).
// OpenPushReader returns ErrPushLayout for anything else, and the caller
// reads with git, which resolves every layout exactly as receive-pack.
//
// Close it when done: it maps the repository's pack indexes.
type PushReader struct {
	repo       *Vault
	quarantine string // the push's objects directory; "" when none

	mapOnce  sync.Once // maps the pack indexes into repo's pack set
	mapErr   error
	releases []func() // their unmappings
}

// OpenPushReader opens the repository at gitDir ("" is the current
// directory, where git runs hooks) with the object and repository
// variables from getenv (GIT_OBJECT_DIRECTORY,
// GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_DIR, ...). It returns an error
// wrapping ErrPushLayout when the layout is not the one it reads.
func OpenPushReader(gitDir string, getenv func(string) string) (*PushReader, error) {
	abs, err := filepath.Abs(gitDir)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", gitDir, err)
	}
	layout := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrPushLayout, fmt.Sprintf(format, args...))
	}
	for _, k := range []string{"GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_REPLACE_REF_BASE"} {
		if getenv(k) != "" {
			return nil, layout("%s is set", k)
		}
	}
	if d := getenv("GIT_DIR"); d != "" && !sameDir(resolveDir(abs, d), abs) {
		return nil, layout("GIT_DIR is %s, not %s", d, abs)
	}
	objects := filepath.Join(abs, "objects")
	for _, p := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(abs, p)); err != nil {
			return nil, layout("%s has no %s (not a bare repository)", abs, p)
		}
	}
	for _, p := range []string{"reftable", "commondir", "objects/info/alternates"} {
		if _, err := os.Lstat(filepath.Join(abs, p)); err == nil {
			return nil, layout("%s has %s", abs, p)
		}
	}
	config, err := os.ReadFile(filepath.Join(abs, "config"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("repository %s: %w", abs, err)
	}
	if c := bytes.ToLower(config); bytes.Contains(c, []byte("refstorage")) || bytes.Contains(c, []byte("objectformat")) {
		return nil, layout("%s's config names a ref storage or object format", abs)
	}
	r := &PushReader{repo: openRepo(abs)}
	if q := getenv("GIT_OBJECT_DIRECTORY"); q != "" && !sameDir(resolveDir(abs, q), objects) {
		r.quarantine = resolveDir(abs, q)
		if err := checkQuarantine(r.quarantine); err != nil {
			return nil, layout("%v", err)
		}
	}
	alternates := getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES")
	if alternates != "" {
		if strings.HasPrefix(alternates, `"`) {
			return nil, layout("GIT_ALTERNATE_OBJECT_DIRECTORIES is quoted")
		}
		for _, a := range strings.Split(alternates, ":") {
			if a != "" && !sameDir(resolveDir(abs, a), objects) {
				return nil, layout("GIT_ALTERNATE_OBJECT_DIRECTORIES names %s", a)
			}
		}
	} else if r.quarantine != "" {
		return nil, layout("GIT_OBJECT_DIRECTORY is %s and the repository's objects are no alternate", r.quarantine)
	}
	return r, nil
}

// checkQuarantine refuses a quarantine that holds packs or alternates.
func checkQuarantine(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("GIT_OBJECT_DIRECTORY %s is no directory", dir)
	}
	packs, err := os.ReadDir(filepath.Join(dir, "pack"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("quarantine %s: %v", dir, err)
	}
	if len(packs) > 0 {
		return fmt.Errorf("the quarantine %s holds packs", dir)
	}
	if _, err := os.Lstat(filepath.Join(dir, "info", "alternates")); err == nil {
		return fmt.Errorf("the quarantine %s has alternates", dir)
	}
	return nil
}

// resolveDir is dir, relative to base unless absolute.
func resolveDir(base, dir string) string {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	return filepath.Join(base, dir)
}

// sameDir reports whether a and b name the same existing directory.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// Ref returns the value of ref name, or an error wrapping
// engine.ErrRefNotFound.
func (r *PushReader) Ref(ctx context.Context, name string) (engine.Hash, error) {
	return r.repo.Ref(ctx, name)
}

// ListRefs returns the refs whose names start with prefix, sorted by name.
func (r *PushReader) ListRefs(ctx context.Context, prefix string) ([]engine.Ref, error) {
	return r.repo.ListRefs(ctx, prefix)
}

// Object reads object id from the quarantine, else the repository: its
// type ("commit", "tree" or "blob"), its size, and its first
// min(size, limit) bytes (none for limit 0, which reads only the header).
// A missing object, or one of another type, is an error wrapping
// engine.ErrObjectNotFound.
func (r *PushReader) Object(ctx context.Context, id engine.Hash, limit int64) (typ string, size int64, data []byte, err error) {
	if err := ctx.Err(); err != nil {
		return "", 0, nil, err
	}
	t, size, rc, err := r.open(id)
	if err != nil {
		return "", 0, nil, err
	}
	defer rc.Close()
	data = make([]byte, min(size, max(limit, 0)))
	if _, err := io.ReadFull(rc, data); err != nil {
		return "", 0, nil, fmt.Errorf("read %s %s: %w", typeNames[t], id, err)
	}
	return typeNames[t], size, data, nil
}

func (r *PushReader) open(id engine.Hash) (int, int64, io.ReadCloser, error) {
	if r.mapOnce.Do(func() { r.mapErr = r.mapPacks() }); r.mapErr != nil {
		return 0, 0, nil, r.mapErr
	}
	if r.quarantine != "" {
		s := id.String()
		t, size, rc, err := openLooseFile(filepath.Join(r.quarantine, s[:2], s[2:]), id)
		if !errors.Is(err, fs.ErrNotExist) {
			return t, size, rc, err
		}
	}
	return r.repo.openObject(id)
}

// mapPacks fills the repository's pack set with its pack indexes mapped,
// not read: a hook looks up a few objects in a pack whose index may be
// megabytes (280 KB for 10,000 files), and a mapping faults in only the
// pages the lookups touch where reading copies the whole file. A pack
// that appears later is read by the vault's own rescan. git never
// rewrites an index in place (a new pack has a new name), so a mapping is
// never cut short under the reader.
func (r *PushReader) mapPacks() error {
	dir := filepath.Join(r.repo.path, "objects", "pack")
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("list packs: %w", err)
	}
	var packs []*packIndex
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok || !strings.HasPrefix(name, "pack-") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, name+".pack")); err != nil {
			continue // index without its pack: not usable (yet)
		}
		path := filepath.Join(dir, e.Name())
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing (git repack)
		}
		if err != nil {
			return fmt.Errorf("open pack index: %w", err)
		}
		b, release, err := fastio.MapFile(path, fi.Size())
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing (git repack)
		}
		if err != nil {
			return fmt.Errorf("open pack index: %w", err)
		}
		r.releases = append(r.releases, release)
		idx, err := checkPackIndex(b, path, name)
		if err != nil {
			return err
		}
		packs = append(packs, &packIndex{name: name, idx: idx})
	}
	r.repo.packs.mu.Lock()
	r.repo.packs.packs = packs // ReadDir sorts by name, as refreshPacks does
	r.repo.packs.mu.Unlock()
	return nil
}

// Close unmaps the pack indexes; the reader must not be used after.
func (r *PushReader) Close() error {
	for _, release := range r.releases {
		release()
	}
	r.releases = nil
	r.repo.packs.mu.Lock()
	r.repo.packs.packs = nil
	r.repo.packs.mu.Unlock()
	return nil
}
