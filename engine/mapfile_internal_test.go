//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMappedStatCacheCutShort: a stat cache file truncated while it is
// mapped makes the read fault; the load reports an unusable cache instead
// of crashing the process.
func TestMappedStatCacheCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), StatCacheName)
	data := append([]byte(statCacheMagic), make([]byte, 64<<10)...)
	data[len(statCacheMagic)] = 0xff // a snapshot length that sends the decoder through every page
	data[len(statCacheMagic)+1] = 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mapped, release, err := mapFile(path, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	b, err := decodeMappedStatCache(mapped)
	if b != nil || err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("decode of a truncated mapping = %v, %v; want the fault reported as an error", b, err)
	}
}
