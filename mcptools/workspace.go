package mcptools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/mounts"
	"github.com/thalix/tv/wsfs"
)

// Workspace kinds and ID prefixes.
const (
	KindLaunch   = "launch"   // the launch directory (or --root); ID "launch"
	KindWorktree = "worktree" // another worktree of the launch repository; ID "worktree:/abs/path"
	KindCheckout = "checkout" // a mounted tv checkout; ID "checkout:/abs/path"
	// EnvWorkspacePaths, when set, replaces the mount registry: an OS
	// path-list of directories offered as checkout workspaces.
	EnvWorkspacePaths = "TV_WORKSPACE_PATHS"
)

// Guidance file names, in order of preference.
var guidanceFiles = []string{"AGENTS.md", "CLAUDE.md"}

// ErrUnknownWorkspace is wrapped when a workspace ID names no current
// workspace.
var ErrUnknownWorkspace = errors.New("unknown workspace")

// ErrBranchGate is wrapped when --require-branch refuses a mutating tool.
var ErrBranchGate = errors.New("branch gate")

// ErrImplicitRoot is wrapped when the directory a host started the server
// in is the file-system root or the home directory itself, and no --root
// was given.
var ErrImplicitRoot = errors.New("implicit launch root refused")

// CheckImplicitRoot refuses dir as a launch root nobody chose: the
// file-system root (Claude Desktop, for one, starts servers in /) and the
// home directory itself (home is the user's whole world: keys, configs,
// every project). Serving either takes an explicit --root.
func CheckImplicitRoot(dir, home string) error {
	d := realPath(dir)
	what := ""
	switch {
	case filepath.Dir(d) == d:
		what = "the file-system root"
	case home != "" && d == realPath(home):
		what = "your home directory"
	default:
		return nil
	}
	return fmt.Errorf("%w: the server was started in %s (%s), which would make all of it the launch workspace; "+
		"start it in a project directory, or pass --root DIR (`tv mcp install --root DIR` writes it for hosts that start servers in / or ~; "+
		"pass --root %s to serve %s on purpose)", ErrImplicitRoot, d, what, d, what)
}

// WorkspaceRef is the workspace member of a result envelope.
type WorkspaceRef struct {
	ID   string `json:"id"`
	Root string `json:"root"`
	Kind string `json:"kind"`
}

func workspaceRefSchema() mcpkit.Schema {
	return mcpkit.OpenObject(mcpkit.Schema{
		"id":   mcpkit.Str(`workspace ID: "launch", "worktree:/abs/path" or "checkout:/abs/path"`),
		"root": mcpkit.Str("absolute path of the workspace root"),
		"kind": mcpkit.With(mcpkit.Str("launch, worktree or checkout"), "enum", []string{KindLaunch, KindWorktree, KindCheckout}),
	}, "id", "root", "kind")
}

// workspace is one resolved workspace.
type workspace struct {
	WorkspaceRef
	repo  *gitRepo // the git worktree holding the root; nil when none
	mount *mounts.Mount
}

// missingEntry is a TV_WORKSPACE_PATHS entry that is not a directory.
type missingEntry struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// catalog is the workspace set of one call.
type catalog struct {
	list     []workspace
	missing  []missingEntry
	problems []string
	source   string // "registry" or EnvWorkspacePaths
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// launchWorkspace is the launch workspace; its git repository is found
// lazily (gitRepo), so read tools do not pay for the search.
func (l *Local) launchWorkspace() workspace {
	return workspace{WorkspaceRef: WorkspaceRef{ID: KindLaunch, Root: l.launch, Kind: KindLaunch}}
}

// gitRepo returns the git worktree holding the workspace root, or nil.
func (w *workspace) gitRepo() *gitRepo {
	if w.repo == nil && w.Kind == KindLaunch {
		if r, ok := findRepo(w.Root); ok {
			w.repo = &r
		}
	}
	return w.repo
}

// worktreeWorkspaces lists the launch repository's other worktrees.
func (l *Local) worktreeWorkspaces(launch workspace, seen map[string]bool) []workspace {
	repo := launch.gitRepo()
	if repo == nil {
		return nil
	}
	var out []workspace
	for _, wt := range repo.worktrees() {
		rp := realPath(wt.worktree)
		if seen[rp] || rp == realPath(repo.worktree) {
			continue
		}
		seen[rp] = true
		r := wt
		out = append(out, workspace{WorkspaceRef: WorkspaceRef{ID: KindWorktree + ":" + wt.worktree, Root: wt.worktree, Kind: KindWorktree}, repo: &r})
	}
	return out
}

// checkoutWorkspaces lists the mounted checkouts: TV_WORKSPACE_PATHS when
// set, else the mount registry.
func (l *Local) checkoutWorkspaces(c *catalog, seen map[string]bool) {
	add := func(p string, m *mounts.Mount) {
		w := workspace{WorkspaceRef: WorkspaceRef{ID: KindCheckout + ":" + p, Root: p, Kind: KindCheckout}, mount: m}
		if r, ok := openWorktree(p); ok {
			w.repo = &r
		}
		c.list = append(c.list, w)
	}
	if env := l.cfg.Getenv(EnvWorkspacePaths); env != "" {
		c.source = EnvWorkspacePaths
		for _, p := range filepath.SplitList(env) {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(l.launch, p)
			}
			p = filepath.Clean(p)
			fi, err := os.Stat(p)
			if err == nil && !fi.IsDir() {
				err = errors.New("not a directory")
			}
			if err != nil {
				c.missing = append(c.missing, missingEntry{Path: p, Error: strings.TrimPrefix(err.Error(), "stat "+p+": ")})
				continue
			}
			rp := realPath(p)
			if seen[rp] {
				continue
			}
			seen[rp] = true
			add(p, nil)
		}
		return
	}
	c.source = "registry"
	reg, err := mounts.DefaultPath(l.cfg.Getenv)
	if err != nil {
		c.problems = append(c.problems, err.Error())
		return
	}
	ms, err := mounts.Read(reg)
	if err != nil {
		c.problems = append(c.problems, err.Error())
		return
	}
	for i := range ms {
		rp := realPath(ms[i].Path)
		if seen[rp] {
			continue
		}
		seen[rp] = true
		add(ms[i].Path, &ms[i])
	}
}

