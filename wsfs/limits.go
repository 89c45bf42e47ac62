package wsfs

// Limits enforced by this package. Error messages print them.
const (
	// MaxPathBytes is the longest workspace-relative path accepted.
	MaxPathBytes = 4096
	// MaxComponentBytes is the longest single path component accepted.
	MaxComponentBytes = 255
	// MaxDepth is the most path components a path may have.
	MaxDepth = 256
	// DefaultFileMode is the permission of a file created by WriteFile when
	// no file existed before.
	DefaultFileMode = 0o644
	// DefaultDirMode is the permission of a directory created by WriteFile
	// for a missing parent.
	DefaultDirMode = 0o755
)
