//go:build unix

package wsfs

import "syscall"

// noFollow makes an open fail on a symlink instead of following it;
// nonBlock keeps an open of a FIFO from blocking.
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)
