//go:build unix

package engine

import "syscall"

// noFollow makes an open fail on a symlink instead of following it;
// nonBlock keeps an open of a FIFO from blocking (the caller then sees it
// is not a regular file).
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)