// catalog resolves the whole workspace set now.
func (l *Local) catalog() catalog {
	launch := l.launchWorkspace()
	launch.gitRepo()
	seen := map[string]bool{realPath(l.launch): true}
	c := catalog{list: []workspace{launch}}
	c.list = append(c.list, l.worktreeWorkspaces(launch, seen)...)
	l.checkoutWorkspaces(&c, seen)
	return c
}

// resolve finds the workspace with the given ID ("" is launch), afresh.
func (l *Local) resolve(id string) (workspace, error) {
	if id == "" || id == KindLaunch {
		return l.launchWorkspace(), nil
	}
	kind, p, ok := strings.Cut(id, ":")
	if !ok || (kind != KindWorktree && kind != KindCheckout) || !filepath.IsAbs(p) {
		return workspace{}, fmt.Errorf("%w %q: an ID is \"launch\", \"worktree:/abs/path\" or \"checkout:/abs/path\"; workspace_list shows the current ones", ErrUnknownWorkspace, id)
	}
	c := l.catalog()
	want := filepath.Clean(p)
	var ids []string
	for _, w := range c.list {
		if w.Kind == kind && (w.Root == want || realPath(w.Root) == realPath(want)) {
			return w, nil
		}
		ids = append(ids, w.ID)
	}
	return workspace{}, fmt.Errorf("%w %q; current workspaces: %s", ErrUnknownWorkspace, id, strings.Join(ids, ", "))
}

// open resolves the workspace and opens it for path-safe access.
func (l *Local) open(id string) (workspace, *wsfs.FS, error) {
	w, err := l.resolve(id)
	if err != nil {
		return w, nil, err
	}
	f, err := wsfs.Open(w.Root)
	if err != nil {
		return w, nil, err
	}
	return w, f, nil
}

// cachedRoot is the launch workspace opened once and kept for read_file:
// each use first checks (one raw stat: fastio.SameFile) that the launch path still names the
// directory held open, which is what opening it afresh would give, for two
// syscalls fewer than opening and closing it (see openRead). Its FS holds
// the directory (wsfs.FS.Hold), so a file directly in it is read on that
// descriptor, without an os.File per read.
type cachedRoot struct {
	fs *wsfs.FS
	fi os.FileInfo // the held directory's own stat
}

// openRead is open for read_file: the launch workspace comes from the
// root cache; release must be called when done instead of Close.
func (l *Local) openRead(id string) (w workspace, f *wsfs.FS, release func(), err error) {
	if id != "" && id != KindLaunch {
		w, f, err := l.open(id)
		if err != nil {
			return w, nil, nil, err
		}
		return w, f, func() { f.Close() }, nil
	}
	w = l.launchWorkspace()
	c := l.root.Swap(nil)
	if c != nil && fastio.SameFile(w.Root, c.fi) {
		return w, c.fs, func() { l.putRoot(c) }, nil
	}
	if c != nil {
		c.fs.Close() // the launch path names another directory (or none) now
	}
	if f, err = wsfs.Open(w.Root); err != nil {
		return w, nil, nil, err
	}
	dfi, err := f.Root().Stat(".")
	if err != nil || f.Hold() != nil {
		return w, f, func() { f.Close() }, nil
	}
	c = &cachedRoot{fs: f, fi: dfi}
	return w, f, func() { l.putRoot(c) }, nil
}

// putRoot returns c to the cache (closing it when another call cached one
// meanwhile: calls on other goroutines find the cache empty and open their
// own).
func (l *Local) putRoot(c *cachedRoot) {
	if !l.root.CompareAndSwap(nil, c) {
		c.fs.Close()
	}
}

