package engine

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/thalix/tv/internal/fastio"

	"github.com/thalix/tv/ignore"
)

// scanFilter leaves out of a scan what .gitignore rules ignore — with the
// same engine `tv mcp local` uses (package ignore) — except files the
// checkout's base tracks: as in git, a file already in the baseline stays
// tracked when a rule starts to ignore it, and so do the folders holding
// one.
type scanFilter struct {
	m *ignore.Matcher
	// prefix is the scanned folder's slash path inside the matcher's root
	// ("" or ending in "/"): tv check of a sub-folder of a work tree
	// applies the rules of the folders above it.
	prefix string
	// nested makes a .git below the scanned root an error (check, import):
	// git would record a nested repository as a gitlink, not its files.
	nested bool
	// facts makes the scan read every Markdown file's facts as it stamps
	// it (check, which reads them all: snapshot.facts).
	facts bool
	// statless keeps no stamp of a file the base does not vouch for
	// (check: it writes no cache and stores nothing, so no file's stamp
	// is read after the scan; diskFile.stamp of such a file is a bug):
	// 40 bytes a file, ~100 page faults of a 10k-file check.
	statless bool

	ignored atomic.Int64
	mu      sync.Mutex
	found   string // the first nested .git found
	// listed holds, by slash path relative to the scanned root ("." for
	// it), whether each folder the scan listed has a .gitignore: the
	// matcher reads only those (see ignore.Options.HasIgnoreFile).
	listed sync.Map
}

// newCheckoutFilter is the filter walk-test and commit apply to checkout
// dir: its .gitignore files and, when dir is the root of a git work tree,
// .git/info/exclude.
func newCheckoutFilter(dir string) (*scanFilter, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	f := &scanFilter{}
	m, err := ignore.NewMatcher(root, ignore.Options{GitIgnore: true, HasIgnoreFile: f.hasIgnoreFile})
	if err != nil {
		root.Close()
		return nil, err
	}
	f.m = m
	return f, nil
}

// sawListing records folder rel's raw listing: whether it holds a
// .gitignore.
func (f *scanFilter) sawListing(rel string, entries []fastio.Dirent) {
	if f == nil {
		return
	}
	has := false
	for _, e := range entries {
		if e.Name == ".gitignore" {
			has = true
			break
		}
	}
	f.listed.Store(rel, has)
}

// hasIgnoreFile answers the matcher for folder dir (relative to its
// root): from the scan's listing when the scan listed it, else true.
func (f *scanFilter) hasIgnoreFile(dir string) bool {
	rel, ok := strings.CutPrefix(dir, strings.TrimSuffix(f.prefix, "/"))
	if !ok || f.prefix != "" && rel != "" && rel[0] != '/' {
		return true // above or beside the scanned folder
	}
	rel = strings.TrimPrefix(rel, "/")
	if rel == "" {
		rel = "."
	}
	has, ok := f.listed.Load(rel)
	return !ok || has.(bool)
}

// keepsNoStamps reports whether the scan keeps no stamps (statless).
func (f *scanFilter) keepsNoStamps() bool { return f != nil && f.statless }

// skip reports whether the scan leaves entry p (a slash path relative to
// the scanned root) out, counting it. A path the base tracks (a file of
// it, or a folder holding one) is never left out, as git keeps tracking
// a file that an ignore rule matches, and the matcher is not asked.
func (f *scanFilter) skip(p string, isDir, tracked bool) bool {
	if f == nil || tracked || !f.m.Ignored(f.prefix+p, isDir) {
		return false
	}
	f.ignored.Add(1)
	return true
}

// nestedGit records folder p, which holds a .git, when nested
// repositories are refused.
func (f *scanFilter) nestedGit(p string) {
	if f == nil || !f.nested {
		return
	}
	f.mu.Lock()
	if f.found == "" || p < f.found {
		f.found = p
	}
	f.mu.Unlock()
}

// err is the refusal of what the scan met that the rules cannot apply
// to: an ignore file over its limit, a nested repository.
func (f *scanFilter) err() error {
	if f == nil {
		return nil
	}
	if err := f.m.Err(); err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if f.found != "" {
		return fmt.Errorf("%w: %s is a nested git repository (it holds .git); a tv workspace holds no repositories: remove its .git, or list %s/ in .gitignore", ErrRefused, f.found, f.found)
	}
	return nil
}
