// Package testparallel sets a test binary's default -test.parallel for
// packages whose parallel tests spend most of their time waiting on the
// processes they start (git, tv, servers, killed children): at the
// default of GOMAXPROCS such tests leave the cores idle while they wait.
package testparallel

import (
	"flag"
	"runtime"
	"strconv"
)

// PerCPU is how many parallel tests Default allows per GOMAXPROCS.
const PerCPU = 2

// Default sets -test.parallel to PerCPU × GOMAXPROCS unless the command
// line set it (`go test -parallel N` still decides). Call it from
// TestMain before m.Run; it parses the command line's flags.
func Default() {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(PerCPU*runtime.GOMAXPROCS(0)))
	}
}
