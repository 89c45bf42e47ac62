package engine

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/thalix/tv/icm"
)

// TestICMCacheKeys: the ICM cache round-trips its findings and facts, a
// fact is found only under its content id, and a cache made by other
// rules (icm.RulesVersion) or damaged is ignored.
func TestICMCacheKeys(t *testing.T) {
	dir := t.TempDir()
	digest := [32]byte{1, 2, 3}
	findings := []icm.Finding{{Rule: icm.RulePlaceholder, Severity: icm.SeverityWarning, Path: "a.md", Line: 3, Message: "m"}}
	withPH := icm.MarkdownFacts{Lines: 9, Placeholders: []icm.Placeholder{{Line: 2, Text: `"{{X}}"`, More: 1}}}
	facts := []factRecord{{id: Hash{1}, lines: 4}, {id: Hash{2}, lines: 9}, {id: Hash{3}, truncated: true}}
	want := []icm.MarkdownFacts{{Lines: 4}, withPH, {Truncated: true}}
	if err := writeICMCache(dir, digest, findings, facts, map[int][]icm.Placeholder{1: withPH.Placeholders}); err != nil {
		t.Fatal(err)
	}
	if c := loadICMCache(dir, digest); c == nil || !reflect.DeepEqual(c.findings, findings) || c.records != nil {
		t.Fatalf("the same tree: %+v, want its findings and no facts", c)
	}
	c := loadICMCache(dir, [32]byte{9}) // another tree: its facts are looked up
	if c == nil || c.digest != digest || !reflect.DeepEqual(c.findings, findings) {
		t.Fatalf("round trip: %+v", c)
	}
	for i, fr := range facts {
		if got, ok := c.lookup(fr.id); !ok || !reflect.DeepEqual(got, want[i]) {
			t.Errorf("lookup %x = %+v, %v; want %+v", fr.id[:1], got, ok, want[i])
		}
	}
	if _, ok := c.lookup(Hash{4}); ok {
		t.Error("found facts for content it never saw")
	}

	path := filepath.Join(dir, ICMCacheName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(b []byte) []byte
	}{
		{"other rules", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(icmCacheMagic):], icm.RulesVersion+1)
			return reseal(b)
		}},
		{"flipped byte", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }},
		{"truncated", func(b []byte) []byte { return reseal(b[:len(b)-10]) }},
		{"trailing bytes", func(b []byte) []byte { return reseal(append(b[:len(b)-4:len(b)-4], 0, 0, 0, 0, 0)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.change(append([]byte(nil), data...))
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if c := loadICMCache(dir, digest); c != nil {
				t.Errorf("used a cache that is %s", tt.name)
			}
		})
	}
}

// reseal replaces b's closing checksum with one of its new content.
func reseal(b []byte) []byte {
	body := b[:len(b)-4]
	return binary.LittleEndian.AppendUint32(body[:len(body):len(body)], crc32.ChecksumIEEE(body))
}

// TestICMCacheIndex: a lookup through the first-byte fanout finds every
// id of a table (ids at both ends of the byte range, many sharing a first
// byte, ids differing only in their last bytes) and misses every id the
// table lacks, as a linear search does.
func TestICMCacheIndex(t *testing.T) {
	var ids []Hash
	for i := range 2000 {
		var h Hash
		binary.BigEndian.PutUint32(h[:], uint32(i)*2654435761)
		h[0] = byte(i % 7 * 40) // clustered first bytes, with gaps
		ids = append(ids, h)
	}
	ends := []Hash{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {40, 19: 1}, {40, 19: 2}}
	ids = append(ids, ends...)
	slices.SortFunc(ids, func(a, b Hash) int { return bytes.Compare(a[:], b[:]) })
	ids = slices.Compact(ids)
	in := map[Hash]bool{}
	facts := make([]factRecord, len(ids))
	for i, id := range ids {
		facts[i] = factRecord{id: id, lines: uint32(i)}
		in[id] = true
	}
	dir := t.TempDir()
	if err := writeICMCache(dir, [32]byte{1}, nil, facts, nil); err != nil {
		t.Fatal(err)
	}
	c := loadICMCache(dir, [32]byte{2})
	if c == nil {
		t.Fatal("cache not loaded")
	}
	for i, id := range ids {
		if got := c.index(id); got != i {
			t.Fatalf("index(%x) = %d, want %d", id, got, i)
		}
	}
	for _, id := range []Hash{{1}, {39, 0xff}, {40, 19: 3}, {41}, {0xfe}, {0xff, 0xff, 0xff}} {
		if got := c.index(id); got != -1 || in[id] {
			t.Errorf("index(%x) = %d for an id the table lacks (in table: %v)", id, got, in[id])
		}
	}
	var empty *icmCache
	if empty.index(Hash{}) != -1 {
		t.Error("a nil cache found an id")
	}
}

// lookup returns the facts remembered for content id.
func (c *icmCache) lookup(id Hash) (icm.MarkdownFacts, bool) {
	i := c.index(id)
	if i < 0 {
		return icm.MarkdownFacts{}, false
	}
	return c.facts(i)
}
