package icm

import (
	"cmp"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Entry is one entry of a workspace tree listing: its slash path relative
// to the root (no leading "./", never "." or "") and its type bits
// (fs.FileMode.Type(): 0 for a regular file, fs.ModeDir for a folder,
// symlink/device/FIFO/socket bits otherwise).
type Entry struct {
	Path string
	Type fs.FileMode
}

// ValidateEntries validates the tree whose complete listing is entries
// (every entry but the root itself, in fs.WalkDir order: each folder's
// entries sorted by name, a folder's contents right after the folder),
// reading only the Markdown files it needs from fsys (opened only for
// entries listed as regular files). Its findings equal ValidateTools' for
// an fsys holding exactly these entries.
//
// An entry is a folder when its Type has fs.ModeDir, a regular file when
// Type.IsRegular(), and irregular (a file-type finding) otherwise. The
// listing is checked as it is read, without sorting or copying it: an
// entry with an empty, absolute or unclean path (a "", "." or ".."
// element, a trailing slash), one listed inside a non-folder, one whose
// folder is not listed before it, and one out of order or listed twice are
// refused with an error naming the entry's index and path, before any
// file is opened. Other errors are failures to read fsys. ValidateEntries
// neither walks nor stats fsys: the caller's listing is the truth, and a
// file it lists but fsys lacks is a read error only when it must be read
// (a .md file).
func ValidateEntries(fsys fs.FS, entries []Entry, known []string) ([]Finding, error) {
	v := validator{fsys: fsys, known: known, entries: entries}
	return v.run()
}

// listingError is ValidateEntries' error for a listing that is no walk of
// a tree.
type listingError struct{ msg string }

func (e *listingError) Error() string { return e.msg }

func listingErrorf(i int, p, format string, args ...any) error {
	return &listingError{fmt.Sprintf("icm: listing entry %d %q: ", i, p) + fmt.Sprintf(format, args...)}
}

// scan checks that the listing is a walk of a tree and applies the checks
// that need every entry: irregular entries (rule 7) and empty folders
// (the gitkeep warning). Walk order makes both local: an entry's folder
// is the previous entry or one of its ancestors, and a folder is empty
// when the next entry is not inside it.
func (v *validator) scan() error {
	prev, prevDir := "", true // the root
	prevName := 0             // where prev's name starts
	for i, e := range v.entries {
		p := e.Path
		var (
			name   string // p's name
			inPrev bool   // p's folder is prev; else p's folder holds prev
			sib    string // the entry of p's folder that is or holds prev
		)
		switch {
		case prev == "": // the first entry
			if strings.IndexByte(p, '/') >= 0 || p == "" {
				if !isRelPath(p) {
					return badPath(i, p)
				}
				return listingErrorf(i, p, "not in walk order: the first entry is not in the root, so its folder is not listed before it")
			}
			name, inPrev = p, true
		case prevDir && len(p) > len(prev) && p[len(prev)] == '/' && p[:len(prev)] == prev &&
			strings.IndexByte(p[len(prev)+1:], '/') < 0:
			// The first entry of the folder prev.
			name, inPrev = p[len(prev)+1:], true
		case len(p) > prevName && p[:prevName] == prev[:prevName] && strings.IndexByte(p[prevName:], '/') < 0:
			// prev's next sibling (the common case for a file).
			name, sib = p[prevName:], prev[prevName:]
		default:
			// An entry of an ancestor of prev's folder, or an error.
			slash := strings.LastIndexByte(p, '/')
			if slash == 0 || !(slash < 0 || slash < len(prev) && prev[slash] == '/' && prev[:slash] == p[:slash]) {
				if !isRelPath(p) {
					return badPath(i, p)
				}
				if slash == len(prev) && p[:slash] == prev {
					return listingErrorf(i, p, "listed inside %q, which is not a folder", p[:slash])
				}
				return listingErrorf(i, p, "not in walk order: it follows %q, but its folder %q is not listed right before its contents", prev, p[:slash])
			}
			name, sib = p[slash+1:], prev[slash+1:]
			if k := strings.IndexByte(sib, '/'); k >= 0 {
				sib = sib[:k]
			}
		}
		if name == "" || name == "." || name == ".." {
			return badPath(i, p)
		}
		if !inPrev {
			switch c := strings.Compare(name, sib); {
			case c == 0 && p == prev:
				return listingErrorf(i, p, "listed twice")
			case c <= 0:
				return listingErrorf(i, p, "not in walk order: it follows %q (a folder's entries are sorted by name, its contents right after it)", prev)
			}
			if prevDir {
				v.emptyFolder(prev)
			}
		}
		dir := e.Type.IsDir()
		switch {
		case dir:
		case !e.Type.IsRegular():
			v.findings = append(v.findings, irregular(p, name, e.Type))
		case hasMarkdownExt(name):
			if v.markdown == nil {
				v.markdown = make([]int, 0, 64)
			}
			v.markdown = append(v.markdown, i)
		}
		prev, prevDir, prevName = p, dir, len(p)-len(name)
	}
	if prevDir && prev != "" {
		v.emptyFolder(prev)
	}
	return nil
}

func (v *validator) emptyFolder(p string) {
	v.warnf(RuleGitkeep, p, 0, "empty folder; add a .gitkeep so that it survives a commit")
}

// isRelPath reports whether p is a clean relative slash path: names
// separated by single slashes, none "." or "..". Unlike fs.ValidPath it
// takes names that are not UTF-8, as a disk may hold them.
func isRelPath(p string) bool {
	for {
		elem, rest, more := strings.Cut(p, "/")
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
		if !more {
			return true
		}
		p = rest
	}
}

// badPath is the error for a path that is not a clean relative slash path.
func badPath(i int, p string) error {
	switch {
	case p == "":
		return listingErrorf(i, p, "empty path")
	case p == ".":
		return listingErrorf(i, p, "the root, which a listing leaves out")
	case strings.HasPrefix(p, "/"):
		return listingErrorf(i, p, "absolute path; a listing holds paths relative to the root")
	default:
		return listingErrorf(i, p, "not a clean relative slash path (it has an empty, \".\" or \"..\" element, or a trailing slash)")
	}
}

// walkCmp compares slash paths in walk order: element by element, by
// name, a folder before its contents. That is byte order with '/' below
// every other byte.
func walkCmp(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	switch {
	case i == n:
		return cmp.Compare(len(a), len(b))
	case a[i] == '/':
		return -1
	case b[i] == '/':
		return 1
	}
	return cmp.Compare(a[i], b[i])
}

// find returns the index of the entry at p, or -1.
func (v *validator) find(p string) int {
	i, ok := slices.BinarySearchFunc(v.entries, p, func(e Entry, p string) int { return walkCmp(e.Path, p) })
	if !ok {
		return -1
	}
	return i
}

// kind returns the kind of the entry at p ("" is the root), or 0 when
// there is none.
func (v *validator) kind(p string) entryKind {
	if p == "" {
		return kindDir
	}
	if i := v.find(p); i >= 0 {
		return kindOf(v.entries[i].Type)
	}
	return 0
}

// kindAt is kind for a path in two parts.
func (v *validator) kindAt(c joined) entryKind {
	if c.dir == "" || c.rel == "" {
		return v.kind(c.dir + c.rel) // one is empty: no allocation
	}
	i, ok := slices.BinarySearchFunc(v.entries, c, func(e Entry, c joined) int { return walkCmpJoined(e.Path, c) })
	if !ok {
		return 0
	}
	return kindOf(v.entries[i].Type)
}

// walkCmpJoined is walkCmp(a, c.dir+"/"+c.rel) for non-empty c.dir and
// c.rel.
func walkCmpJoined(a string, c joined) int {
	n := len(c.dir)
	switch {
	case len(a) < n || a[:n] != c.dir:
		return walkCmp(a, c.dir) // a differs within c.dir, or is a prefix of it
	case len(a) == n:
		return -1 // a is c.dir, a prefix of the joined path
	case a[n] != '/':
		return 1 // '/' is below every other byte
	}
	return walkCmp(a[n+1:], c.rel)
}

// within reports whether p lies inside the folder dir.
func within(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// next returns the index of the first entry after entry i and its
// contents: its next sibling, if it has one.
func (v *validator) next(i int) int {
	dir := v.entries[i].Path
	lo, hi := i+1, len(v.entries)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if within(v.entries[m].Path, dir) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