// openGated is open for mutating tools: with --require-branch, the
// workspace's current branch must match the glob.
func (l *Local) openGated(id string) (workspace, *wsfs.FS, error) {
	w, err := l.resolve(id)
	if err != nil {
		return w, nil, err
	}
	if err := l.gate(w); err != nil {
		return w, nil, err
	}
	f, err := wsfs.Open(w.Root)
	if err != nil {
		return w, nil, err
	}
	return w, f, nil
}

func (l *Local) gate(w workspace) error {
	glob := l.cfg.RequireBranch
	if glob == "" {
		return nil
	}
	var on string
	switch repo := w.gitRepo(); {
	case repo == nil:
		on = "not in a git repository (no branch)"
	default:
		h := repo.head()
		if h.Detached {
			on = "on a detached HEAD " + h.Head + " (no branch)"
		} else if ok, _ := path.Match(glob, h.Branch); ok {
			return nil
		} else {
			on = "on branch " + h.Branch
		}
	}
	return fmt.Errorf("%w: workspace %s is %s; this server was started with --require-branch %q, so write_file, edit_tool and execute_bash need a branch matching it (read tools still work). Switch branches, then retry", ErrBranchGate, w.ID, on, glob)
}

// WorkspaceEntry is one workspace in workspace_list and workspace_info.
type WorkspaceEntry struct {
	ID            string    `json:"id"`
	Root          string    `json:"root"`
	Kind          string    `json:"kind"`
	Git           *GitState `json:"git"`
	Dirty         *bool     `json:"dirty"`
	DirtyNote     string    `json:"dirty_note,omitempty"`
	Guidance      string    `json:"guidance"`
	HasGuidance   bool      `json:"has_guidance"`
	WorkspaceID   string    `json:"workspace_id,omitempty"`
	WorkspaceName string    `json:"workspace_name,omitempty"`
}

func workspaceEntrySchema() mcpkit.Schema {
	return mcpkit.OpenObject(mcpkit.Schema{
		"id":   mcpkit.Str("workspace ID to pass as the workspace argument"),
		"root": mcpkit.Str("absolute path of the workspace root"),
		"kind": mcpkit.With(mcpkit.Str("launch, worktree or checkout"), "enum", []string{KindLaunch, KindWorktree, KindCheckout}),
		"git": mcpkit.Nullable(mcpkit.OpenObject(mcpkit.Schema{
			"branch":   mcpkit.Str(`current branch ("" when detached)`),
			"head":     mcpkit.Str(`HEAD commit id ("" on an unborn branch)`),
			"detached": mcpkit.Bool("HEAD names a commit, not a branch"),
		}, "branch", "head", "detached")),
		"dirty":          mcpkit.Nullable(mcpkit.Bool("uncommitted changes (git status); null when unknown or not git")),
		"dirty_note":     mcpkit.Str("why dirty is null"),
		"guidance":       mcpkit.Str(`root guidance file: "AGENTS.md", else "CLAUDE.md", else ""`),
		"has_guidance":   mcpkit.Bool("a root guidance file exists"),
		"workspace_id":   mcpkit.Str("tv workspace id of a mounted checkout"),
		"workspace_name": mcpkit.Str("tv workspace name of a mounted checkout"),
	}, "id", "root", "kind", "git", "dirty", "guidance", "has_guidance")
}

// entry describes w, running git status (bounded) for the dirty flag.
func (w workspace) entry(ctx context.Context) WorkspaceEntry {
	e := WorkspaceEntry{ID: w.ID, Root: w.Root, Kind: w.Kind}
	if w.mount != nil {
		e.WorkspaceID, e.WorkspaceName = w.mount.WorkspaceID, w.mount.WorkspaceName
	}
	e.Guidance = guidanceName(w.Root)
	e.HasGuidance = e.Guidance != ""
	if w.gitRepo() == nil {
		e.DirtyNote = "not a git worktree"
		if w.Kind == KindCheckout {
			e.DirtyNote = "not a git worktree; `tv workspace walk-test` shows a checkout's changes"
		}
		return e
	}
	h, err := w.repo.readHead()
	e.Git = &h
	if err != nil {
		// git status would open the same HEAD and could hang on it.
		e.DirtyNote = "HEAD could not be read: " + err.Error()
		return e
	}
	d, err := dirty(ctx, w.Root)
	if err != nil {
		e.DirtyNote = err.Error()
	} else {
		e.Dirty = &d
	}
	return e
}

// guidanceName returns the first guidance file that is a regular file at
// the root (symlinks are not followed).
func guidanceName(root string) string {
	f, err := wsfs.Open(root)
	if err != nil {
		return ""
	}
	defer f.Close()
	for _, n := range guidanceFiles {
		if fi, err := f.Stat(n); err == nil && fi.Mode().IsRegular() {
			return n
		}
	}
	return ""
}

// entries describes every workspace of c, in parallel.
func (c catalog) entries(ctx context.Context) []WorkspaceEntry {
	out := make([]WorkspaceEntry, len(c.list))
	var wg sync.WaitGroup
	for i, w := range c.list {
		wg.Go(func() { out[i] = w.entry(ctx) })
	}
	wg.Wait()
	return out
}
