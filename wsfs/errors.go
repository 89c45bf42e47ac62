package wsfs

import "errors"

// Sentinel errors. Every error returned by this package for a refused or
// failed access wraps one of them; the specific ones also wrap their
// category (ErrRefused, ErrNotFound or ErrConflict), so callers can map
// categories to exit codes or result codes with errors.Is.
var (
	// ErrRefused is the category of every input refused for safety or by a
	// limit: unsafe paths, symlinks, special files, sizes.
	ErrRefused = errors.New("refused")
	// ErrNotFound is the category of a missing file or directory.
	ErrNotFound = errors.New("not found")
	// ErrConflict is the category of a write refused because the file is no
	// longer the expected version.
	ErrConflict = errors.New("conflict")

	// ErrUnsafePath: the path is absolute, has a ".." component, a NUL
	// byte, a backslash, a Windows drive or UNC form, or is over a limit.
	ErrUnsafePath = kindError{"unsafe path", ErrRefused}
	// ErrSymlink: a component of the path (or the target) is a symlink.
	ErrSymlink = kindError{"symlink in path", ErrRefused}
	// ErrNotRegular: the target is a FIFO, socket, device or other
	// non-regular file.
	ErrNotRegular = kindError{"not a regular file", ErrRefused}
	// ErrIsDir: a file operation named a directory.
	ErrIsDir = kindError{"is a directory", ErrRefused}
	// ErrNotDir: a directory operation, or a non-final path component,
	// named something that is not a directory.
	ErrNotDir = kindError{"not a directory", ErrRefused}
	// ErrGitDir: a write into a ".git" directory.
	ErrGitDir = kindError{"write into .git refused", ErrRefused}
	// ErrTooLarge: a file or content over the caller's size limit.
	ErrTooLarge = kindError{"too large", ErrRefused}
	// ErrChanged: the file system changed under an access (for example a
	// directory was replaced by a symlink between the check and the open).
	ErrChanged = kindError{"changed during access", ErrRefused}
	// ErrMissing: the file or directory does not exist.
	ErrMissing = kindError{"no such file or directory", ErrNotFound}
	// ErrStale: the file's SHA-256 is not the expected one.
	ErrStale = kindError{"file changed since it was read", ErrConflict}
)

// kindError is a specific sentinel that also matches its category.
type kindError struct {
	msg  string
	kind error
}

func (e kindError) Error() string { return e.msg }
func (e kindError) Unwrap() error { return e.kind }
