package gitbackend

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thalix/tv/engine"
)

// In-memory storage. The in-memory vault (NewMemory, used by tests) keeps
// its objects and refs in a memStore rather than in go-git's
// storage/memory: that package links go-git's config package, gcfg and
// encoding/gob, whose package initialisation was measured at ~0.5 ms of
// every tv command's start, whether it opens an in-memory vault or not.

// memObject is one object of an in-memory vault.
type memObject struct {
	typ     int    // typeCommit, typeTree or typeBlob
	content []byte // never modified once stored
}

// memStore holds the objects and refs of an in-memory vault. It does no
// locking of its own: the vault's memMu guards every use.
type memStore struct {
	objects map[engine.Hash]memObject
	refs    map[string]engine.Hash // only hash refs: no symbolic refs in memory
}

// newMemStore returns an empty store.
func newMemStore() *memStore {
	return &memStore{objects: map[engine.Hash]memObject{}, refs: map[string]engine.Hash{}}
}

// hasObject reports whether the store holds object h.
func (s *memStore) hasObject(h engine.Hash) bool {
	_, ok := s.objects[h]
	return ok
}

// object returns object h, or an error wrapping engine.ErrObjectNotFound.
func (s *memStore) object(h engine.Hash) (memObject, error) {
	o, ok := s.objects[h]
	if !ok {
		return memObject{}, fmt.Errorf("%w: %s", engine.ErrObjectNotFound, h)
	}
	return o, nil
}

// setObject stores o under its id h (hashObject of its type and content).
func (s *memStore) setObject(h engine.Hash, o memObject) { s.objects[h] = o }

// ref returns the value of ref name and whether it exists.
func (s *memStore) ref(name string) (engine.Hash, bool) {
	h, ok := s.refs[name]
	return h, ok
}

// listRefs returns the refs whose name starts with prefix, sorted by name.
func (s *memStore) listRefs(prefix string) []engine.Ref {
	out := []engine.Ref{}
	for n, h := range s.refs {
		if strings.HasPrefix(n, prefix) {
			out = append(out, engine.Ref{Name: n, Hash: h})
		}
	}
	slices.SortFunc(out, func(a, b engine.Ref) int { return strings.Compare(a.Name, b.Name) })
	return out
}
