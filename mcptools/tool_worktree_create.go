package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/thalix/tv/mcptools/mcpkit"
)

func worktreeCreateSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "worktree_create",
		Title: "Create a staging worktree",
		Description: "Makes a new linked git worktree of the launch repository on a new branch (git worktree add), so a branch-gated agent can start its own work: " +
			"call it with branch (with --require-branch it must match the glob), then use the returned workspace id (worktree:/abs/path) with the other tools. " +
			"base is a commit-ish (default: the launch workspace's HEAD); path an absolute directory outside the launch repository (default: a sibling of it named <repo>-<branch with / as ->). " +
			"Refuses an existing branch or path, a branch name git refuses (git check-ref-format), a base that does not resolve, and a launch directory that is not in a git repository. Available whether or not the branch gate matches.",
		Input: mcpkit.Object(mcpkit.Schema{
			"branch": mcpkit.With(mcpkit.Str(`new branch name, e.g. "agent/fix-1"`), "minLength", 1, "maxLength", MaxBranchBytes),
			"base":   mcpkit.Str("commit-ish to start from (default: the launch workspace's HEAD)"),
			"path":   mcpkit.Str("absolute path of the new worktree (default: a sibling of the launch repository)"),
		}, "branch"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"workspace": mcpkit.Str("workspace ID of the new worktree, worktree:/abs/path"),
			"root":      mcpkit.Str("absolute path of the new worktree"),
			"branch":    mcpkit.Str("the new branch"),
			"head":      mcpkit.Str("its HEAD commit id"),
		}, "workspace", "root", "branch", "head"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: false},
	}
}

type worktreeCreateArgs struct {
	Branch string `json:"branch"`
	Base   string `json:"base"`
	Path   string `json:"path"`
}

type worktreeData struct {
	Workspace string `json:"workspace"`
	Root      string `json:"root"`
	Branch    string `json:"branch"`
	Head      string `json:"head,omitempty"`
	Forced    bool   `json:"forced,omitempty"`
}

// ErrWorktree is wrapped when worktree_create or worktree_remove refuses.
var ErrWorktree = errors.New("worktree refused")

func (l *Local) worktreeCreate(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a worktreeCreateArgs
	if err := mcpkit.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	launch := l.launchWorkspace()
	repo := launch.gitRepo()
	if repo == nil {
		return nil, fmt.Errorf("%w: the launch directory %s is not in a git repository; worktree_create makes linked worktrees of the launch repository", ErrWorktree, l.launch)
	}
	if glob := l.cfg.RequireBranch; glob != "" {
		if ok, _ := path.Match(glob, a.Branch); !ok {
			return nil, fmt.Errorf("%w: branch %q does not match --require-branch %q; worktree_create makes branches to work on inside the gate, so name it to match (for example %s)", ErrWorktree, a.Branch, glob, strings.ReplaceAll(glob, "*", "fix-1"))
		}
	}
	top := repo.worktree
	if _, err := runGit(ctx, top, "check-ref-format", "--branch", a.Branch); err != nil || strings.HasPrefix(a.Branch, "-") {
		return nil, fmt.Errorf("%w: %q is not a valid branch name (git check-ref-format --branch refuses it)", ErrWorktree, a.Branch)
	}
	if _, err := runGit(ctx, top, "show-ref", "--verify", "--quiet", "refs/heads/"+a.Branch); err == nil {
		return nil, fmt.Errorf("%w: branch %q already exists; choose a new name (worktree_create never reuses a branch)", ErrWorktree, a.Branch)
	}
	base := a.Base
	if base == "" {
		base = "HEAD"
	}
	head, err := runGit(ctx, l.launch, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("%w: base %q does not resolve to a commit in the launch repository", ErrWorktree, base)
	}
	dir, err := l.worktreePath(a, top)
	if err != nil {
		return nil, err
	}
	// The branch first: git creates it under a ref lock, so of two servers
	// racing for the same branch exactly one gets it; the loser has made
	// nothing.
	if _, err := runGit(ctx, top, "branch", "--no-track", "--", a.Branch, head); err != nil {
		return nil, fmt.Errorf("%w: creating branch %q: %v (another session may have just created it)", ErrWorktree, a.Branch, err)
	}
	if _, err := runGit(ctx, top, "worktree", "add", "--", dir, a.Branch); err != nil {
		// Undo the branch this call made, so nothing is left half-made.
		if _, derr := runGit(context.WithoutCancel(ctx), top, "branch", "-D", "--", a.Branch); derr != nil {
			err = fmt.Errorf("%v; removing the branch again failed too: %v", err, derr)
		}
		return nil, fmt.Errorf("%w: git worktree add %s: %v", ErrWorktree, dir, err)
	}
	l.created.Store(dir, a.Branch)
	id := KindWorktree + ":" + dir
	w := workspace{WorkspaceRef: WorkspaceRef{ID: id, Root: dir, Kind: KindWorktree}}
	return l.success(w, worktreeData{Workspace: id, Root: dir, Branch: a.Branch, Head: head})
}

// worktreePath returns the new worktree's directory: a.Path, or a sibling
// of the repository's top directory named after the branch. It must be
// absolute, outside the repository and not exist yet.
func (l *Local) worktreePath(a worktreeCreateArgs, top string) (string, error) {
	dir := a.Path
	if dir == "" {
		dir = filepath.Join(filepath.Dir(top), filepath.Base(top)+"-"+strings.ReplaceAll(a.Branch, "/", "-"))
	}
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%w: path %q is not absolute", ErrWorktree, a.Path)
	}
	dir = filepath.Clean(dir)
	parent := realPath(filepath.Dir(dir))
	if rt := realPath(top); parent == rt || strings.HasPrefix(parent+string(filepath.Separator), rt+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: path %s is inside the launch repository %s; a worktree goes next to it, never inside", ErrWorktree, dir, top)
	}
	if _, err := os.Lstat(dir); err == nil {
		return "", fmt.Errorf("%w: path %s already exists; choose another path", ErrWorktree, dir)
	}
	if fi, err := os.Stat(filepath.Dir(dir)); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%w: the parent directory of %s does not exist", ErrWorktree, dir)
	}
	return filepath.Join(parent, filepath.Base(dir)), nil
}

// runGit runs git in dir (bounded by WorktreeGitTimeout) and returns its
// trimmed stdout; an error carries git's stderr.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, WorktreeGitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("%s", msg)
		}
		return "", err
	}
	return strings.TrimSpace(stdout.String()), nil
}

// gitEnv is the server's environment without the variables that would
// point git at another repository.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0")
}
