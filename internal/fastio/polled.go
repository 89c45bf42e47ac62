package fastio

import (
	"io"
	"os"
	"syscall"
)

// PolledFile is a non-blocking pipe or socket that Go's network poller
// waits on, read and written with raw system calls where the platform has
// them (Linux on amd64, arm64, riscv64 and loong64; elsewhere through
// *os.File).
//
// Why: a read or write through *os.File enters the scheduler's system-call
// state, which wakes the runtime's monitor thread (sysmon) when it sleeps;
// awake, it polls every 20 µs until it has seen the process idle for a
// while. A stdio MCP server that answers a request every few hundred
// microseconds thus woke it on every request: tv mcp local made 3.6
// context switches per request, 2.4 of them sysmon's (perf, sched_switch
// over 4,000 read_file and ping requests from bench/mcp's lean client).
// On a non-blocking descriptor a raw call never blocks: when it would,
// the goroutine waits in the poller as *os.File's would.
type PolledFile struct {
	f  *os.File
	rc syscall.RawConn
}

// NewPolledFile wraps f, which must be in non-blocking mode and
// registered with the poller (os.OpenFile with O_NONBLOCK of a pipe, or
// os.NewFile of a non-blocking descriptor). The PolledFile owns f.
func NewPolledFile(f *os.File) (*PolledFile, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &PolledFile{f: f, rc: rc}, nil
}

// Close closes the file; a Read or Write waiting in the poller returns.
func (p *PolledFile) Close() error { return p.f.Close() }

// Name is the file's name.
func (p *PolledFile) Name() string { return p.f.Name() }

var _ io.ReadWriteCloser = (*PolledFile)(nil)
