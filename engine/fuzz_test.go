package engine

import (
	"io/fs"
	"path"
	"strings"
	"testing"
)

// FuzzCheckPath: every path CheckPath accepts is a clean, relative,
// fs.ValidPath without "..", ".git", backslashes or control characters.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a", "a/b.md", "../x", "/abs", "a//b", "a/./b", ".git/config", "A/.GIT", `a\b`, "C:/x", "a\x00b", "stages/01-research/CONTEXT.md", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if CheckPath(p) != nil {
			return
		}
		if !fs.ValidPath(p) || path.Clean(p) != p || strings.ContainsAny(p, "\\\x00") {
			t.Fatalf("accepted unsafe path %q", p)
		}
		for _, c := range strings.Split(p, "/") {
			if c == ".." || strings.EqualFold(c, ".git") || len(c) > MaxComponentBytes || strings.HasSuffix(c, " ") {
				t.Fatalf("accepted %q with component %q", p, c)
			}
		}
	})
}

// FuzzTrailers: trailer parsing never panics and finds what commitMessage
// wrote.
func FuzzTrailers(f *testing.F) {
	f.Add("reason", "demo")
	f.Fuzz(func(t *testing.T, reason, name string) {
		if ValidateReason(reason) != nil || ValidateName(name) != nil {
			return
		}
		tr := parseTrailers(commitMessage(reason, trailerName, name))
		if tr[trailerName] != name {
			t.Fatalf("name %q round-tripped as %q", name, tr[trailerName])
		}
	})
}
