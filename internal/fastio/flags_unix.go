//go:build unix

package fastio

import "syscall"

// NoFollow makes an open fail on a symlink instead of following it;
// NonBlock keeps an open of a FIFO from blocking (the caller then sees it
// is not a regular file).
const (
	NoFollow = syscall.O_NOFOLLOW
	NonBlock = syscall.O_NONBLOCK
)
