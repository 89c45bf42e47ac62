package tvcmd

import (
	"testing"

	"github.com/thalix/tv/internal/statcache"
)

// TestMCPServersReleaseMappings: main has every command retain the stat
// caches it maps (statcache.RetainMappings); the two MCP servers, which
// load caches for as long as their host runs them, turn that off before
// they serve. Not parallel: it sets the process-wide switch.
func TestMCPServersReleaseMappings(t *testing.T) {
	defer statcache.RetainMappings(false)
	env := isolated(t)
	env["GOGC"], env["GOMAXPROCS"] = "100", "2" // keep the servers' tuning off the test process
	runTV(t, env, false, "login", "--user", "pat")
	for _, args := range [][]string{
		{"mcp", "local", "--root", t.TempDir()},
		{"mcp", "serve"},
	} {
		statcache.RetainMappings(true)
		if _, stderr, code := runTV(t, env, false, args...); code != ExitOK {
			t.Fatalf("tv %v: exit %d: %s", args, code, stderr)
		}
		if statcache.RetainsMappings() {
			t.Errorf("tv %v served with the stat cache mappings retained", args)
		}
	}
}
