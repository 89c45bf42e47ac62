package hook

import (
	"context"
	"fmt"
	"io"
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
	// readWithGit makes the hook read through git even where it could
	// read in-process (tests judge both readers).
	readWithGit bool
	// opened, when set, learns which reader the hook uses: "in-process"
	// or "git".
	opened func(reader string)
}

// gitEnv reads a variable of the environment git would run in: Env when
// set, else Getenv.
func (opts Options) gitEnv(key string) string {
	if opts.Env == nil {
		return opts.Getenv(key)
	}
	val := ""
	for _, kv := range opts.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			val = v // the last one wins, as in exec
		}
	}
	return val
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
	src, err := openSource(ctx, opts)
	if err != nil {
		return err
	}
	o := newObjects(src, opts.reads)
	c := &checker{ctx: ctx, o: o, user: user, rs: rs, cmds: cmds}
	err = c.run()
	if cerr := o.close(); err == nil && ctx.Err() == nil {
		err = cerr
	}
	return err
}
