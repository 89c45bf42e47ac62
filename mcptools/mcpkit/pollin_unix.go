//go:build unix

package mcpkit

import (
	"io"
	"os"
	"syscall"
)

// pollableInput returns a reader of in that waits for input in Go's
// network poller, and a function restoring in. A pipe or socket the
// process inherits as stdin is in blocking mode, so Go reads it with a
// blocking system call that holds a thread: each request line read then
// hands the message to the SDK's goroutines on another thread, which
// must be woken first (the cost an idle server pays on every call:
// bench/mcp's ping round trip). In non-blocking mode a read that would
// wait parks only the goroutine, and the goroutines that handle the line
// run on the thread that read it. Anything else (a terminal, a file, an
// io.Reader that is not an *os.File) is returned as it is.
func pollableInput(in io.Reader) (io.Reader, func()) {
	f, ok := in.(*os.File)
	if !ok {
		return in, func() {}
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return in, func() {}
	}
	rc, err := f.SyscallConn() // not f.Fd(), which would set blocking mode
	if err != nil {
		return in, func() {}
	}
	fd := -1
	rc.Control(func(orig uintptr) { fd, err = syscall.Dup(int(orig)) })
	if fd < 0 || err != nil {
		return in, func() {}
	}
	// O_NONBLOCK belongs to the open file description, shared by fd and
	// its duplicate: restore it on return, for whoever reads it next.
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return in, func() {}
	}
	nb := os.NewFile(uintptr(fd), f.Name())
	return nb, func() {
		// Close first: it wakes a read parked in the poller. Clearing
		// O_NONBLOCK first would let that read block in the kernel, and
		// Close wait for it until the client wrote or hung up.
		nb.Close()
		rc.Control(func(orig uintptr) { syscall.SetNonblock(int(orig), false) })
	}
}
