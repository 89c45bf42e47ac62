//go:build unix

package statcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	c, err := decodeMapped(mapped)
	if c != nil || err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("decode of a truncated mapping = %v, %v; want the fault reported as an error", c, err)
	}
}
