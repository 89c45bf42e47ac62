//go:build linux

package ignore

import "testing"

// TestPortableReadPath runs the symlink and nested-file checks again with
// openat2 disabled, as on kernels before 5.6.
func TestPortableReadPath(t *testing.T) {
	openat2Unusable.Store(true)
	defer openat2Unusable.Store(false)
	t.Run("symlinks", TestSymlinks)
	t.Run("table", TestMatchesGitTable)
	t.Run("extra", TestExtra)
}
