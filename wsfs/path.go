package wsfs

import (
	"fmt"
	"path"
	"strings"

	"github.com/thalix/tv/gitname"
)

// CleanPath checks a workspace-relative, slash-separated path and returns
// it cleaned ("." names the workspace root). It refuses, wrapping
// ErrUnsafePath: an empty path, a path over MaxPathBytes or with a
// component over MaxComponentBytes or more than MaxDepth components, a NUL
// byte, a backslash (Windows separators and UNC forms such as
// \\server\share), an absolute path, a Windows drive form such as C:x, and
// any ".." component, even one that would stay inside ("a/../b").
// CleanPath touches no file system.
func CleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", unsafef(p, "the path is empty")
	case len(p) > MaxPathBytes:
		return "", unsafef(p, "the path is %d bytes, over the %d-byte limit (MaxPathBytes)", len(p), MaxPathBytes)
	case strings.IndexByte(p, 0) >= 0:
		return "", unsafef(p, "the path contains a NUL byte")
	case strings.IndexByte(p, '\\') >= 0:
		return "", unsafef(p, "the path contains a backslash; Windows and UNC path forms are refused, use / as the separator")
	case p[0] == '/':
		return "", unsafef(p, "absolute paths are refused; give a path relative to the workspace root")
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return "", unsafef(p, "Windows drive paths are refused; give a path relative to the workspace root")
	}
	n := 0
	for c := range strings.SplitSeq(p, "/") {
		if c == ".." {
			return "", unsafef(p, "\"..\" components are refused")
		}
		if len(c) > MaxComponentBytes {
			return "", unsafef(p, "a component is %d bytes, over the %d-byte limit (MaxComponentBytes)", len(c), MaxComponentBytes)
		}
		if c != "" && c != "." {
			n++
		}
	}
	if n > MaxDepth {
		return "", unsafef(p, "the path has %d components, over the limit of %d (MaxDepth)", n, MaxDepth)
	}
	return path.Clean(p), nil
}

// Split returns the components of a path cleaned by CleanPath; the root
// "." has none.
func Split(clean string) []string {
	if clean == "." || clean == "" {
		return nil
	}
	return strings.Split(clean, "/")
}

// InGitDir reports whether a cleaned path is, or is inside, a directory or
// file named ".git" as git, macOS (HFS+) or Windows (NTFS) sees it: any
// case, ignorable code points such as U+200C, trailing dots and spaces,
// the short name "git~1" (gitname.IsDotGit).
func InGitDir(clean string) bool {
	for _, c := range Split(clean) {
		if gitname.IsDotGit(c) {
			return true
		}
	}
	return false
}

// CheckWriteName refuses, wrapping ErrUnsafePath, a cleaned write target
// with a component git or a checkout cannot hold (gitname.Problem: a
// ".gitmodules" look-alike, a ".gitattributes" look-alike as a folder, a
// trailing dot or space). InGitDir covers ".git" itself.
func CheckWriteName(clean string) error {
	parts := Split(clean)
	for i, c := range parts {
		if why := gitname.Problem(c, i < len(parts)-1); why != "" {
			return unsafef(clean, "component %q: %s", c, why)
		}
	}
	return nil
}

func isASCIILetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

// Show quotes a path for an error message, shortened to 200 bytes.
func Show(p string) string {
	const max = 200
	if len(p) > max {
		return fmt.Sprintf("%q… (%d bytes)", p[:max], len(p))
	}
	return fmt.Sprintf("%q", p)
}

func unsafef(p, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrUnsafePath, Show(p), fmt.Sprintf(format, args...))
}
