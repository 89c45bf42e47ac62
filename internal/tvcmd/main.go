// Package tvcmd is tv's command line: every command, its flags, help,
// output conventions and the one map from errors to exit codes. The two
// binaries are thin mains over it: cmd/tv (the commands users run most,
// without the MCP SDK and the network transports) and cmd/tv-full (every
// command; see Extensions).
package tvcmd

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/thalix/tv/internal/fullexec"
	_ "github.com/thalix/tv/internal/hugeheap" // its init backs the heap's first chunk with huge pages
	"github.com/thalix/tv/internal/stackgrow"
	"github.com/thalix/tv/internal/statcache"
)

// GC settings for a tv process, unless GOGC or GOMEMLIMIT say otherwise. A
// command allocates a few MiB per 10k files and exits: collecting at every
// doubling of a small heap cost walk-test about a tenth of its time. The
// heap may grow to gcPercent% over the live data, and the collector works
// harder as the total nears gcMemoryLimit, which keeps peak memory bounded.
const (
	gcPercent     = 400
	gcMemoryLimit = 64 << 20
)

// Main runs the process's command line with the given extensions and
// returns its exit code: the GC settings, the stat cache's retained
// mappings (for a process that exits soon; turned off by the MCP servers,
// as are the heap's huge pages, which package hugeheap's init asks for),
// the signal handling (Ctrl-C and SIGTERM cancel a writing command's
// context: IO.Interrupt) and the process's IO. Each binary's main is
// os.Exit(tvcmd.Main(…)).
func Main(ext Extensions) int {
	stackgrow.To16K() // the depth every command reaches (see the package)
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(gcMemoryLimit)
	}
	statcache.RetainMappings(true) // the MCP servers turn it off
	front, err := fullexec.TakeFront(ext.Full != nil)
	stdio := &IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ, StderrIsTerminal: isTerminal(os.Stderr), Front: front}
	if err != nil {
		return (&app{io: stdio, json: wantsJSON(os.Args[1:])}).fail(err)
	}
	stdio.Interrupt = func(ctx context.Context) (context.Context, context.CancelFunc) {
		return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	}
	return Run(context.Background(), os.Args, stdio, ext)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
