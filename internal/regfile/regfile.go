// Package regfile reads small files that must be regular files, without
// ever blocking on what sits at the path instead: the open does not wait
// (O_NONBLOCK, so a FIFO opens at once), the open file must be a regular
// file (fstat, so a FIFO, device or /dev/zero behind a symlink is refused
// before any read), at most max bytes are read, and the whole read is
// bounded in time (a hung network file system costs the caller timeout,
// not forever). tv's discovery code (`tv mcp local`: .git files, HEAD,
// refs, the mount registry) reads through it.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// Sentinel errors; each Read error wraps one of them or the os error.
var (
	// ErrNotRegular: the path is a FIFO, socket, device or directory.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the caller's limit.
	ErrTooLarge = errors.New("file too large")
	// ErrTimeout: the read took longer than the caller's bound.
	ErrTimeout = errors.New("read timed out")
)

type result struct {
	b   []byte
	err error
}

// Read returns the content of the regular file at path (symlinks are
// followed; what they lead to must be a regular file), refusing one over
// max bytes, and giving up after timeout. A read given up on finishes in
// the background and its file is closed then.
func Read(path string, max int64, timeout time.Duration) ([]byte, error) {
	done := make(chan result, 1)
	go func() {
		b, err := read(path, max)
		done <- result{b, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-done:
		return r.b, r.err
	case <-t.C:
		return nil, fmt.Errorf("%s: %w after %v", path, ErrTimeout, timeout)
	}
}

func read(path string, max int64) ([]byte, error) {
	f, err := openNonblock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, over the %d-byte limit", path, ErrTooLarge, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w: over the %d-byte limit", path, ErrTooLarge, max)
	}
	return b, nil
}
