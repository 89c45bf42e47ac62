//go:build !unix

package fastio

// NoFollow and NonBlock are not available; callers Lstat first.
const (
	NoFollow = 0
	NonBlock = 0
)
