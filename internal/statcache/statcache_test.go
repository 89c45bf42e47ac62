package statcache

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/internal/fastio"
)

func testHeader() Header {
	return Header{
		ManifestStamp: fastio.Stamp{Size: 100, Mtime: 7, Ino: 3}, ManifestBaseline: [20]byte{9},
		Log:     fastio.FileID{Ino: 4, Size: 50},
		VaultID: "vault_0123456789abcdef", WorkspaceID: "ws_abcdefghijklmnopqrst", WorkspaceName: "demo",
		Scope: []string{"a"}, Baseline: [20]byte{1},
	}
}

// sampleCache is a small cache: two files in a folder, both listings.
func sampleCache() *Cache {
	return &Cache{
		Header: testHeader(),
		Files: []Entry{
			{Path: "a/b.md", Mode: 0o100644, ID: [20]byte{5}, SHA256: [32]byte{6}, Stamp: fastio.Stamp{Size: 3, Mtime: 5, Ctime: 6, Ino: 8, Mode: 0o644}},
			{Path: "a/c", Mode: 0o100755},
		},
		Dirs: map[string]*Dir{
			".": {Entries: []fastio.Dirent{{Name: "a", Type: fs.ModeDir}}},
			"a": {Stamp: fastio.Stamp{Ino: 9}, Entries: []fastio.Dirent{{Name: "b.md"}, {Name: "c"}}},
		},
	}
}

// save writes c to a new cache file and returns its path.
func save(t testing.TB, c *Cache) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cache")
	if err := c.Save(path, time.Now().Add(time.Hour).UnixNano()); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRoundTrip: what Save writes, Load reads back, header, files and
// listings alike; Lookup finds every file.
func TestRoundTrip(t *testing.T) {
	c := sampleCache()
	got, err := Load(save(t, c), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Header, c.Header) || !reflect.DeepEqual(got.Files, c.Files) || !reflect.DeepEqual(got.Dirs, c.Dirs) {
		t.Fatalf("read back\n%+v\n%+v\n%+v\nwrote\n%+v\n%+v\n%+v", got.Header, got.Files, got.Dirs, c.Header, c.Files, c.Dirs)
	}
	for i, e := range c.Files {
		if j := got.Lookup(e.Path); j != i {
			t.Errorf("Lookup(%q) = %d, want %d", e.Path, j, i)
		}
	}
	if got.Lookup("a") != -1 || !got.Loaded() || got.WantsRewrite() {
		t.Errorf("Lookup(a) = %d, Loaded = %v, WantsRewrite = %v", got.Lookup("a"), got.Loaded(), got.WantsRewrite())
	}
	if !got.HasUnder("a") || got.HasUnder("b") || got.HasUnder("a/b.md") {
		t.Error("HasUnder is wrong")
	}
}

