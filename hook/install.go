package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/thalix/tv/atomicfile"
)

// scriptMarker is the comment that marks a hook script tv wrote.
const scriptMarker = "# Installed by `tv hook install`"

// InstallOptions configure Install.
type InstallOptions struct {
	// Tv is the absolute path of the tv binary the hook script execs.
	Tv string
	// UserEnv is an extra identity variable the hook reads first ("" for
	// none): the name a plain ssh or custom server sets for the pusher.
	UserEnv string
	// HookFile is where the script goes, relative to the repository's hooks
	// directory: "pre-receive" (the default), or e.g.
	// "pre-receive.d/tv" for Gitea and Forgejo.
	HookFile string
	// Env is the environment of the git children; nil inherits this process's.
	Env []string
	// MarkerOnly creates EnforcedRef and writes no script: for servers
	// that install hooks their own way (GitLab's `gitaly hooks set`,
	// gitolite's repo-specific hooks).
	MarkerOnly bool
}

// Installed says what Install did.
type Installed struct {
	Hook          string `json:"hook"`           // the script's path ("" with MarkerOnly)
	HookChanged   bool   `json:"hook_changed"`   // false: it was already there, identical
	Enforced      string `json:"enforced"`       // the marker commit's id
	MarkerCreated bool   `json:"marker_created"` // false: the marker ref existed
}

// Install puts the pre-receive hook into the bare repository repo — a
// small script that execs opts.Tv, so upgrading tv upgrades the hook —
// and creates EnforcedRef. It is idempotent. A non-bare repository is
// refused with ErrNotBare; a hook file tv did not write, with
// ErrHookExists (nothing is overwritten).
func Install(ctx context.Context, repo string, opts InstallOptions) (*Installed, error) {
	if err := CheckUserEnv(opts.UserEnv); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(opts.Tv) {
		return nil, fmt.Errorf("%w: the tv binary path %q must be absolute", ErrUsage, opts.Tv)
	}
	if opts.HookFile == "" {
		opts.HookFile = "pre-receive"
	}
	if filepath.IsAbs(opts.HookFile) || strings.Contains("/"+filepath.ToSlash(opts.HookFile)+"/", "/../") {
		return nil, fmt.Errorf("%w: --hook-file %q must be a path inside the hooks directory", ErrUsage, opts.HookFile)
	}
	g := gitIn{ctx: ctx, dir: repo, env: opts.Env}
	bare, err := g.run(nil, "rev-parse", "--is-bare-repository")
	if err != nil || bare != "true" {
		why := "it is a work tree's repository"
		if err != nil {
			why = "git cannot open it as a repository"
		}
		return nil, fmt.Errorf("%w: %s: %s; the hook belongs in the server's bare repository (create one with `git init --bare %s`)", ErrNotBare, repo, why, repo)
	}
	hooks, err := g.run(nil, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return nil, err
	}
	out := &Installed{}
	if !opts.MarkerOnly {
		out.Hook = filepath.Join(hooks, opts.HookFile)
		if out.HookChanged, err = writeScript(out.Hook, Script(opts.Tv, opts.UserEnv)); err != nil {
			return nil, err
		}
	}
	out.Enforced, out.MarkerCreated, err = g.marker()
	return out, err
}

