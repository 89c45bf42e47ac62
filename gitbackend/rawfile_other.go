//go:build !unix

package gitbackend

import (
	"io"
	"os"
)

// readSmallFile reads the file at path whole when it holds at most max
// bytes; a larger file is returned open instead, for streaming.
func readSmallFile(path string, max int64) (data []byte, large *os.File, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if fi.Size() > max {
		return nil, f, nil
	}
	defer f.Close()
	data = make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if err == io.ErrUnexpectedEOF {
		err = nil // cut short since the stat
	}
	return data[:n], nil, err
}
