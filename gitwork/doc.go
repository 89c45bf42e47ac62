// Package gitwork reads what a git repository would commit: it finds the
// work tree holding a directory, its global excludes file
// (core.excludesFile), its index (`git ls-files -s`) and a committed tree
// (`git ls-tree -r`), and serves their blobs as an fs.FS through one
// `git cat-file --batch` process.
//
// Finding the work tree, reading .gitignore files and walking the disk
// need no git at all (tv check of a plain folder works without it). The
// index and committed trees are read through git's plumbing commands
// instead of a Go implementation on purpose: the index format has
// versions, extensions, split and sparse forms that only git itself
// reads faithfully; a CI job on a shallow or partial clone, a pre-commit
// hook and `tv workspace import --rev` all run where the user already has
// git; and plumbing output is git's stable interface. Nothing here writes
// to the repository: `ls-files`, `ls-tree`, `rev-parse`, `config --get`
// and `cat-file` only read (the index is never refreshed).
package gitwork
