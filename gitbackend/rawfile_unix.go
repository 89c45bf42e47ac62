//go:build unix

package gitbackend

import (
	"os"
	"syscall"
)

// readSmallFile reads the file at path whole when it holds at most max
// bytes, with four system calls (open, fstat, read, close); a larger file
// is returned open instead, for streaming. An os.File would also register
// the descriptor with the runtime's poller and toggle its flags, five
// more calls per file: most of what reading a small loose object costs a
// hook. Errors are *os.PathError (errors.Is(err, fs.ErrNotExist) holds
// for a missing file).
func readSmallFile(path string, max int64) (data []byte, large *os.File, err error) {
	var fd int
	err = retryEINTR(func() (err error) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Size > max {
		return nil, os.NewFile(uintptr(fd), path), nil
	}
	defer syscall.Close(fd)
	data = make([]byte, st.Size)
	for off := 0; off < len(data); {
		var n int
		err := retryEINTR(func() (err error) {
			n, err = syscall.Read(fd, data[off:])
			return err
		})
		if err != nil {
			return nil, nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return data[:off], nil, nil // cut short since the fstat
		}
		off += n
	}
	return data, nil, nil
}

func retryEINTR(fn func() error) error {
	for {
		if err := fn(); err != syscall.EINTR {
			return err
		}
	}
}
