package ignore

import (
	"path"
	"regexp"
	"strings"
	"testing"
)

// refPattern is an independent reference for one gitignore line: it
// translates the documented rules (gitignore(5)) into a Go regexp instead
// of interpreting the glob the way wildmatch.go does. It covers a subset
// of the syntax (no backslashes, spaces or POSIX classes); ok is false for
// lines outside it.
type refPattern struct {
	re       *regexp.Regexp
	negate   bool
	dirOnly  bool
	anchored bool
}

var refSafe = regexp.MustCompile(`^[a-z0-9._/*?!\[\]^-]*$`)

func newRefPattern(line string) (refPattern, bool) {
	var rp refPattern
	if line == "" || strings.HasPrefix(line, "#") || !refSafe.MatchString(line) {
		return rp, false
	}
	if strings.HasPrefix(line, "!") {
		rp.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		rp.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" || strings.Contains(line, "!") && !strings.Contains(line, "[") {
		return rp, false
	}
	rp.anchored = strings.Contains(line, "/")
	if rp.anchored {
		line = strings.TrimPrefix(line, "/")
	}
	firstGlob := strings.IndexAny(line, "*?[")
	var b strings.Builder
	b.WriteString("^(?:")
	for i := 0; i < len(line); {
		c := line[i]
		switch c {
		case '*':
			j := i
			for j < len(line) && line[j] == '*' {
				j++
			}
			// A run of two or more stars is special ("**") only between
			// slashes (or at the pattern's start or end). git treats the
			// start of the glob part after a literal prefix as a start too.
			leftOK := i == 0 || line[i-1] == '/' || (rp.anchored && i == firstGlob)
			if j-i >= 2 && leftOK && j == len(line) {
				b.WriteString(".*")
			} else if j-i >= 2 && leftOK && line[j] == '/' {
				b.WriteString("(?:.*/)?")
				j++
			} else {
				b.WriteString("[^/]*")
			}
			i = j
		case '?':
			b.WriteString("[^/]")
			i++
		case '[':
			end, class, ok := refClass(line, i)
			if !ok {
				return rp, false
			}
			b.WriteString(class)
			i = end
		default:
			if c == ']' || c == '^' || c == '!' {
				return rp, false // outside the reference's subset
			}
			b.WriteString(regexp.QuoteMeta(string(c)))
			i++
		}
	}
	b.WriteString(")$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return rp, false
	}
	rp.re = re
	return rp, true
}

// refClass translates a simple bracket expression starting at line[i]:
// an optional ! or ^, then letters, digits, '.', '_' and ranges a-z.
func refClass(line string, i int) (end int, class string, ok bool) {
	j := i + 1
	neg := false
	if j < len(line) && (line[j] == '!' || line[j] == '^') {
		neg = true
		j++
	}
	start := j
	for j < len(line) && line[j] != ']' {
		c := line[j]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return 0, "", false
		}
		j++
	}
	body := line[start:j]
	if j >= len(line) || body == "" || strings.HasPrefix(body, "-") || strings.HasSuffix(body, "-") || strings.Contains(body, "--") {
		return 0, "", false
	}
	for k := 1; k+1 < len(body); k++ {
		if body[k] == '-' && body[k-1] > body[k+1] {
			return 0, "", false // reversed range: matches nothing in git, invalid in regexp
		}
		if body[k] == '-' && k+2 < len(body) && body[k+2] == '-' {
			return 0, "", false // a-b-c: chained ranges differ
		}
	}
	if neg {
		return j + 1, "[^/" + body + "]", true
	}
	return j + 1, "[" + body + "]", true
}

func (rp refPattern) matches(p string, isDir bool) bool {
	if rp.dirOnly && !isDir {
		return false
	}
	if rp.anchored {
		return rp.re.MatchString(p)
	}
	return rp.re.MatchString(path.Base(p))
}

// refIgnored applies git's precedence (last matching line wins) and its
// parent rule (a path below an excluded directory is excluded).
func refIgnored(pats []refPattern, p string, isDir bool) bool {
	decide := func(q string, dir bool) bool {
		for i := len(pats) - 1; i >= 0; i-- {
			if pats[i].matches(q, dir) {
				return !pats[i].negate
			}
		}
		return false
	}
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		if decide(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return decide(p, isDir)
}

var refPath = regexp.MustCompile(`^[a-z0-9._-]+(/[a-z0-9._-]+)*$`)

// FuzzMatch checks the Matcher (via Extra, which has the semantics of a
// root .gitignore) against the regexp reference above when the input is in
// the reference's subset, and for every input checks that nothing panics
// and that a path below an ignored directory is ignored.
func FuzzMatch(f *testing.F) {
	seeds := []struct {
		pats, path string
		dir        bool
	}{
		{"*.log", "a/b.log", false},
		{"a/**/b", "a/x/y/b", false},
		{"**/foo\n!foo/bar", "x/foo/bar", false},
		{"/a**", "ab/c", false},
		{"abc/**", "abc/d/e", true},
		{"a[!b]c\n!a?c", "axc", false},
		{"x/\n!x/y", "x/y", false},
		{"[a-c]*/", "b1/q", false},
		{"*", "a", false},
		{"a**z", "a/z", false},
		{"**/", "q/r", true},
		{"a/*/", "a/b/c", false},
		{"[]", "x", false},
		{"\\", "x", false},
		{"[[:alpha:]-z]", "-", false},
		{"a/**", "a", true},
	}
	for _, s := range seeds {
		f.Add(s.pats, s.path, s.dir)
	}
	f.Fuzz(func(t *testing.T, pats, p string, isDir bool) {
		lines := strings.Split(pats, "\n")
		if len(lines) > 4 {
			lines = lines[:4]
		}
		m, err := NewMatcher(nil, Options{Extra: lines})
		if err != nil {
			return // rejected as a bad pattern: fine
		}
		got := m.Ignored(p, isDir)
		// Parent rule, for any input.
		if c := clean(p); c != "" {
			if d, _ := splitPath(c); d != "" && m.Ignored(d, true) && !got {
				t.Fatalf("parent %q ignored but %q not", d, c)
			}
		}
		// Deterministic.
		if m.Ignored(p, isDir) != got {
			t.Fatal("not deterministic")
		}
		if !refPath.MatchString(p) || path.Clean(p) != p || strings.Contains("/"+p+"/", "/../") || strings.Contains("/"+p+"/", "/./") {
			return
		}
		var ref []refPattern
		for _, l := range lines {
			rp, ok := newRefPattern(l)
			if !ok {
				return
			}
			ref = append(ref, rp)
		}
		if want := refIgnored(ref, p, isDir); got != want {
			t.Fatalf("patterns %q, path %q (dir=%v): Ignored = %v, reference = %v", lines, p, isDir, got, want)
		}
	})
}