// TestRoundTripStreamed: a cache many times saveChunk, with recent
// folders left out between kept ones, is streamed in pieces and read
// back whole (the snapshot's length, computed ahead, and the checksum,
// taken piece by piece, both agree with the bytes).
func TestRoundTripStreamed(t *testing.T) {
	now := time.Now().UnixNano()
	old := fastio.Stamp{Size: 3, Mtime: now - int64(time.Hour), Ino: 1}
	recent := fastio.Stamp{Size: 4, Mtime: now, Ino: 2}
	c := &Cache{Header: testHeader(), Dirs: map[string]*Dir{}}
	for d := range 40 {
		rel := fmt.Sprintf("stages/%02d-stage/references", d)
		dir := &Dir{Stamp: old}
		if d%3 == 1 {
			dir.Stamp = recent
		}
		for f := range 100 {
			name := fmt.Sprintf("note-%03d-with-a-longer-name.md", f)
			st := old
			if f%7 == 0 {
				st = recent
			}
			c.Files = append(c.Files, Entry{Path: rel + "/" + name, Mode: 0o100644, ID: [20]byte{byte(d), byte(f)}, Stamp: st})
			dir.Entries = append(dir.Entries, fastio.Dirent{Name: name})
		}
		c.Dirs[rel] = dir
	}
	path := filepath.Join(t.TempDir(), "cache")
	if err := c.Save(path, now-int64(RacySmudge)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() < 4*saveChunk {
		t.Fatalf("cache of %v bytes (%v); the test wants one of several chunks", fi.Size(), err)
	}
	got, err := Load(path, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != len(c.Files) || len(got.Dirs) != 40-13 {
		t.Fatalf("read back %d files, %d folders; want %d, %d", len(got.Files), len(got.Dirs), len(c.Files), 40-13)
	}
	for i := range c.Files {
		want := c.Files[i]
		if want.Stamp == recent {
			want.Stamp = fastio.Stamp{Size: recent.Size}
		}
		if !reflect.DeepEqual(got.Files[i], want) {
			t.Fatalf("file %d read back as %+v, want %+v", i, got.Files[i], want)
		}
	}
	for rel, d := range got.Dirs {
		if !reflect.DeepEqual(d, c.Dirs[rel]) {
			t.Fatalf("folder %s read back as %+v", rel, d)
		}
	}
}

// TestRacy: stamps from racyFrom on are written without their stamp
// (size kept), and recent folders are left out; Clean and Listing vouch
// only for stamps older than the cache file.
func TestRacy(t *testing.T) {
	now := time.Now().UnixNano()
	old := fastio.Stamp{Size: 3, Mtime: now - int64(time.Hour), Ino: 1}
	recent := fastio.Stamp{Size: 4, Mtime: now, Ino: 2}
	c := &Cache{
		Header: testHeader(),
		Files:  []Entry{{Path: "new", Stamp: recent, Mode: 1}, {Path: "old", Stamp: old, Mode: 1}},
		Dirs:   map[string]*Dir{".": {Stamp: old, Entries: []fastio.Dirent{{Name: "x"}}}, "d": {Stamp: recent}},
	}
	path := filepath.Join(t.TempDir(), "cache")
	if err := c.Save(path, now-int64(RacySmudge)); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got.Files[0].Stamp != (fastio.Stamp{Size: 4}) || got.Files[1].Stamp != old {
		t.Fatalf("stamps read back as %+v", got.Files)
	}
	if _, ok := got.Dirs["d"]; ok || got.Dirs["."] == nil {
		t.Fatalf("folders read back as %v", got.Dirs)
	}
	tests := []struct {
		name string
		e    *Entry
		st   fastio.Stamp
		mode uint32
		want bool
	}{
		{"same stamp", &got.Files[1], old, 1, true},
		{"other mode", &got.Files[1], old, 2, false},
		{"other stamp", &got.Files[1], fastio.Stamp{Size: 3, Mtime: old.Mtime, Ino: 5}, 1, false},
		{"unstamped", &got.Files[0], recent, 1, false},
		{"as new as the cache", &Entry{Stamp: fastio.Stamp{Mtime: got.written}, Mode: 1}, fastio.Stamp{Mtime: got.written}, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ok := got.Clean(tt.e, tt.st, tt.mode); ok != tt.want {
				t.Fatalf("Clean = %v, want %v", ok, tt.want)
			}
		})
	}
	if got.Listing(".", old) == nil || got.Listing(".", recent) != nil || got.Listing("d", recent) != nil {
		t.Error("Listing vouches for the wrong stamps")
	}
}

// TestOrder: a cache whose entries are out of order (or duplicated) is
// refused, so lookups and the manifest stay sorted.
func TestOrder(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		ok    bool
	}{
		{"sorted", []string{"a", "a/b", "b"}, true},
		{"unsorted", []string{"b", "a"}, false},
		{"duplicate", []string{"a", "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cache{Header: testHeader()}
			for _, p := range tt.paths {
				c.Files = append(c.Files, Entry{Path: p, Mode: 0o100644})
			}
			got, err := Load(save(t, c), 1<<20)
			if (err == nil) != tt.ok {
				t.Fatalf("Load: %v, want ok=%v", err, tt.ok)
			}
			if got != nil && (len(got.Files) != len(tt.paths) || got.Lookup("a/b") != 1) {
				t.Fatalf("loaded %+v", got.Files)
			}
		})
	}
}

