package testparallel

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

// TestDefault: without -test.parallel on the command line, Default sets
// PerCPU × GOMAXPROCS; with it, the command line's value stays.
func TestDefault(t *testing.T) {
	f := flag.Lookup("test.parallel")
	old := f.Value.String()
	t.Cleanup(func() { flag.Set("test.parallel", old) })
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	Default()
	want := strconv.Itoa(PerCPU * runtime.GOMAXPROCS(0))
	if set {
		want = old
	}
	if got := f.Value.String(); got != want {
		t.Fatalf("-test.parallel %s after Default, want %s (set on the command line: %v)", got, want, set)
	}
}
