package gitbackend

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
)

// TestPackIndexMapping: loadPackIndex maps the index (a lookup reads a
// few pages, not the file), finds its objects, and the mapping goes away
// once the index is no longer reachable, so a pack merged away and
// deleted does not keep its file alive in a long-running server.
func TestPackIndexMapping(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "", "init", "-q", "--bare")
	id := git(t, dir, "a blob to pack\n", "hash-object", "-w", "--stdin")
	git(t, dir, id+"\n", "pack-objects", "-q", filepath.Join(dir, "objects", "pack", "pack"))
	idxs, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.idx"))
	if err != nil || len(idxs) != 1 {
		t.Fatalf("packs: %v, %v", idxs, err)
	}
	path := idxs[0]
	name := strings.TrimSuffix(filepath.Base(path), ".idx")

	mapped := func() bool {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Skipf("no /proc/self/maps: %v", err)
		}
		return strings.Contains(string(maps), path)
	}
	load := func() {
		idx, err := loadPackIndex(path, name)
		if err != nil {
			t.Fatal(err)
		}
		h, err := engine.ParseHash(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := idx.find(h); !ok {
			t.Fatalf("%s not found in %s", id, name)
		}
		if !mapped() {
			t.Fatalf("%s is not mapped", path)
		}
	}
	load()
	for i := 0; i < 100 && mapped(); i++ {
		runtime.GC() // the cleanup runs after a collection finds the index unreachable
		runtime.Gosched()
	}
	if mapped() {
		t.Fatalf("%s is still mapped after its index became unreachable", path)
	}
}
