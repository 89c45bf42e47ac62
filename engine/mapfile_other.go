//go:build !unix

package engine

import "os"

// mapFile reads the file at path (no mapping here; see mapfile_unix.go).
func mapFile(path string, size int64) (data []byte, release func(), err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, err
}
