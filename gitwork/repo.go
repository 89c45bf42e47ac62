package gitwork

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Repo is a git work tree.
type Repo struct {
	// Top is the work tree's root, absolute.
	Top string
	// GitDir is its git directory: Top/.git, or where a .git file (a
	// linked worktree, a submodule's checkout) points.
	GitDir string
}

// Find returns the work tree holding dir: the nearest of dir and its
// parents that has a .git entry (a folder, or a file naming the git
// directory), as git finds it. It runs no git. The error wraps
// ErrNotRepository when there is none.
func Find(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; {
		if r, ok := at(d); ok {
			return r, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("%w: no .git in %s or any folder above it", ErrNotRepository, abs)
		}
		d = parent
	}
}

// At returns the work tree whose root is dir, if dir holds a .git.
func At(dir string) (*Repo, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	return at(abs)
}

func at(d string) (*Repo, bool) {
	p := filepath.Join(d, ".git")
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return nil, false
	case fi.IsDir():
		return &Repo{Top: d, GitDir: p}, true
	case fi.Mode().IsRegular() && fi.Size() < 4096:
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, false
		}
		target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
		if !ok {
			return nil, false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(d, target)
		}
		return &Repo{Top: d, GitDir: filepath.Clean(target)}, true
	}
	return nil, false
}

// InfoExclude is the path of the repository's info/exclude file: in the
// common git directory for a linked worktree.
func (r *Repo) InfoExclude() string {
	dir := r.GitDir
	if data, err := os.ReadFile(filepath.Join(r.GitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(r.GitDir, c)
		}
		dir = filepath.Clean(c)
	}
	return filepath.Join(dir, "info", "exclude")
}

// run runs git in the work tree and returns its stdout, bounded by
// MaxListingBytes. A failure carries git's own message.
func (r *Repo) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	return runGit(ctx, r.Top, stdin, args...)
}

