//go:build unix

package statcache

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/thalix/tv/internal/fastio"
)

// TestMappedCutShort: a cache file truncated while it is mapped makes the
// read fault; the decode reports an unusable cache instead of crashing
// the process.
func TestMappedCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache")
	data := append([]byte(Magic), make([]byte, 64<<10)...)
	data[len(Magic)] = 0xff // a snapshot length that sends the decoder through every page
	data[len(Magic)+1] = 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mapped, release, err := fastio.MapFile(path, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	c, err := decodeMapped(mapped, true)
	if c != nil || err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("decode of a truncated mapping = %v, %v; want the fault reported as an error", c, err)
	}
}

// TestRetainedMapping: after RetainMappings(true), Load reads the same cache
// (header, files, listings, a record appended after the snapshot) as
// without it, and its paths point into the file's mapping, not into a
// copy on the heap; a cache file replaced later does not change the
// loaded one.
func TestRetainedMapping(t *testing.T) {
	c := sampleCache()
	path := save(t, c)
	loaded, err := Load(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := loaded.Append(path, &Record{Baseline: [20]byte{2}, Set: []Entry{{Path: "a/d.md", Mode: 0o100644}}}, 1<<62); err != nil {
		t.Fatal(err)
	}
	copied, err := Load(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	RetainMappings(true)
	defer RetainMappings(false)
	retained, err := Load(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(retained.Header, copied.Header) || !reflect.DeepEqual(retained.Files, copied.Files) || !reflect.DeepEqual(retained.Dirs, copied.Dirs) {
		t.Fatalf("retained load\n%+v\n%+v\ncopied load\n%+v\n%+v", retained.Header, retained.Files, copied.Header, copied.Files)
	}
	if len(retained.Files) != 3 {
		t.Fatalf("retained load has %d files, want 3 (the appended record applied)", len(retained.Files))
	}
	if !inMappingOf(t, path, retained.Files[0].Path) || inMappingOf(t, path, copied.Files[0].Path) {
		t.Errorf("retained path in the file's mapping: %v, copied path there: %v (want true, false)",
			inMappingOf(t, path, retained.Files[0].Path), inMappingOf(t, path, copied.Files[0].Path))
	}
	if err := c.Save(path, 1<<62); err != nil { // replaces the file: a new inode
		t.Fatal(err)
	}
	if retained.Files[0].Path != "a/b.md" || retained.Files[2].Path != "a/d.md" {
		t.Fatalf("retained cache changed with the file: %q, %q", retained.Files[0].Path, retained.Files[2].Path)
	}
}

// TestLargeCacheNotRetained: a cache file over MaxRetainedBytes is not
// left mapped, retention on or not: its strings are copied out and the
// mapping released (a 100k-file tree's 17 MB of file pages are not kept
// on top of the heap).
func TestLargeCacheNotRetained(t *testing.T) {
	c := &Cache{Header: testHeader(), Dirs: map[string]*Dir{}}
	for i := 0; len(c.Files)*64 < 2*MaxRetainedBytes; i++ {
		c.Files = append(c.Files, Entry{Path: fmt.Sprintf("d%03d/note-%06d.md", i/1000, i), Mode: 0o100644, ID: [20]byte{byte(i)}, Stamp: fastio.Stamp{Size: int64(i), Mtime: 5, Ino: uint64(i)}})
	}
	path := save(t, c)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() <= MaxRetainedBytes {
		t.Fatalf("the test's cache file is %d bytes, not over MaxRetainedBytes (%d)", fi.Size(), MaxRetainedBytes)
	}
	RetainMappings(true)
	defer RetainMappings(false)
	loaded, err := Load(path, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Files) != len(c.Files) || loaded.Files[len(c.Files)-1].Path != c.Files[len(c.Files)-1].Path {
		t.Fatalf("loaded %d files, want %d", len(loaded.Files), len(c.Files))
	}
	if inMappingOf(t, path, loaded.Files[0].Path) {
		t.Fatalf("a %d-byte cache's paths point into its mapping; want them copied out (over MaxRetainedBytes)", fi.Size())
	}
	if mapped(t, path) {
		t.Fatalf("the %d-byte cache file is still mapped after Load", fi.Size())
	}
}

// mapped reports whether the file at path is mapped in this process.
func mapped(t *testing.T, path string) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	return strings.Contains(string(maps), " "+path+"\n")
}

// inMappingOf reports whether s's bytes lie in a mapping of the file at
// path, from /proc/self/maps.
func inMappingOf(t *testing.T, path, s string) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	for _, l := range strings.Split(string(maps), "\n") {
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(l, "%x-%x", &lo, &hi); n == 2 && strings.HasSuffix(l, " "+path) && lo <= p && p < hi {
			return true
		}
	}
	return false
}

// largeCache is a cache of n files in folders of 100, with listings: over
// parallelEntries, it is decoded in parts at once.
func largeCache(n int) *Cache {
	c := &Cache{Header: testHeader(), Dirs: map[string]*Dir{}}
	for i := range n {
		d := fmt.Sprintf("gen/d%03d", i/100)
		name := fmt.Sprintf("f%05d.md", i)
		c.Files = append(c.Files, Entry{Path: d + "/" + name, Mode: 0o100644, ID: [20]byte{byte(i)}, SHA256: [32]byte{byte(i >> 8)},
			Stamp: fastio.Stamp{Size: int64(i), Mtime: int64(i) + 1, Ctime: 2, Ino: uint64(i), Mode: 0o644}})
		if c.Dirs[d] == nil {
			c.Dirs[d] = &Dir{Stamp: fastio.Stamp{Ino: uint64(i)}}
		}
		c.Dirs[d].Entries = append(c.Dirs[d].Entries, fastio.Dirent{Name: name})
	}
	return c
}

// TestLargeCacheParts: a cache large enough to be decoded in parts at
// once reads back whole, whatever its number of files (odd or even
// halves); a flipped byte in any part is refused by the checksum, and a
// mapping cut short under the decode is an error, not a crash, on the
// goroutines that decode parts too (guarded).
func TestLargeCacheParts(t *testing.T) {
	for _, n := range []int{parallelEntries, parallelEntries + 1, 5001} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			c := largeCache(n)
			path := save(t, c)
			got, err := Load(path, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Files, c.Files) || !reflect.DeepEqual(got.Dirs, c.Dirs) || !reflect.DeepEqual(got.Header, c.Header) {
				t.Fatal("the cache read back differs from the one written")
			}
		})
	}
	c := largeCache(5001)
	good, err := os.ReadFile(save(t, c))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []float64{0.2, 0.6, 0.95} { // first half, second half, listings
		t.Run(fmt.Sprintf("flipped at %.0f%%", at*100), func(t *testing.T) {
			bad := append([]byte(nil), good...)
			bad[int(float64(len(bad))*at)] ^= 0x40
			path := filepath.Join(t.TempDir(), "cache")
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(path, 1<<30); err == nil {
				t.Fatal("Load accepted a damaged cache")
			}
		})
	}
	t.Run("cut short while mapped", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "cache")
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
		mapped, release, err := fastio.MapFile(path, int64(len(good)))
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if err := os.Truncate(path, 8192); err != nil {
			t.Fatal(err)
		}
		if c, err := decodeMapped(mapped, true); c != nil || err == nil {
			t.Fatalf("decode of a mapping cut short = %v, %v; want an error", c, err)
		}
		errc := make(chan error)
		go func() {
			errc <- guarded(func() error { return fmt.Errorf("read %d past the end", mapped[len(mapped)-1]) })
		}()
		if err := <-errc; !strings.Contains(fmt.Sprint(err), "changed while it was read") {
			t.Fatalf("a fault on a part's goroutine = %v; want it reported as an error", err)
		}
	})
}
