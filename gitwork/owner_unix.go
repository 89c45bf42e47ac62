//go:build unix

package gitwork

import (
	"os"
	"syscall"
)

// ownedByMe reports whether the current user owns fi (git refuses a
// repository owned by someone else unless safe.directory says otherwise).
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
