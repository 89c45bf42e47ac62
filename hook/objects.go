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
	"sync"
	"sync/atomic"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
)

// objects reads the objects of a push through one `git cat-file
// --batch-command` child. git resolves the quarantine itself
// (GIT_QUARANTINE_PATH, GIT_OBJECT_DIRECTORY,
// GIT_ALTERNATE_OBJECT_DIRECTORIES, inherited from receive-pack), packed
// or loose; see the package doc for why this is a child process.
type objects struct {
	cmd  *exec.Cmd
	in   *bufio.Writer
	out  *bufio.Reader
	stop func() error

	mu    sync.Mutex
	trees map[engine.Hash][]engine.TreeEntry
	reads *atomic.Int64 // counts requests when set
}

// errMissing: the object is in neither the quarantine nor the repository.
var errMissing = errors.New("object missing")

// errTooLarge: the object is over the size the hook reads of its type.
var errTooLarge = errors.New("object too large")

func startObjects(ctx context.Context, gitDir string, env []string) (*objects, error) {
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
	o := &objects{cmd: cmd, in: bufio.NewWriter(stdin), out: bufio.NewReaderSize(stdout, 64<<10), trees: map[engine.Hash][]engine.TreeEntry{}}
	o.stop = func() error {
		stdin.Close()
		err := cmd.Wait()
		if err != nil && stderr.Len() > 0 {
			return fmt.Errorf("%w: git cat-file: %v: %s", ErrGit, err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	return o, nil
}

func (o *objects) close() error { return o.stop() }

// header sends command ("info" or "contents") for id and parses the reply
// header "<id> <type> <size>".
func (o *objects) header(command string, id engine.Hash) (typ string, size int64, err error) {
	if o.reads != nil {
		o.reads.Add(1)
	}
	if _, err := fmt.Fprintf(o.in, "%s %s\n", command, id); err != nil {
		return "", 0, fmt.Errorf("%w: write to git cat-file: %v", ErrGit, err)
	}
	if err := o.in.Flush(); err != nil {
		return "", 0, fmt.Errorf("%w: write to git cat-file: %v", ErrGit, err)
	}
	line, err := o.out.ReadString('\n')
	if err != nil {
		return "", 0, fmt.Errorf("%w: read from git cat-file: %v", ErrGit, err)
	}
	f := strings.Fields(line)
	if len(f) == 2 && f[1] == "missing" {
		return "", 0, fmt.Errorf("%s: %w", id, errMissing)
	}
	if len(f) != 3 {
		return "", 0, fmt.Errorf("%w: git cat-file said %q", ErrGit, strings.TrimSpace(line))
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return "", 0, fmt.Errorf("%w: git cat-file said %q", ErrGit, strings.TrimSpace(line))
	}
	return f[1], size, nil
}

// resolve returns the object a ref points at, with ok false when the ref
// does not exist. It spares the hook a `git for-each-ref` on every push.
func (o *objects) resolve(ref string) (engine.Hash, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.reads != nil {
		o.reads.Add(1)
	}
	if _, err := fmt.Fprintf(o.in, "info %s\n", ref); err != nil {
		return engine.ZeroHash, false, fmt.Errorf("%w: write to git cat-file: %v", ErrGit, err)
	}
	if err := o.in.Flush(); err != nil {
		return engine.ZeroHash, false, fmt.Errorf("%w: write to git cat-file: %v", ErrGit, err)
	}
	line, err := o.out.ReadString('\n')
	if err != nil {
		return engine.ZeroHash, false, fmt.Errorf("%w: read from git cat-file: %v", ErrGit, err)
	}
	f := strings.Fields(line)
	if len(f) == 2 && f[1] == "missing" {
		return engine.ZeroHash, false, nil
	}
	if len(f) != 3 {
		return engine.ZeroHash, false, fmt.Errorf("%w: git cat-file said %q", ErrGit, strings.TrimSpace(line))
	}
	h, err := engine.ParseHash(f[0])
	if err != nil {
		return engine.ZeroHash, false, fmt.Errorf("%w: git cat-file said %q", ErrGit, strings.TrimSpace(line))
	}
	return h, true, nil
}

// info returns an object's type and size without reading it.
func (o *objects) info(id engine.Hash) (string, int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.header("info", id)
}

// read returns the content of object id of type want, reading at most
// limit bytes of it (more is drained and errTooLarge, unless keepPrefix,
// when the first limit bytes are returned with truncated set).
func (o *objects) read(id engine.Hash, want string, limit int64, keepPrefix bool) (data []byte, truncated bool, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	typ, size, err := o.header("contents", id)
	if err != nil {
		return nil, false, err
	}
	keep := min(size, limit)
	data = make([]byte, keep)
	if _, err := io.ReadFull(o.out, data); err != nil {
		return nil, false, fmt.Errorf("%w: read %s from git cat-file: %v", ErrGit, id, err)
	}
	if _, err := io.CopyN(io.Discard, o.out, size-keep+1); err != nil { // the rest and the trailing newline
		return nil, false, fmt.Errorf("%w: read %s from git cat-file: %v", ErrGit, id, err)
	}
	switch {
	case typ != want:
		return nil, false, fmt.Errorf("%s is a %s, not a %s", id, typ, want)
	case size > limit && !keepPrefix:
		return nil, false, fmt.Errorf("%s is a %s of %d bytes, over the %d-byte limit: %w", id, typ, size, limit, errTooLarge)
	}
	return data, size > limit, nil
}

// tree returns the entries of tree id (modes as stored), cached.
func (o *objects) tree(id engine.Hash) ([]engine.TreeEntry, error) {
	o.mu.Lock()
	t, ok := o.trees[id]
	o.mu.Unlock()
	if ok {
		return t, nil
	}
	data, _, err := o.read(id, "tree", MaxTreeBytes, false)
	if err != nil {
		return nil, err
	}
	t, err = gitbackend.DecodeTree(id, data)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.trees[id] = t
	o.mu.Unlock()
	return t, nil
}

// commit returns commit id.
func (o *objects) commit(id engine.Hash) (*engine.Commit, error) {
	data, _, err := o.read(id, "commit", MaxCommitBytes, false)
	if err != nil {
		return nil, err
	}
	return gitbackend.DecodeCommit(id, data)
}

// blobSize returns the size of blob id.
func (o *objects) blobSize(id engine.Hash) (int64, error) {
	typ, size, err := o.info(id)
	if err != nil {
		return 0, err
	}
	if typ != "blob" {
		return 0, fmt.Errorf("%s is a %s, not a blob", id, typ)
	}
	return size, nil
}
