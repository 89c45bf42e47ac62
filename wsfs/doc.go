// Package wsfs is path-safe file access inside a workspace directory.
//
// Every path a caller passes is workspace-relative, slash-separated and
// checked by CleanPath before any file system call: absolute paths, ".."
// components, NUL bytes, backslashes and Windows drive or UNC forms are
// refused. Every access then goes through an [os.Root] opened on the
// workspace root, descending one directory at a time: each component is
// Lstat'ed, refused if it is a symlink, opened as a sub-root, and the opened
// directory is checked (fstat) to be the very inode that was Lstat'ed. A
// symlink swapped in between the check and the use is therefore detected,
// and os.Root keeps every open beneath the root even then. Files are
// opened only after an Lstat shows a regular file, with O_NOFOLLOW and
// O_NONBLOCK, and fstat must show that same regular file: FIFOs, sockets
// and devices are refused without being opened for I/O.
//
// Writes are atomic (temporary file in the same directory, fsync, rename,
// directory fsync), keep an existing file's permission bits, can require
// the current content's SHA-256, and are refused inside any ".git"
// directory. Walks never follow symlinks.
//
// The package is used by the `tv mcp local` tools (mcptools) and is meant
// for the engine's checkout access too; it imports only the standard
// library.
package wsfs
