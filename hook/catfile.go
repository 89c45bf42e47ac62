package hook

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/thalix/tv/engine"
)

// catFile reads through one `git cat-file --batch-command` child, which
// resolves the quarantine itself (GIT_QUARANTINE_PATH,
// GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES, inherited from
// receive-pack), packed or loose, exactly as receive-pack does.
type catFile struct {
	ctx    context.Context
	gitDir string
	env    []string
	in     *bufio.Writer
	out    *bufio.Reader
	stop   func() error
}

// errMissing: the object is in neither the quarantine nor the repository.
var errMissing = errors.New("object missing")

func startCatFile(ctx context.Context, gitDir string, env []string) (*catFile, error) {
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch-command")
	cmd.Dir = gitDir
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: start git cat-file: %v", ErrGit, err)
	}
	c := &catFile{ctx: ctx, gitDir: gitDir, env: env, in: bufio.NewWriter(stdin), out: bufio.NewReaderSize(stdout, 64<<10)}
	var (
		stopped bool
		stopErr error
	)
	c.stop = func() error {
		if !stopped {
			stopped = true
			stdin.Close()
			if err := cmd.Wait(); err != nil && stderr.Len() > 0 {
				stopErr = fmt.Errorf("%w: git cat-file: %v: %s", ErrGit, err, strings.TrimSpace(stderr.String()))
			}
		}
		return stopErr
	}
	return c, nil
}

func (c *catFile) close() error { return c.stop() }

// broken is the error of a failed exchange with the child: git's own
// complaint when it exited with one (a closed pipe is only its symptom,
// and which end noticed first is a matter of timing), else the pipe's.
func (c *catFile) broken(op string, err error) error {
	if gitErr := c.stop(); gitErr != nil {
		return gitErr
	}
	return fmt.Errorf("%w: %s git cat-file: %v", ErrGit, op, err)
}

// ask sends command ("info" or "contents") for what (an id or a ref) and
// returns the reply's fields: "<id> <type> <size>", or "<what> missing".
func (c *catFile) ask(command, what string) ([]string, error) {
	if _, err := fmt.Fprintf(c.in, "%s %s\n", command, what); err != nil {
		return nil, c.broken("write to", err)
	}
	if err := c.in.Flush(); err != nil {
		return nil, c.broken("write to", err)
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		return nil, c.broken("read from", err)
	}
	f := strings.Fields(line)
	if (len(f) == 2 && f[1] == "missing") || len(f) == 3 {
		return f, nil
	}
	return nil, fmt.Errorf("%w: git cat-file said %q", ErrGit, strings.TrimSpace(line))
}

// header sends command for id and parses the reply header.
func (c *catFile) header(command string, id engine.Hash) (typ string, size int64, err error) {
	f, err := c.ask(command, id.String())
	if err != nil {
		return "", 0, err
	}
	if len(f) == 2 {
		return "", 0, fmt.Errorf("%s: %w", id, errMissing)
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return "", 0, fmt.Errorf("%w: git cat-file said %q", ErrGit, strings.Join(f, " "))
	}
	return f[1], size, nil
}

func (c *catFile) object(id engine.Hash, limit int64) (string, int64, []byte, error) {
	if limit <= 0 {
		typ, size, err := c.header("info", id)
		return typ, size, nil, err
	}
	typ, size, err := c.header("contents", id)
	if err != nil {
		return "", 0, nil, err
	}
	data := make([]byte, min(size, limit))
	if _, err := io.ReadFull(c.out, data); err != nil {
		return "", 0, nil, c.broken("read "+id.String()+" from", err)
	}
	if _, err := io.CopyN(io.Discard, c.out, size-int64(len(data))+1); err != nil { // the rest and the trailing newline
		return "", 0, nil, c.broken("read "+id.String()+" from", err)
	}
	return typ, size, data, nil
}

func (c *catFile) resolve(ref string) (engine.Hash, bool, error) {
	f, err := c.ask("info", ref)
	if err != nil {
		return engine.ZeroHash, false, err
	}
	if len(f) == 2 {
		return engine.ZeroHash, false, nil
	}
	h, err := engine.ParseHash(f[0])
	if err != nil {
		return engine.ZeroHash, false, fmt.Errorf("%w: git cat-file said %q", ErrGit, strings.Join(f, " "))
	}
	return h, true, nil
}

// refs runs `git for-each-ref` (cat-file lists no refs).
func (c *catFile) refs(prefix string) (map[string]engine.Hash, error) {
	cmd := exec.CommandContext(c.ctx, "git", "for-each-ref", "--format=%(objectname) %(refname)", prefix)
	cmd.Dir = c.gitDir
	cmd.Env = c.env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%w: git for-each-ref: %v: %s", ErrGit, err, strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, fmt.Errorf("%w: git for-each-ref: %v", ErrGit, err)
	}
	refs := map[string]engine.Hash{}
	for line := range strings.Lines(string(out)) {
		id, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		h, err := engine.ParseHash(id)
		if !ok || err != nil {
			return nil, fmt.Errorf("%w: git for-each-ref said %q", ErrGit, line)
		}
		refs[name] = h
	}
	return refs, nil
}
