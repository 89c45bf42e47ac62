package fastio

import "os"

// SameFile reports whether path (symlinks followed) names the file fi
// describes, as os.SameFile(fi, os.Stat(path)) would; false when path
// cannot be stat'ed. Where the platform has raw system calls (see
// PolledFile) the stat is one, so that a check made on every request of a
// stdio server does not wake the runtime's monitor thread.
func SameFile(path string, fi os.FileInfo) bool { return sameFile(path, fi) }
