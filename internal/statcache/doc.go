// Package statcache is the binary stat cache of a tv checkout
// (.thalix-workspace.cache): per file, the version and sha256 its content
// was hashed to and the lstat stamp seen then; per folder, its stamp and
// listing; and the identity of the manifest and manifest log it was built
// from. walk-test re-hashes only files whose stamp changed and lists
// again only folders whose stamp changed, so an unchanged checkout is
// checked with one lstat per file and no reads.
//
// Why it exists: go-git's Worktree.Status re-hashes every file on every
// call (1–2 s on 20k files against ~40 ms for git status; DESIGN.md,
// "walk-test is an own lstat walk with a stat cache"); the JSON manifest
// of 100k files is 23 MiB to parse. The cache is a binary file read by one
// mapping (a 10k-file cache is 1.5 MiB that would otherwise be fresh heap
// pages per walk-test), decoded into one entry slice whose strings are
// then moved into one allocation (at 100k files the live heap went from
// 53–56 MiB to 36–38 MiB; README "Memory and GC at 100k files") — or, in
// a tv command, which exits soon, left in the mapping, which then stays
// for the rest of the process (RetainMappings: ~660 KB less fresh heap
// per 10k-file command; the MCP servers copy them out), and a
// commit appends a record instead of rewriting it (a commit of one file
// costs what the changed files cost, not the tree).
//
// The API: Load reads a cache file (nil and an error when it is missing,
// damaged or over its limit); Lookup, Clean and Listing answer the scan;
// Save writes a cache whole, Append adds a commit's Record to the very
// file Load read. The caller decides whether a loaded cache belongs to
// the checkout (its Header names the manifest stamp and log it was built
// from) and falls back to the manifest otherwise.
//
// Contract: it is a cache, not identity. A missing, stale, torn or
// damaged file is never an error a user sees: Load refuses it and the
// caller hashes. Stamps taken within RacySmudge of a scan are written
// unstamped, and Clean refuses a stamp not older than the cache file
// itself (git's "racy" rule), so a file changed twice in one clock tick
// is re-hashed. The on-disk format (magic "TVSC7\n") is described at
// Magic; decoding refuses out-of-order entries and listing names that are
// not one path element, and never yields more entries than the bytes hold
// (FuzzDecode).
package statcache
