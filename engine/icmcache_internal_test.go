package engine

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
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
