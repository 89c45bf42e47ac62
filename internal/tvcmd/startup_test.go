package tvcmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/thalix/tv/internal/tvbuild"
)

// Start-up budget of one package's init in the tv binary. Generous on
// purpose (a noisy machine must not fail the test): it catches work such
// as compiling JSON Schema metaschemas at init (~8 ms, 1.7 MB), not noise.
// tv workspace walk-test must beat git status, and every tv command pays
// every init.
const (
	maxInitClockMS = 5.0
	maxInitBytes   = 256 << 10
)

// slowInits are packages known to exceed the budget, with why they are
// still linked. An entry whose package no longer appears in the trace
// fails the test: delete it. (github.com/santhosh-tekuri/jsonschema/v6,
// whose init compiles the metaschemas of five drafts, must not return:
// tv's own jsonschema package and mcptools.Dispatcher replaced its users.)
var slowInits = map[string]string{}

// banned are packages that must not be linked into tv at all, with why.
var banned = map[string]string{
	"github.com/santhosh-tekuri/jsonschema/v6": "its init compiles JSON Schema metaschemas (~8 ms, 1.7 MB); github.com/mark3labs/mcp-go/server imports it",
}

var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, ([0-9]+) bytes, [0-9]+ allocs$`)

type initCost struct {
	clockMS float64
	bytes   int
}

// initCosts runs tv --help (every init runs before main) with
// GODEBUG=inittrace=1 and returns each package's init cost.
func initCosts(t *testing.T, bin string) map[string]initCost {
	t.Helper()
	cmd := exec.Command(bin, "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tv --help: %v\n%s", err, stderr.Bytes())
	}
	costs := map[string]initCost{}
	for _, line := range bytes.Split(stderr.Bytes(), []byte("\n")) {
		m := initLine.FindSubmatch(bytes.TrimSpace(line))
		if m == nil {
			continue
		}
		clock, err1 := strconv.ParseFloat(string(m[2]), 64)
		n, err2 := strconv.Atoi(string(m[3]))
		if err1 != nil || err2 != nil {
			t.Fatalf("bad inittrace line %q", line)
		}
		costs[string(m[1])] = initCost{clock, n}
	}
	if _, ok := costs["runtime"]; !ok || len(costs) < 10 {
		t.Fatalf("GODEBUG=inittrace=1 printed no init lines this test understands:\n%s", stderr.Bytes())
	}
	return costs
}

// TestStartupInitCost: no package init of tv or tv-full costs more than
// maxInitClockMS of clock or maxInitBytes of allocation (slowInits
// aside). Clock is the best of three runs; bytes do not vary. tv-full's
// start is paid by every MCP server launch and remote-vault command.
func TestStartupInitCost(t *testing.T) {
	for _, bin := range []string{tvBin(t), tvbuild.Full(t)} {
		t.Run(filepath.Base(bin), func(t *testing.T) { checkInitCosts(t, bin) })
	}
}

func checkInitCosts(t *testing.T, bin string) {
	best := initCosts(t, bin)
	for range 2 {
		for pkg, c := range initCosts(t, bin) {
			if b, ok := best[pkg]; ok && c.clockMS < b.clockMS {
				b.clockMS = c.clockMS
				best[pkg] = b
			}
		}
	}
	var total float64
	for pkg, c := range best {
		total += c.clockMS
		if _, known := slowInits[pkg]; known {
			continue
		}
		if c.clockMS > maxInitClockMS || c.bytes > maxInitBytes {
			t.Errorf("init of %s costs %.2f ms and %d bytes (budget %.1f ms, %d bytes): move the work out of init (sync.OnceValue, first use)",
				pkg, c.clockMS, c.bytes, maxInitClockMS, maxInitBytes)
		}
	}
	for pkg, why := range banned {
		if c, ok := best[pkg]; ok {
			t.Errorf("%s is linked into tv again (init %.2f ms, %d bytes): %s", pkg, c.clockMS, c.bytes, why)
		}
	}
	for pkg, why := range slowInits {
		c, ok := best[pkg]
		if !ok {
			t.Errorf("%s is no longer initialised by tv: delete its slowInits entry (%s)", pkg, why)
			continue
		}
		t.Logf("known slow init: %s %.2f ms, %d bytes (%s)", pkg, c.clockMS, c.bytes, why)
	}
	t.Logf("%d package inits, %.2f ms of init clock in all", len(best), total)
}
