package hook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
)

// source is where the hook reads the repository's refs and the push's
// objects: in-process (gitbackend.PushReader) when the layout allows,
// else one `git cat-file --batch-command` child (see the package doc).
type source interface {
	// object returns id's type, size and first min(size, limit) bytes
	// (limit 0 reads only the header). A missing object is an error that
	// does not wrap ErrGit.
	object(id engine.Hash, limit int64) (typ string, size int64, data []byte, err error)
	// resolve returns the object a ref points at; ok is false when the
	// ref does not exist.
	resolve(ref string) (h engine.Hash, ok bool, err error)
	// refs returns the repository's refs under prefix.
	refs(prefix string) (map[string]engine.Hash, error)
	close() error
}

// errTooLarge: the object is over the size the hook reads of its type.
var errTooLarge = errors.New("object too large")

// openSource reads in-process when gitbackend.OpenPushReader takes the
// repository and quarantine as they are, else starts git.
func openSource(ctx context.Context, opts Options) (source, error) {
	opened := opts.opened
	if opened == nil {
		opened = func(string) {}
	}
	if !opts.readWithGit {
		r, err := gitbackend.OpenPushReader(opts.GitDir, opts.gitEnv)
		if err == nil {
			opened("in-process")
			return &pushReader{ctx: ctx, r: r}, nil
		}
		// Any other layout, or a repository it cannot open: git reads
		// it exactly as receive-pack does, or says what is wrong.
	}
	opened("git")
	return startCatFile(ctx, opts.GitDir, opts.Env)
}

// pushReader is the in-process source.
type pushReader struct {
	ctx context.Context
	r   *gitbackend.PushReader
}

func (p *pushReader) object(id engine.Hash, limit int64) (string, int64, []byte, error) {
	typ, size, data, err := p.r.Object(p.ctx, id, limit)
	switch {
	case err == nil:
		return typ, size, data, nil
	case errors.Is(err, engine.ErrObjectNotFound), p.ctx.Err() != nil:
		return "", 0, nil, err
	}
	return "", 0, nil, fmt.Errorf("%w: %v", ErrGit, err)
}

func (p *pushReader) resolve(ref string) (engine.Hash, bool, error) {
	h, err := p.r.Ref(p.ctx, ref)
	switch {
	case err == nil:
		return h, true, nil
	case errors.Is(err, engine.ErrRefNotFound):
		return engine.ZeroHash, false, nil
	}
	return engine.ZeroHash, false, fmt.Errorf("%w: %v", ErrGit, err)
}

func (p *pushReader) refs(prefix string) (map[string]engine.Hash, error) {
	list, err := p.r.ListRefs(p.ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrGit, err)
	}
	out := make(map[string]engine.Hash, len(list))
	for _, r := range list {
		out[r.Name] = r.Hash
	}
	return out, nil
}

func (p *pushReader) close() error { return p.r.Close() }

// objects reads and decodes the objects the check needs, with size
// limits and a tree cache, from one source.
type objects struct {
	src source

	mu    sync.Mutex // serializes src (a cat-file child answers in order)
	trees map[engine.Hash][]engine.TreeEntry
	reads *atomic.Int64 // counts requests when set
}

func newObjects(src source, reads *atomic.Int64) *objects {
	return &objects{src: src, trees: map[engine.Hash][]engine.TreeEntry{}, reads: reads}
}

func (o *objects) close() error { return o.src.close() }

func (o *objects) count() {
	if o.reads != nil {
		o.reads.Add(1)
	}
}

// resolve returns the object a ref points at, with ok false when the ref
// does not exist.
func (o *objects) resolve(ref string) (engine.Hash, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.count()
	return o.src.resolve(ref)
}

// refs returns the repository's refs under prefix.
func (o *objects) refs(prefix string) (map[string]engine.Hash, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.src.refs(prefix)
}

// read returns the content of object id of type want, reading at most
// limit bytes of it (more is errTooLarge, unless keepPrefix, when the
// first limit bytes are returned with truncated set).
func (o *objects) read(id engine.Hash, want string, limit int64, keepPrefix bool) (data []byte, truncated bool, err error) {
	o.mu.Lock()
	o.count()
	typ, size, data, err := o.src.object(id, limit)
	o.mu.Unlock()
	switch {
	case err != nil:
		return nil, false, err
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
	o.mu.Lock()
	o.count()
	typ, size, _, err := o.src.object(id, 0)
	o.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if typ != "blob" {
		return 0, fmt.Errorf("%s is a %s, not a blob", id, typ)
	}
	return size, nil
}
