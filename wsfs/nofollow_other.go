//go:build !unix

package wsfs

// noFollow and nonBlock do not exist here (Windows): openRegular checks
// with Lstat before and fstat after the open that the file is the same
// regular file, and os.Root refuses links that leave the workspace.
const (
	noFollow = 0
	nonBlock = 0
)
