package mcptools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/thalix/tv/internal/regfile"
)

// Git state is read from the repository files directly (HEAD, refs,
// packed-refs, worktrees/*/gitdir): go-git has no API for linked worktrees
// and only gitbackend may import it. Only the dirty flag runs `git status`
// (when git is installed), bounded by DirtyTimeout: it uses git's index
// stat cache, so it stays fast on big trees where re-hashing would not.
//
// Every file discovery reads goes through readGitFile: a regular file,
// opened without blocking (a FIFO or /dev/zero is refused, not read), at
// most MaxGitFileBytes (MaxPackedRefsBytes for packed-refs) and
// DiscoveryReadTimeout per read, so a hostile or broken repository cannot
// hang workspace_list or grow the server.

// readGitFile reads one small repository file for discovery.
func readGitFile(path string) ([]byte, error) {
	return regfile.Read(path, MaxGitFileBytes, DiscoveryReadTimeout)
}

// gitRepo locates the repository of a worktree.
type gitRepo struct {
	worktree string // the worktree's top directory
	gitDir   string // its git directory (.git, or .git/worktrees/NAME)
	common   string // the common directory (shared refs, objects, worktrees/)
}

// findRepo finds the git repository containing dir (dir or an ancestor
// holding .git). ok is false when there is none.
func findRepo(dir string) (gitRepo, bool) {
	for d := dir; ; {
		if r, ok := openWorktree(d); ok {
			return r, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return gitRepo{}, false
		}
		d = parent
	}
}

// openWorktree reads the .git entry of a worktree top directory.
func openWorktree(top string) (gitRepo, bool) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return gitRepo{}, false
	}
	gitDir := dotgit
	if fi.Mode().IsRegular() {
		b, err := readGitFile(dotgit)
		if err != nil {
			return gitRepo{}, false
		}
		p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return gitRepo{}, false
		}
		p = strings.TrimSpace(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(top, p)
		}
		gitDir = filepath.Clean(p)
	} else if !fi.IsDir() {
		return gitRepo{}, false
	}
	if fi, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return gitRepo{}, false
	}
	common := gitDir
	if b, err := readGitFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	}
	return gitRepo{worktree: top, gitDir: gitDir, common: common}, true
}

// worktrees returns the top directories of every worktree of the
// repository: the main one (when the repository is not bare) and each
// linked one listed in $GIT_COMMON_DIR/worktrees/*/gitdir whose
// directory still exists. A listed worktree counts only when its own .git
// file points back to that same admin directory and common directory, as
// `git worktree` makes them: a gitdir file naming some other repository
// does not make it a workspace.
func (r gitRepo) worktrees() []gitRepo {
	var out []gitRepo
	if filepath.Base(r.common) == ".git" {
		if m, ok := openWorktree(filepath.Dir(r.common)); ok && samePath(m.gitDir, r.common) {
			out = append(out, m)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(r.common, "worktrees"))
	for _, e := range ents {
		admin := filepath.Join(r.common, "worktrees", e.Name())
		b, err := readGitFile(filepath.Join(admin, "gitdir"))
		if err != nil {
			continue
		}
		p := strings.TrimSpace(string(b))
		if !filepath.IsAbs(p) {
			p = filepath.Join(admin, p)
		}
		w, ok := openWorktree(filepath.Dir(filepath.Clean(p)))
		if ok && samePath(w.gitDir, admin) && samePath(w.common, r.common) {
			out = append(out, w)
		}
	}
	return out
}

// samePath reports whether two paths name the same directory (after
// symlinks).
func samePath(a, b string) bool { return realPath(a) == realPath(b) }

// GitState is a worktree's HEAD.
type GitState struct {
	Branch   string `json:"branch"`   // short branch name; "" when detached
	Head     string `json:"head"`     // commit id; "" on an unborn branch
	Detached bool   `json:"detached"` // HEAD names a commit, not a branch
}

// head reads HEAD of the worktree.
func (r gitRepo) head() GitState {
	h, _ := r.readHead()
	return h
}

// readHead reads HEAD of the worktree; an error means HEAD could not be
// read as a small regular file (see readGitFile).
func (r gitRepo) readHead() (GitState, error) {
	b, err := readGitFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return GitState{}, err
	}
	h := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(h, "ref:")
	if !ok {
		return GitState{Head: h, Detached: true}, nil
	}
	ref = strings.TrimSpace(ref)
	return GitState{Branch: strings.TrimPrefix(ref, "refs/heads/"), Head: r.resolveRef(ref)}, nil
}

// resolveRef reads a ref from loose files (per-worktree dir first) or
// packed-refs, following symbolic refs a few levels.
func (r gitRepo) resolveRef(ref string) string {
	for range 5 {
		var v string
		for _, dir := range []string{r.gitDir, r.common} {
			if b, err := readGitFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
				v = strings.TrimSpace(string(b))
				break
			}
		}
		if v == "" {
			return r.packedRef(ref)
		}
		next, ok := strings.CutPrefix(v, "ref:")
		if !ok {
			return v
		}
		ref = strings.TrimSpace(next)
	}
	return ""
}

func (r gitRepo) packedRef(ref string) string {
	b, err := regfile.Read(filepath.Join(r.common, "packed-refs"), MaxPackedRefsBytes, DiscoveryReadTimeout)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		id, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref {
			return id
		}
	}
	return ""
}

// errNoGit reports that git is not installed (dirty state unknown).
var errNoGit = errors.New("git is not installed; dirty state unknown")

// dirty reports whether the worktree at dir has changes (tracked or
// untracked, ignored files excepted), by `git status --porcelain`. It
// stops at the first line of output.
func dirty(ctx context.Context, dir string) (bool, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return false, errNoGit
	}
	ctx, cancel := context.WithTimeout(ctx, DirtyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, "--no-optional-locks", "-C", dir, "status", "--porcelain", "--untracked-files=normal", "--ignore-submodules=dirty")
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return false, err
	}
	var first [1]byte
	n, _ := out.Read(first[:])
	if n > 0 {
		cancel()
		cmd.Wait()
		return true, nil
	}
	werr := cmd.Wait()
	if ctx.Err() == context.DeadlineExceeded {
		return false, errors.New("git status took longer than " + DirtyTimeout.String() + "; dirty state unknown")
	}
	if werr != nil {
		return false, errors.New("git status failed: " + strings.TrimSpace(stderr.String()))
	}
	return false, nil
}