// Script is the hook script Install writes: it runs tv (at the absolute
// path tv) as "tv hook pre-receive", with --user-env userEnv if set.
//
// On Linux, when tv's path can stand in a "#!" line (no white space or
// control characters, the line at most MaxShebangLine bytes), the script
// names tv as its interpreter, so the kernel execs tv directly: tv gets
// the line's arguments as one word and the script's path after it (see
// ShebangArgs). A push then starts one process, not a shell that execs
// tv — about 5 ms less per push here. Elsewhere, or for any other path,
// it is a /bin/sh script that execs tv. Both forms run the tv binary at
// that path, so upgrading tv upgrades the hook.
func Script(tv, userEnv string) []byte {
	args := "hook pre-receive"
	if userEnv != "" {
		args += " --user-env " + userEnv
	}
	if line := "#!" + tv + " " + args; runtime.GOOS == "linux" && len(line) <= MaxShebangLine && shebangSafe(tv) {
		return fmt.Appendf(nil, "%s\n%s: tv's rules for this vault.\n# The kernel runs `%s %s` (the line above) on every push.\n# Reinstall with `tv hook install` after moving tv.\n", line, scriptMarker, tv, args)
	}
	return fmt.Appendf(nil, "#!/bin/sh\n%s: tv's rules for this vault.\n# Reinstall with `tv hook install` after moving tv.\nexec %s %s\n", scriptMarker, shellQuote(tv), args)
}

// shebangSafe reports whether path can be a "#!" line's interpreter:
// printable ASCII without white space (the kernel ends the interpreter
// at the first blank).
func shebangSafe(path string) bool {
	for i := 0; i < len(path); i++ {
		if c := path[i]; c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return path != ""
}

// ShebangArgs undoes the kernel's packing of a hook script's "#!" line
// (see Script): Linux passes everything after the interpreter as one
// argument and then the script's path, so tv's arguments arrive as
// ["hook pre-receive --user-env VAR", "/srv/git/vault.git/hooks/pre-receive"].
// It returns the line's words and true for that shape, or args and false.
func ShebangArgs(args []string) ([]string, bool) {
	if len(args) != 2 || !strings.HasPrefix(args[0], "hook pre-receive") || !strings.ContainsAny(args[0], " \t") {
		return args, false
	}
	return strings.Fields(args[0]), true
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// writeScript writes the hook script unless an identical one is there;
// it refuses to replace a file tv did not write.
func writeScript(p string, text []byte) (bool, error) {
	cur, err := os.ReadFile(p)
	switch {
	case err == nil && bytes.Equal(cur, text):
		return false, nil
	case err == nil && !bytes.Contains(cur, []byte(scriptMarker)):
		return false, fmt.Errorf("%w: %s exists; move it aside (or chain it from a pre-receive.d directory) and run `tv hook install` again", ErrHookExists, p)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, err
	}
	return true, atomicfile.Write(p, text, 0o755)
}

// gitIn runs git in one repository.
type gitIn struct {
	ctx context.Context
	dir string
	env []string
}

func (g gitIn) run(stdin []byte, args ...string) (string, error) {
	cmd := exec.CommandContext(g.ctx, "git", args...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: git %s: %v: %s", ErrGit, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// marker creates EnforcedRef when missing and returns its commit.
func (g gitIn) marker() (string, bool, error) {
	if id, err := g.run(nil, "rev-parse", "--verify", "--quiet", EnforcedRef+"^{commit}"); err == nil && id != "" {
		return id, false, nil
	}
	tree, err := g.run([]byte{}, "hash-object", "-t", "tree", "-w", "--stdin")
	if err != nil {
		return "", false, err
	}
	msg := fmt.Sprintf("tv hook pre-receive enforces tv's rules on this vault\n\n%s: %s\n", HookVersionTrailer, HookVersion)
	g.env = append(append([]string(nil), envOrProcess(g.env)...),
		"GIT_AUTHOR_NAME=tv hook install", "GIT_AUTHOR_EMAIL=tv@tv.local",
		"GIT_COMMITTER_NAME=tv hook install", "GIT_COMMITTER_EMAIL=tv@tv.local")
	commit, err := g.run([]byte(msg), "commit-tree", tree)
	if err != nil {
		return "", false, err
	}
	if _, err := g.run(nil, "update-ref", "-m", "tv hook install", EnforcedRef, commit, ""); err != nil {
		return "", false, err
	}
	return commit, true, nil
}

// envOrProcess returns env, or this process's environment when env is nil.
func envOrProcess(env []string) []string {
	if env == nil {
		return os.Environ()
	}
	return env
}
