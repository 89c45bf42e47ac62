//go:build !unix

package regfile

import "os"

// openNonblock opens path for reading (no FIFO can block an open here).
func openNonblock(path string) (*os.File, error) { return os.Open(path) }
