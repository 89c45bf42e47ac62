//go:build !unix

package engine

// noFollow and nonBlock are not available; callers Lstat first.
const (
	noFollow = 0
	nonBlock = 0
)