// TestListings: cached folder listings round-trip, and a listing whose
// names are not single elements (or not sorted) refuses the whole cache:
// the scan stats those names relative to their folder.
func TestListings(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		ok    bool
	}{
		{"plain", []string{"a.md", "b", "c d.txt"}, true},
		{"parent", []string{"..", "a"}, false},
		{"dot", []string{"."}, false},
		{"slash", []string{"../../etc/passwd"}, false},
		{"nul", []string{"a\x00b"}, false},
		{"backslash", []string{"..\\x"}, false}, // a separator on Windows
		{"empty", []string{""}, false},
		{"unsorted", []string{"b", "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Dir{Stamp: fastio.Stamp{Mtime: 1, Ino: 7}}
			for _, n := range tt.names {
				d.Entries = append(d.Entries, fastio.Dirent{Name: n})
			}
			c := &Cache{Header: testHeader(), Dirs: map[string]*Dir{".": d}}
			got, err := Load(save(t, c), 1<<20)
			if (err == nil) != tt.ok {
				t.Fatalf("Load: %v, want ok=%v", err, tt.ok)
			}
			if got != nil && !reflect.DeepEqual(got.Dirs, c.Dirs) {
				t.Fatalf("listings read back as %+v", got.Dirs["."])
			}
		})
	}
}

