package ignore

import (
	"bytes"
	"strings"
)

// pattern is one parsed gitignore line (git's struct path_pattern).
type pattern struct {
	glob     string // the pattern proper: no "!", no trailing "/"
	negate   bool   // "!pattern"
	dirOnly  bool   // trailing "/": matches directories only
	baseName bool   // no "/" inside: matched against the base name at any depth
	literal  bool   // no glob characters: plain comparison suffices
}

// list is the patterns of one source (a .gitignore file, info/exclude, or
// the caller's Extra patterns), with the directory they are relative to.
type list struct {
	base string // "" for the root, else "a/b" (no trailing slash)
	pats []pattern
}

// parseLine parses one line the way git's add_patterns_from_buffer,
// trim_trailing_spaces and parse_path_pattern do. ok is false for lines
// that yield no pattern (blank lines and comments).
func parseLine(line string) (pattern, bool) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i] // git handles patterns as C strings
	}
	if line == "" || line[0] == '#' {
		return pattern{}, false
	}
	line = trimTrailingSpaces(line)
	var p pattern
	if strings.HasPrefix(line, "!") {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	p.baseName = !strings.Contains(line, "/")
	p.glob = line
	p.literal = !strings.ContainsAny(line, `*?[\`)
	return p, true
}

// trimTrailingSpaces removes unescaped trailing spaces (only ' ', as git does).
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// parseFile parses the content of a .gitignore-syntax file: a leading
// UTF-8 BOM is skipped, lines end at "\n" with an optional "\r" before it.
func parseFile(data []byte, base string) *list {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	l := &list{base: base}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if p, ok := parseLine(string(line)); ok {
			l.pats = append(l.pats, p)
		}
	}
	return l
}

// matches reports whether p matches the path rel (relative to the root,
// slash-separated) whose last element is name, for a pattern from a list
// based at base (git's match_basename / match_pathname).
func (p *pattern) matches(rel, name, base string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.baseName {
		if p.literal {
			return p.glob == name
		}
		return wildmatch(p.glob, name, 0)
	}
	glob := strings.TrimPrefix(p.glob, "/")
	sub := rel
	if base != "" {
		if len(rel) <= len(base) || rel[len(base)] != '/' || rel[:len(base)] != base {
			return false
		}
		sub = rel[len(base)+1:]
	}
	if p.literal {
		return glob == sub
	}
	// Like git's match_pathname: the part before the first glob character
	// is compared on its own and only the rest goes to wildmatch. This is
	// observable: in "a**" the "**" then starts the wildmatch pattern and
	// may cross slashes ("/a**" matches "ab/c"), unlike "*a**".
	n := strings.IndexAny(glob, `*?[\`)
	if len(sub) < n || sub[:n] != glob[:n] {
		return false
	}
	return wildmatch(glob[n:], sub[n:], wmPathname)
}

// match returns the last pattern in l matching the path, or nil.
func (l *list) match(rel, name string, isDir bool) *pattern {
	for i := len(l.pats) - 1; i >= 0; i-- {
		if l.pats[i].matches(rel, name, l.base, isDir) {
			return &l.pats[i]
		}
	}
	return nil
}
