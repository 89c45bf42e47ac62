package engine

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names tv keeps for itself inside a checkout. They are never imported,
// committed or listed in a change plan.
const (
	ManifestName = ".thalix-workspace.json"
	// ManifestLogName holds, one JSON line each, the changes of the
	// commits made since the manifest was last written whole (see
	// ReadManifest).
	ManifestLogName = ".thalix-workspace.log"
	StatCacheName   = ".thalix-workspace.cache"
)

// isReserved reports whether a slash path at the checkout root is tv's own
// metadata: the manifest, the stat cache, and their temporary files
// (".thalix-workspace.*" and "..thalix-workspace.*").
func isReserved(p string) bool {
	return strings.HasPrefix(p, ".thalix-workspace.") || strings.HasPrefix(p, "..thalix-workspace.")
}

// CheckPath validates a slash-separated workspace path by the safe input
// rules: relative, no empty, "." or ".." component, no ".git" component
// (any case), valid UTF-8, no NUL, control character or backslash, at most
// MaxDepth components and MaxPathBytes bytes. Errors wrap ErrRefused and
// name the path and the rule.
func CheckPath(p string) error {
	refuse := func(rule string) error {
		return fmt.Errorf("%w: path %q: %s", ErrRefused, p, rule)
	}
	switch {
	case p == "":
		return refuse("empty path")
	case !utf8.ValidString(p):
		return refuse("not valid UTF-8")
	case len(p) > MaxPathBytes:
		return refuse(fmt.Sprintf("longer than %d bytes", MaxPathBytes))
	case strings.HasPrefix(p, "/") || (len(p) >= 2 && p[1] == ':'):
		return refuse("absolute paths are not allowed")
	}
	for _, r := range p {
		switch {
		case r == 0:
			return refuse("contains a NUL byte")
		case r == '\\':
			return refuse(`contains a backslash`)
		case unicode.IsControl(r):
			return refuse("contains a control character")
		}
	}
	parts := strings.Split(p, "/")
	if len(parts) > MaxDepth {
		return refuse(fmt.Sprintf("deeper than %d levels", MaxDepth))
	}
	for _, c := range parts {
		switch {
		case c == "" || c == ".":
			return refuse("empty or '.' component")
		case c == "..":
			return refuse("'..' component (path traversal)")
		case strings.EqualFold(c, ".git"):
			return refuse("'.git' component")
		}
	}
	return nil
}

// foldSet detects paths that collide when case is folded (as on macOS and
// Windows file systems), including through their folders.
type foldSet map[string]string

// add records p and every folder above it; it fails when one of them
// folds to the same key as a different, earlier path.
func (s foldSet) add(p string) error {
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		prefix := p[:i]
		key := strings.ToLower(prefix)
		if prev, ok := s[key]; ok && prev != prefix {
			return fmt.Errorf("%w: %q and %q are the same name when case is folded; they collide on macOS and Windows checkouts", ErrRefused, prev, prefix)
		}
		s[key] = prefix
	}
	return nil
}