// TestAppend: records appended to the file Load read are applied in
// order when it is read again (the last word on a path wins); a record
// for a file that was replaced meanwhile, or for a cache not loaded, is
// refused with ErrMoved; a torn record ends the file there.
func TestAppend(t *testing.T) {
	c := &Cache{Header: testHeader(), Files: []Entry{{Path: "a", Mode: 1}, {Path: "b", Mode: 1}, {Path: "c", Mode: 1}}}
	path := save(t, c)
	racy := time.Now().Add(time.Hour).UnixNano()
	if err := c.Append(path, &Record{}, racy); !errors.Is(err, ErrMoved) {
		t.Fatalf("Append to a cache never loaded: %v, want ErrMoved", err)
	}
	records := []Record{
		{Baseline: [20]byte{2}, Log: fastio.FileID{Ino: 4, Size: 60}, Set: []Entry{{Path: "b", Mode: 2}, {Path: "d", Mode: 1}}, Deleted: []string{"a"}},
		{Baseline: [20]byte{3}, Log: fastio.FileID{Ino: 4, Size: 70}, Set: []Entry{{Path: "a", Mode: 3}}, Deleted: []string{"d"},
			Dirs: map[string]*Dir{".": {Stamp: fastio.Stamp{Ino: 1}, Entries: []fastio.Dirent{{Name: "a"}}}}},
	}
	for i := range records {
		loaded, err := Load(path, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if err := loaded.Append(path, &records[i], racy); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	got, err := Load(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range got.Files {
		paths = append(paths, fmt.Sprintf("%s:%d", e.Path, e.Mode))
	}
	if strings.Join(paths, " ") != "a:3 b:2 c:1" || got.Header.Baseline != ([20]byte{3}) || got.Header.Log.Size != 70 || got.Dirs["."] == nil {
		t.Fatalf("after two records: %v, baseline %v, log %+v, dirs %v", paths, got.Header.Baseline, got.Header.Log, got.Dirs)
	}
	if !got.WantsRewrite() { // the records outweigh the small snapshot
		t.Error("WantsRewrite = false with records over a quarter of the file")
	}
	// A stale Cache (read before the last record) may not append.
	stale, _ := Load(path, 1<<20)
	if err := got.Append(path, &records[0], racy); err != nil {
		t.Fatal(err)
	}
	if err := stale.Append(path, &records[0], racy); !errors.Is(err, ErrMoved) {
		t.Fatalf("Append to a file that grew since Load: %v, want ErrMoved", err)
	}
	// A torn record is ignored: the file reads as before it.
	before, err := Load(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{200, 0, 0, 0, 1, 2, 3})
	f.Close()
	after, err := Load(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after.Files, before.Files) || !reflect.DeepEqual(after.Header, before.Header) {
		t.Fatalf("a torn record changed the cache: %+v", after.Files)
	}
}

// TestDamaged: every damage to a cache file is a refusal, never a panic
// or a partial cache: bad magic, checksum, truncation, trailing bytes,
// over the size limit, not a regular file.
func TestDamaged(t *testing.T) {
	c := &Cache{Header: testHeader(), Files: []Entry{{Path: "a", Mode: 1}}}
	good, err := os.ReadFile(save(t, c))
	if err != nil {
		t.Fatal(err)
	}
	flip := bytes.Clone(good)
	flip[len(Magic)+12] ^= 1
	tests := []struct {
		name string
		data []byte
		max  int64
	}{
		{"empty", nil, 1 << 20},
		{"bad magic", append([]byte("TVSC5\n"), good[len(Magic):]...), 1 << 20},
		{"checksum", flip, 1 << 20},
		{"cut short", good[:len(good)-1], 1 << 20},
		{"over the limit", good, int64(len(good) - 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cache")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if got, err := Load(path, tt.max); err == nil {
				t.Fatalf("Load accepted it: %+v", got)
			}
		})
	}
	t.Run("a folder", func(t *testing.T) {
		if _, err := Load(t.TempDir(), 1<<20); err == nil {
			t.Fatal("Load accepted a folder")
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := Load(filepath.Join(t.TempDir(), "none"), 1<<20); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Load of a missing file: %v, want fs.ErrNotExist", err)
		}
	})
}

// updateGolden rewrites the pinned cache files (UPDATE_GOLDEN=1), after a
// deliberate format change that bumps Magic.
var updateGolden = os.Getenv("UPDATE_GOLDEN") != ""

// TestFormatV7 pins the on-disk bytes: testdata/v7.cache is read, and
// Save writes the same bytes again. A version-6 file (CRC-32C) is
// refused as a whole, so the command re-hashes, as for any damaged cache.
func TestFormatV7(t *testing.T) {
	if _, err := decode(mustRead(t, "v6.cache")); err == nil || !strings.Contains(err.Error(), "bad magic") {
		t.Fatalf("a version-6 cache decoded: %v", err)
	}
	if updateGolden {
		if err := formatV7Want().Save(filepath.Join("testdata", "v7.cache"), 1<<62); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "v7.cache"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := decode(data)
	if err != nil {
		t.Fatal(err)
	}
	want := formatV7Want()
	if !reflect.DeepEqual(c.Header, want.Header) || !reflect.DeepEqual(c.Files, want.Files) || !reflect.DeepEqual(c.Dirs, want.Dirs) {
		t.Fatalf("decoded\n%+v\n%+v\n%+v", c.Header, c.Files, c.Dirs)
	}
	path := filepath.Join(t.TempDir(), "cache")
	if err := want.Save(path, 1<<62); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Fatalf("Save wrote\n%x\nthe earlier tv wrote\n%x", again, data)
	}
}

// formatV7Want is what testdata/v7.cache holds.
func formatV7Want() *Cache {
	return &Cache{
		Header: Header{
			ManifestStamp: fastio.Stamp{Size: 100, Mtime: 7, Ctime: 8, Ino: 3, Mode: 0o644}, ManifestBaseline: [20]byte{9},
			Log:     fastio.FileID{Ino: 4, Size: 50},
			VaultID: "vault_0123456789abcdef", WorkspaceID: "ws_abcdefghijklmnopqrst", WorkspaceName: "demo",
			Scope: []string{"a"}, Baseline: [20]byte{1},
		},
		Files: []Entry{
			{Path: "a/b.md", Mode: 0o100644, ID: [20]byte{5}, SHA256: [32]byte{6}, Stamp: fastio.Stamp{Size: 3, Mtime: 5, Ctime: 6, Ino: 8, Mode: 0o644}},
			{Path: "a/c", Mode: 0o100755, Stamp: fastio.Stamp{Size: 1}},
		},
		Dirs: map[string]*Dir{"a": {Stamp: fastio.Stamp{Ino: 9}, Entries: []fastio.Dirent{{Name: "b.md"}, {Name: "c"}}}},
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDecode: the decoder never panics on damaged input, never yields
// more entries than the bytes could hold, and never yields a listing
// name that is not one path element.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(Magic))
	f.Add([]byte("garbage"))
	if v7, err := os.ReadFile(filepath.Join("testdata", "v7.cache")); err == nil {
		f.Add(v7)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decode(b)
		if err != nil {
			return
		}
		if len(c.Files)*entryBytes > len(b) {
			t.Fatalf("%d entries from %d bytes", len(c.Files), len(b))
		}
		for rel, d := range c.Dirs {
			for _, e := range d.Entries {
				if !oneElem(e.Name) {
					t.Fatalf("listing of %q holds %q", rel, e.Name)
				}
			}
		}
	})
}

// BenchmarkDecodeTails decodes a cache of 10,000 files followed by the
// records of 1,800 one-file commits (up to the size at which a walk-test
// folds them into a new snapshot): the records are merged into the
// snapshot once, not one by one.
func BenchmarkDecodeTails(b *testing.B) {
	c := &Cache{Header: testHeader()}
	for i := range 10000 {
		c.Files = append(c.Files, Entry{Path: fmt.Sprintf("stages/%03d/references/file-%06d.md", i/100, i), Mode: 0o100644, Stamp: fastio.Stamp{Size: 3, Mtime: 5, Ctime: 5, Ino: uint64(i)}})
	}
	path := save(b, c)
	for i := range 1800 {
		loaded, err := Load(path, 1<<30)
		if err != nil {
			b.Fatal(err)
		}
		rec := &Record{Baseline: [20]byte{byte(i)}, Set: []Entry{{Path: fmt.Sprintf("stages/out/new-%06d.md", i), Mode: 0o100644, Stamp: fastio.Stamp{Size: 3, Mtime: 5, Ctime: 5, Ino: 1}}}}
		if err := loaded.Append(path, rec, time.Now().UnixNano()); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c, err := decode(data)
		if err != nil || len(c.Files) != 11800 {
			b.Fatalf("decoded %v files: %v", len(c.Files), err)
		}
	}
}

// v7TailRecord is the record testdata/v7-tail.cache appends to
// testdata/v7.cache's snapshot: a file set (stamped), a file deleted and
// a folder listed.
func v7TailRecord() *Record {
	return &Record{
		Baseline: [20]byte{2},
		Log:      fastio.FileID{Ino: 4, Size: 90},
		Set:      []Entry{{Path: "a/d.md", Mode: 0o100644, ID: [20]byte{7}, SHA256: [32]byte{8}, Stamp: fastio.Stamp{Size: 2, Mtime: 9, Ctime: 9, Ino: 11, Mode: 0o644}}},
		Deleted:  []string{"a/c"},
		Dirs:     map[string]*Dir{"a": {Stamp: fastio.Stamp{Ino: 9, Mtime: 10}, Entries: []fastio.Dirent{{Name: "b.md"}, {Name: "d.md"}}}},
	}
}

// TestFormatV7Tail pins the appended record's format: testdata/v7-tail.cache
// (v7.cache plus one record, written by Append) decodes to the snapshot
// with the record applied, and Append writes the same bytes again.
func TestFormatV7Tail(t *testing.T) {
	snap, err := os.ReadFile(filepath.Join("testdata", "v7.cache"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(path, snap, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Append(path, v7TailRecord(), 1<<62); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if updateGolden {
		if err := os.WriteFile(filepath.Join("testdata", "v7-tail.cache"), got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := mustRead(t, "v7-tail.cache")
	if !bytes.Equal(got, want) {
		t.Fatalf("Append wrote\n%x\nthe pinned file holds\n%x", got, want)
	}
	d, err := decode(want)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range d.Files {
		paths = append(paths, e.Path)
	}
	if strings.Join(paths, " ") != "a/b.md a/d.md" || d.Header.Baseline != [20]byte{2} || d.Header.Log.Size != 90 ||
		d.Files[1].Stamp.Ino != 11 || len(d.Dirs["a"].Entries) != 2 || d.Dirs["a"].Entries[1].Name != "d.md" || d.tailBytes == 0 {
		t.Fatalf("decoded %+v, files %v, dirs %+v", d.Header, paths, d.Dirs["a"])
	}
}
