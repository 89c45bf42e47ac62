//go:build !unix

package fastio

import "os"

// MapFile reads the file at path (no mapping here; see mapfile_unix.go).
func MapFile(path string, size int64) (data []byte, release func(), err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, err
}
