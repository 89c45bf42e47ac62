// Package engine is tv's domain logic: workspaces, templates, checkout,
// walk-test, commit, ICM validation hooks and identity.
//
// The engine never touches git directly. It declares the storage it needs
// (Vault, Refs, Objects, ObjectWriter) in storage.go with their full
// contracts; package gitbackend implements them on a git repository.
// Every error the engine returns wraps one of the sentinels in errors.go,
// so callers map failures to exit codes or MCP results with errors.Is.
//
// A checkout or import folder may sit in a git work tree (the user's own
// repository, not the vault): walk-test, commit, CheckDir and import
// leave out what its .gitignore rules ignore (package ignore, the matcher
// `tv mcp local` uses), checkout adds tv's own files to its
// info/exclude, and ImportWorkspaceRevision reads a committed tree
// through package gitwork (git's plumbing commands).
//
// The speed-critical file system calls live below it: internal/fastio
// (listing, lstat and opens relative to an open folder, getdents64,
// openat2, mmap, the checkout lock) and internal/statcache (the binary
// stat cache's format: Load, Lookup, Clean, Listing, Save, Append). base.go
// chooses between the stat cache and the manifest; scan.go walks a
// checkout through fastio; engine itself imports neither syscall nor
// unsafe.
package engine
