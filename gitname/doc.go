// Package gitname holds the name rules git and the file systems it
// protects apply to one path component: the names git's own
// `fsck --strict` and verify_path refuse (".git" and its HFS+ and NTFS
// look-alikes, ".gitmodules" and ".gitattributes" look-alikes), names
// Windows cannot keep (a trailing dot or space), and the key under which
// two names are the same file on a case-insensitive, normalising file
// system (full Unicode case folding plus NFC).
//
// It is a leaf: engine.CheckPath (import, commit, the server hook) and
// wsfs (the write targets of `tv mcp local`) both apply it, so every entry
// point refuses the same names.
package gitname
