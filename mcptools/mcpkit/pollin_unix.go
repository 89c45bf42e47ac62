//go:build unix

package mcpkit

import (
	"io"
	"os"
	"strconv"
	"syscall"

	"github.com/thalix/tv/internal/fastio"
)

// pollableInput returns a reader of in that waits for input in Go's
// network poller, and a function that releases it. A pipe or socket the
// process inherits as stdin is in blocking mode, so Go reads it with a
// blocking system call that holds a thread: each request line read then
// hands the message to the SDK's goroutines on another thread, which
// must be woken first (the cost an idle server pays on every call:
// bench/mcp's ping round trip). In non-blocking mode a read that would
// wait parks only the goroutine, and the goroutines that handle the line
// run on the thread that read it. Reads are raw system calls
// (fastio.PolledFile), which do not wake the runtime's monitor thread.
//
// O_NONBLOCK belongs to an open file description, which a parent that
// passed its own end (a FIFO it opened, a pipe it kept) shares with tv:
// setting it there would leave the parent's reads non-blocking while tv
// runs, and for good when tv is killed before it can clear the flag. So a
// pipe or FIFO is opened anew through /proc/self/fd (Linux: a new open file
// description of the same pipe) and only that one is made non-blocking;
// the inherited descriptor is never changed. A socket cannot be reopened:
// it is read through a duplicate made non-blocking, and blocking mode is
// restored when the server returns (a host's socketpair end is tv's alone).
// Anything else (a terminal, a file, an io.Reader that is not an *os.File,
// a pipe where /proc is not mounted) is returned as it is.
func pollableInput(in io.Reader) (io.Reader, func()) {
	if p, restore := pollable(in, os.O_RDONLY); p != nil {
		return p, restore
	}
	return in, func() {}
}

// pollableOutput is pollableInput for the server's output: out (a pipe
// or socket) written through the poller with raw system calls, which do
// not wake the runtime's monitor thread (fastio.PolledFile). Its function
// releases it; anything else is returned as it is.
func pollableOutput(out io.Writer) (io.Writer, func()) {
	if p, restore := pollable(out, os.O_WRONLY); p != nil {
		return p, restore
	}
	return out, func() {}
}

// pollable is the non-blocking, poller-registered equivalent of s for
// mode (os.O_RDONLY or os.O_WRONLY), or nil.
func pollable(s any, mode int) (*fastio.PolledFile, func()) {
	f, ok := s.(*os.File)
	if !ok {
		return nil, nil
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, nil
	}
	rc, err := f.SyscallConn() // not f.Fd(), which would set blocking mode
	if err != nil {
		return nil, nil
	}
	var nb *os.File
	var restore func()
	switch {
	case fi.Mode()&os.ModeNamedPipe != 0:
		nb, restore = reopenPipe(rc, mode)
	case fi.Mode()&os.ModeSocket != 0:
		nb, restore = dupSocket(f.Name(), rc)
	}
	if nb == nil {
		return nil, nil
	}
	p, err := fastio.NewPolledFile(nb)
	if err != nil {
		restore()
		return nil, nil
	}
	return p, restore
}

// reopenPipe opens the pipe behind rc anew for mode, non-blocking
// (os.OpenFile registers it with the poller).
func reopenPipe(rc syscall.RawConn, mode int) (*os.File, func()) {
	fd := -1
	rc.Control(func(orig uintptr) { fd = int(orig) })
	// O_NONBLOCK also keeps the open from waiting for the other end (a
	// FIFO whose writer is already gone reads EOF, as the inherited one
	// would; one whose reader is gone refuses to open, and the inherited
	// descriptor is used as it is).
	nb, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), mode|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil
	}
	return nb, func() { nb.Close() }
}

// dupSocket returns a non-blocking duplicate of the socket behind rc and
// a function that closes it and restores blocking mode.
func dupSocket(name string, rc syscall.RawConn) (*os.File, func()) {
	fd := -1
	var err error
	rc.Control(func(orig uintptr) { fd, err = syscall.Dup(int(orig)) })
	if fd < 0 || err != nil {
		return nil, nil
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, nil
	}
	nb := os.NewFile(uintptr(fd), name)
	return nb, func() {
		// Close first: it wakes a read parked in the poller. Clearing
		// O_NONBLOCK first would let that read block in the kernel, and
		// Close wait for it until the client wrote or hung up.
		nb.Close()
		rc.Control(func(orig uintptr) { syscall.SetNonblock(int(orig), false) })
	}
}
