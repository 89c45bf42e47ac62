//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package fastio

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Read reads up to len(b) bytes; at the end of the input it returns io.EOF.
func (p *PolledFile) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, errno := 0, syscall.Errno(0)
	err := p.rc.Read(func(fd uintptr) bool {
		for {
			n, errno = rawRead(int(fd), b)
			switch errno {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait in the poller
			}
			return true
		}
	})
	switch {
	case err != nil:
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: err}
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of b, waiting in the poller while the reader is behind.
func (p *PolledFile) Write(b []byte) (int, error) {
	done, errno := 0, syscall.Errno(0)
	err := p.rc.Write(func(fd uintptr) bool {
		for done < len(b) {
			n, e := rawWrite(int(fd), b[done:])
			switch e {
			case 0:
				done += n
				continue
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			errno = e
			return true
		}
		return true
	})
	switch {
	case err != nil:
		return done, &os.PathError{Op: "write", Path: p.f.Name(), Err: err}
	case errno != 0:
		return done, &os.PathError{Op: "write", Path: p.f.Name(), Err: errno}
	}
	return done, nil
}

// rawWrite is write(2).
func rawWrite(fd int, p []byte) (int, syscall.Errno) { return rawTransfer(unix.SYS_WRITE, fd, p) }
