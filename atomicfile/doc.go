// Package atomicfile replaces files so that readers see the old or the new
// content, never a torn one: write a temporary file in the same directory,
// fsync it, rename it over the target, fsync the directory. It is tv's one
// implementation of that sequence.
//
// Write and WriteFile take a path, WriteFunc streams a large file through
// a buffer, WriteRoot replaces a file inside an os.Root (the rename never
// leaves it). Options choose the mode, the durability (SyncAll, SyncData,
// SyncNone for self-checking caches), the temporary name, and a hook that
// runs just before the rename to re-check that nobody else changed the
// target. On any failure the temporary file is removed and the target is
// left as it was.
package atomicfile