func runGit(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	cmd.Stdin = stdin
	var out limitedBuffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if errors.Is(err, exec.ErrNotFound) {
		return nil, fmt.Errorf("%w: %v (tv check --staged/--rev and import --rev run git's plumbing)", ErrNoGit, err)
	}
	if out.over {
		return nil, fmt.Errorf("%w: git %s printed more than %d bytes (MaxListingBytes)", ErrTooLarge, args[0], MaxListingBytes)
	}
	if err != nil {
		return out.Bytes(), &gitError{args: args, err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return out.Bytes(), nil
}

// gitError is a failed git command with its message.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	msg := e.stderr
	if msg == "" {
		msg = e.err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

func (e *gitError) Unwrap() error { return e.err }

// limitedBuffer keeps at most MaxListingBytes.
type limitedBuffer struct {
	bytes.Buffer
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > MaxListingBytes {
		b.over = true
		return 0, ErrTooLarge
	}
	return b.Buffer.Write(p)
}

// Config returns git's value of key as seen from dir (repository,
// global and system configuration), "" when unset or when git is not
// installed.
func Config(ctx context.Context, dir, key string) string {
	out, err := runGit(ctx, dir, nil, "config", "--get", key)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// GlobalExcludes returns the content of git's global excludes file:
// core.excludesFile, else $XDG_CONFIG_HOME/git/ignore, else
// ~/.config/git/ignore; nil when there is none. getenv reads the
// environment (git's own lookup uses the process's).
func GlobalExcludes(ctx context.Context, dir string, getenv func(string) string) ([]byte, error) {
	name, sure := excludesFileFromConfig(dir)
	if !sure {
		name = ""
		if out, err := runGit(ctx, dir, nil, "config", "--path", "--get", "core.excludesFile"); err == nil {
			name = strings.TrimSpace(string(out))
		}
	}
	if name == "" {
		switch {
		case getenv("XDG_CONFIG_HOME") != "":
			name = filepath.Join(getenv("XDG_CONFIG_HOME"), "git", "ignore")
		case getenv("HOME") != "":
			name = filepath.Join(getenv("HOME"), ".config", "git", "ignore")
		default:
			return nil, nil
		}
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("core.excludesFile %s: %w", name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, nil // git skips what it cannot read as a file
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxExcludesBytes+1))
	if err != nil {
		return nil, fmt.Errorf("core.excludesFile %s: %w", name, err)
	}
	if len(data) > MaxExcludesBytes {
		return nil, fmt.Errorf("%w: core.excludesFile %s is over the %d-byte (%d MiB) limit (MaxExcludesBytes)", ErrTooLarge, name, MaxExcludesBytes, MaxExcludesBytes>>20)
	}
	return data, nil
}

// File is one entry of an index or a committed tree.
type File struct {
	Path string // slash path from the work tree's root
	Mode uint32 // git's mode: 0o100644, 0o100755, 0o120000 (symlink)
	ID   string // blob id, hex
	Size int64
}

// Type is the entry's fs type bits: 0 for a regular file, fs.ModeSymlink
// for a symlink.
func (f File) Type() fs.FileMode {
	if f.Mode&0o170000 == 0o120000 {
		return fs.ModeSymlink
	}
	return 0
}

// Executable reports whether the entry has git's executable mode.
func (f File) Executable() bool { return f.Mode == 0o100755 }

// Index lists the files of the index (what `git commit` would record),
// sorted by path, with their sizes. An unmerged entry, a submodule, a
// corrupt index or a missing blob is an error naming the path.
func (r *Repo) Index(ctx context.Context) ([]File, error) {
	out, err := r.run(ctx, nil, "ls-files", "--stage", "-z", "--full-name")
	if err != nil {
		return nil, fmt.Errorf("%w: the index %s cannot be read: %v", ErrBroken, filepath.Join(r.GitDir, "index"), err)
	}
	files, err := parseListing(out, true)
	if err != nil {
		return nil, err
	}
	return files, r.sizes(ctx, files)
}

// Tree lists the files of the tree of rev (a commit, tag or tree name),
// sorted by path, with their sizes. It reads only that tree's objects, so
// it works on a shallow clone. An unknown rev wraps ErrBadRevision; a
// missing object or a submodule is an error naming the path.
func (r *Repo) Tree(ctx context.Context, rev string) ([]File, string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return nil, "", fmt.Errorf("%w: %q (a revision does not start with '-')", ErrBadRevision, rev)
	}
	out, err := r.run(ctx, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{tree}")
	if err != nil {
		return nil, "", fmt.Errorf("%w: %q names no commit or tree in %s", ErrBadRevision, rev, r.Top)
	}
	tree := strings.TrimSpace(string(out))
	out, err = r.run(ctx, nil, "ls-tree", "-r", "-z", "--full-tree", tree)
	if err != nil {
		return nil, "", fmt.Errorf("%w: the tree of %s (%s) cannot be read: %v", ErrBroken, rev, tree, err)
	}
	files, err := parseListing(out, false)
	if err != nil {
		return nil, "", err
	}
	return files, tree, r.sizes(ctx, files)
}

// parseListing parses `ls-files --stage -z` (index: "mode id stage\tpath")
// or `ls-tree -r -z` ("mode type id\tpath") output.
func parseListing(out []byte, index bool) ([]File, error) {
	var files []File
	for len(out) > 0 {
		rec, rest, _ := bytes.Cut(out, []byte{0})
		out = rest
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		fields := strings.Fields(string(meta))
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("%w: unexpected listing line %q", ErrBroken, rec)
		}
		mode, err := strconv.ParseUint(fields[0], 8, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: bad mode in %q", ErrBroken, rec)
		}
		id := fields[1]
		if !index {
			id = fields[2]
		}
		path := string(p)
		switch {
		case index && fields[2] != "0":
			return nil, fmt.Errorf("%w: %s is unmerged in the index (stage %s); resolve the conflict and git add it", ErrBroken, path, fields[2])
		case mode == 0o160000:
			return nil, fmt.Errorf("%w: %s is a submodule (a gitlink, mode 160000); a tv workspace holds no nested repositories", ErrSubmodule, path)
		case mode&0o170000 == 0o040000:
			continue
		}
		files = append(files, File{Path: path, Mode: uint32(mode), ID: id})
	}
	return files, nil
}

// sizes fills the files' sizes with one `git cat-file --batch-check`; a
// missing object is an error naming its path.
func (r *Repo) sizes(ctx context.Context, files []File) error {
	if len(files) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, f := range files {
		in.WriteString(f.ID)
		in.WriteByte('\n')
	}
	out, err := r.run(ctx, &in, "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBroken, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for i := range files {
		if !sc.Scan() {
			return fmt.Errorf("%w: git cat-file stopped before %s", ErrBroken, files[i].Path)
		}
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || fields[1] != "blob" {
			return fmt.Errorf("%w: object %s of %s is missing (a shallow or partial clone lacking it? fetch it, or check a revision whose objects are here)", ErrBroken, files[i].ID, files[i].Path)
		}
		n, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			return fmt.Errorf("%w: bad size %q of %s", ErrBroken, fields[2], files[i].Path)
		}
		files[i].Size = n
	}
	return nil
}
