package engine

import (
	"io"
	"os"
	"strings"
	"unsafe"

	"github.com/thalix/tv/atomicfile"
)

// internStrings moves the base's paths and folder-listing names into one
// new allocation of just their bytes. decodeStatCache cuts them from the
// cache file's bytes, which would otherwise stay alive for as long as the
// base: at 100k files 16 MiB, of which the paths are a third (the stamps
// and ids were copied into the entries). A smaller live heap is also less
// for the collector to do.
func (b *base) internStrings() {
	n := 0
	for i := range b.files {
		n += len(b.files[i].path)
	}
	for rel, d := range b.dirs {
		n += len(rel)
		for _, e := range d.entries {
			n += len(e.name)
		}
	}
	arena := make([]byte, 0, n) // never grows: the strings cut from it stay put
	cut := func(s string) string {
		if s == "" {
			return ""
		}
		start := len(arena)
		arena = append(arena, s...)
		return unsafe.String(&arena[start], len(s))
	}
	for i := range b.files {
		b.files[i].path = cut(b.files[i].path)
	}
	if b.dirs != nil {
		dirs := make(map[string]*cachedDir, len(b.dirs))
		for rel, d := range b.dirs {
			for i := range d.entries {
				d.entries[i].name = cut(d.entries[i].name)
			}
			dirs[cut(rel)] = d
		}
		b.dirs = dirs
	}
	h := &b.header
	h.VaultID, h.WorkspaceID, h.WorkspaceName = strings.Clone(h.VaultID), strings.Clone(h.WorkspaceID), strings.Clone(h.WorkspaceName)
	for i := range h.Scope {
		h.Scope[i] = strings.Clone(h.Scope[i])
	}
}

// replaceFileWith is replaceFile with data written by fill, through a
// small buffer, and always synced before the rename: a writer of a large
// file (the manifest of 100k files is 23 MiB) need not hold it whole.
func replaceFileWith(path string, mode os.FileMode, fill func(w io.Writer) error) error {
	return atomicfile.WriteFunc(path, atomicfile.Options{Mode: mode, Sync: atomicfile.SyncData}, fill)
}
