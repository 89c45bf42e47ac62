package gitname

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// hfsIgnorable reports whether HFS+ drops code point r when it compares
// names (git's next_hfs_char list): zero-width joiners, direction marks and
// the byte-order mark. ".g\u200cit" is ".git" on HFS+.
func hfsIgnorable(r rune) bool {
	switch r {
	case 0x200c, 0x200d, 0x200e, 0x200f,
		0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f,
		0xfeff:
		return true
	}
	return false
}

// isHFSDot reports whether name is "." + needle (an ASCII lower-case word)
// once HFS+ ignorable code points are dropped and ASCII case is folded,
// as git's is_hfs_dot_generic.
func isHFSDot(name, needle string) bool {
	i := -1 // the dot is next; then needle[i]
	for _, r := range name {
		if hfsIgnorable(r) {
			continue
		}
		switch {
		case r > 127:
			return false
		case i < 0:
			if r != '.' {
				return false
			}
		case i >= len(needle) || lowerASCII(byte(r)) != needle[i]:
			return false
		}
		i++
	}
	return i == len(needle)
}

// endsNTFS reports whether the rest of a name after an NTFS match is only
// dots and spaces (which NTFS drops), optionally followed by ':' (an
// alternate data stream of the same file).
func endsNTFS(rest string) bool {
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case ':', '\\':
			return true
		case '.', ' ':
		default:
			return false
		}
	}
	return true
}

// isNTFSDotGit reports whether NTFS opens name as ".git": ".git" or its
// 8.3 short name "git~1" in any case, followed by dots and spaces.
func isNTFSDotGit(name string) bool {
	switch {
	case hasPrefixFold(name, ".git"):
		return endsNTFS(name[4:])
	case hasPrefixFold(name, "git~1"):
		return endsNTFS(name[5:])
	}
	return false
}

// isNTFSDot reports whether NTFS may open name as "." + needle: the name
// itself with trailing dots and spaces, its regular 8.3 short form (the
// first six letters, "~1" to "~4") or the hashed fall-back short form
// (shortPrefix, '~', digits), as git's is_ntfs_dot_generic.
func isNTFSDot(name, needle, shortPrefix string) bool {
	if len(name) > 0 && name[0] == '.' && hasPrefixFold(name[1:], needle) {
		return endsNTFS(name[1+len(needle):])
	}
	if hasPrefixFold(name, needle[:6]) && len(name) >= 8 && name[6] == '~' && name[7] >= '1' && name[7] <= '4' {
		return endsNTFS(name[8:])
	}
	sawTilde := false
	for i := 0; i < 8; i++ {
		switch {
		case i >= len(name):
			return false
		case sawTilde:
			if name[i] < '0' || name[i] > '9' {
				return false
			}
		case name[i] == '~':
			i++
			if i >= len(name) || name[i] < '1' || name[i] > '9' {
				return false
			}
			sawTilde = true
		case i >= 6 || name[i] >= 0x80 || lowerASCII(name[i]) != shortPrefix[i]:
			return false
		}
	}
	return endsNTFS(name[8:])
}

// IsDotGit reports whether name is ".git" as git, HFS+ or NTFS sees it:
// any case, HFS+ ignorable code points anywhere, trailing dots and spaces,
// an NTFS stream suffix (".git::$INDEX_ALLOCATION"), or the short name
// "git~1". git's fsck reports such an entry as hasDotgit.
func IsDotGit(name string) bool {
	return isHFSDot(name, "git") || isNTFSDotGit(name)
}

// IsDotGitmodules reports whether name is ".gitmodules" as git, HFS+ or
// NTFS sees it (short names "gitmod~1" and "gi7eba~N" included).
func IsDotGitmodules(name string) bool {
	return isHFSDot(name, "gitmodules") || isNTFSDot(name, "gitmodules", "gi7eba")
}

// IsDotGitattributes reports whether name is ".gitattributes" as git, HFS+
// or NTFS sees it (short names "gitatt~1" and "gi7d29~N" included).
func IsDotGitattributes(name string) bool {
	return isHFSDot(name, "gitattributes") || isNTFSDot(name, "gitattributes", "gi7d29")
}

// Problem returns why name cannot be a file's (folder false) or a
// folder's (folder true) name in a tree git and every checkout accept, or
// "" when it can. It does not check the length, characters or encoding,
// which the caller's limits cover.
func Problem(name string, folder bool) string {
	switch {
	case name == "" || name == "." || name == "..":
		return "empty, '.' or '..' component"
	case IsDotGit(name):
		return "'.git' component, or a name git, macOS (HFS+) or Windows (NTFS) treats as '.git'"
	case IsDotGitmodules(name):
		return "'.gitmodules' or a look-alike: tv stores no submodules"
	case folder && IsDotGitattributes(name):
		return "a folder named '.gitattributes' or a look-alike: git requires a file there"
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
		return "ends in a dot or a space, which Windows drops (the name would change on checkout)"
	}
	return ""
}

//go:generate go run gen_fold.go

// fold does full Unicode case folding ("ſ" and "s", "ß" and "ss" fold
// alike), rune by rune, as golang.org/x/text/cases.Fold does: from the
// table gen_fold.go takes from that package (TestFoldTableIsCurrent), not
// through it, whose language tables cost every tv process ~0.7 ms of
// start-up on the benchmark machine (page faults of its initialisation).
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if k, ok := slices.BinarySearch(foldFrom[:], r); ok {
			b.WriteString(foldTo[foldOff[k]:foldOff[k+1]])
		} else {
			b.WriteString(s[i : i+n]) // unchanged, an invalid byte too
		}
		i += n
	}
	return b.String()
}

// Key returns the name under which case-insensitive, normalising file
// systems (macOS, Windows) store s: HFS+ ignorable code points dropped,
// canonical decomposition, full Unicode case folding, then NFC. Two paths
// with the same key are one file there. ASCII input takes a fast path.
func Key(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	s = strings.Map(func(r rune) rune {
		if hfsIgnorable(r) {
			return -1
		}
		return r
	}, s)
	return norm.NFC.String(fold(norm.NFD.String(s)))
}

func lowerASCII(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// hasPrefixFold reports whether s starts with the ASCII lower-case prefix
// p, ASCII case ignored.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if lowerASCII(s[i]) != p[i] {
			return false
		}
	}
	return true
}
