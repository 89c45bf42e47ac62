package hook

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/thalix/tv/engine"
)

// Options configure PreReceive.
type Options struct {
	// GitDir is the repository; "" is the current directory, where git
	// runs its hooks.
	GitDir string
	// Getenv reads the identity variables (IdentityVars, UserEnv).
	Getenv func(string) string
	// Env is the environment of the git children that read objects and
	// refs; nil inherits this process's (which carries receive-pack's
	// quarantine variables).
	Env []string
	// UserEnv is an installer-configured identity variable, read before
	// IdentityVars.
	UserEnv string
	// Stderr receives one refusal line per problem.
	Stderr io.Writer

	// reads, when set, counts the objects the check reads (tests show
	// that the work follows the change, not the tree).
	reads *atomic.Int64
}

// PreReceive judges a push: it reads git's "old new ref" lines from stdin,
// checks every ref update against tv's rules with the objects of the
// push (read from receive-pack's quarantine) and the vault's current
// grants, and prints one "tv: <code>: <message>" line per problem to
// opts.Stderr. It returns nil to accept the push, an error wrapping
// ErrPushRefused when it printed refusals, or another error when it could
// not judge (the push is refused then too: the hook fails closed).
func PreReceive(ctx context.Context, stdin io.Reader, opts Options) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	rs := &refusals{}
	err := judge(ctx, stdin, opts, rs)
	if ctx.Err() != nil {
		rs.add(CodeRefused, "", "checking the push took longer than %s; push fewer changes at a time", Timeout)
	}
	if len(rs.list) > 0 {
		rs.print(opts.Stderr)
		return fmt.Errorf("%w: %d problem(s)", ErrPushRefused, len(rs.list))
	}
	return err
}

func judge(ctx context.Context, stdin io.Reader, opts Options, rs *refusals) error {
	if err := CheckUserEnv(opts.UserEnv); err != nil {
		return err
	}
	user, from := pusher(opts.Getenv, opts.UserEnv)
	if user == "" {
		vars := strings.Join(IdentityVars, ", ")
		if opts.UserEnv != "" {
			vars = opts.UserEnv + ", " + vars
		}
		rs.add(CodePermission, "", "the server names no pusher (none of %s is set); tv's rules need the authenticated user, so serve this repository behind authentication (see the README's server hook section)", vars)
		return nil
	}
	if err := engine.ValidateUser(user); err != nil {
		rs.add(CodePermission, "", "the pusher's name %q from %s is not a tv user name (letters, digits, '.', '_', '-', '@')", user, from)
		return nil
	}
	cmds, err := ParseCommands(stdin)
	if err != nil {
		rs.add(CodeRefused, "", "malformed hook input: %v", err)
		return nil
	}
	o, err := startObjects(ctx, opts.GitDir, opts.Env)
	if err != nil {
		return err
	}
	o.reads = opts.reads
	c := &checker{ctx: ctx, o: o, user: user, rs: rs, cmds: cmds, opts: opts}
	err = c.run()
	if cerr := o.close(); err == nil && ctx.Err() == nil {
		err = cerr
	}
	return err
}

// listRefs returns the repository's refs under refs/tv/.
func listRefs(ctx context.Context, opts Options) (map[string]engine.Hash, error) {
	cmd := exec.CommandContext(ctx, "git", "for-each-ref", "--format=%(objectname) %(refname)", "refs/tv/")
	cmd.Dir = opts.GitDir
	cmd.Env = opts.Env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%w: git for-each-ref: %v: %s", ErrGit, err, strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, fmt.Errorf("%w: git for-each-ref: %v", ErrGit, err)
	}
	refs := map[string]engine.Hash{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		id, name, ok := strings.Cut(sc.Text(), " ")
		h, err := engine.ParseHash(id)
		if !ok || err != nil {
			return nil, fmt.Errorf("%w: git for-each-ref said %q", ErrGit, sc.Text())
		}
		refs[name] = h
	}
	return refs, nil
}
