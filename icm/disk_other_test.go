//go:build !unix

package icm

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

// diskFS is nil where the tests do not write trees to disk.
func diskFS(*testing.T, fstest.MapFS) fs.FS { return nil }
