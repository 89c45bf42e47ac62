package engine

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/thalix/tv/gitname"
	"github.com/thalix/tv/mounts"
)

// Names tv keeps for itself inside a checkout. They are never imported,
// committed or listed in a change plan.
const (
	// ManifestName is the checkout's manifest. Its one source is
	// mounts.ManifestName (mounts is a leaf engine imports: the registry
	// of mounted checkouts finds them by it).
	ManifestName = mounts.ManifestName
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
// rules: relative, valid UTF-8, no NUL, control character or backslash, at
// most MaxDepth components and MaxPathBytes bytes, and every component a
// name CheckName accepts (its folders also as folder names). It is the one
// path rule of every entry point: import, commit, the server hook. Errors
// wrap ErrRefused and name the path and the rule.
func CheckPath(p string) error { return checkPathFrom(p, 0) }

// checkPathFrom is CheckPath for a path whose first from bytes, which end
// with a '/', are the folders of a path CheckPath accepted: those folders
// are not checked again (a tree's paths share their folders). Whole-path
// rules are still applied first, so the error is CheckPath's.
func checkPathFrom(p string, from int) error {
	if from >= len(p) || from > 0 && p[from-1] != '/' {
		from = 0
	}
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
	for _, r := range p[from:] {
		switch {
		case r == 0:
			return refuse("contains a NUL byte")
		case r == '\\':
			return refuse(`contains a backslash`)
		case unicode.IsControl(r):
			return refuse("contains a control character")
		}
	}
	if n := strings.Count(p, "/") + 1; n > MaxDepth {
		return refuse(fmt.Sprintf("deeper than %d levels", MaxDepth))
	}
	for rest := p[from:]; rest != ""; {
		c, tail, folder := strings.Cut(rest, "/")
		if why := nameProblem(c, folder); why != "" {
			return refuse(why)
		}
		if folder && tail == "" {
			return refuse("empty or '.' component")
		}
		rest = tail
	}
	return nil
}

// CheckName validates one file or folder name (a single path component)
// by CheckPath's component rules: not empty, "." or "..", at most
// MaxComponentBytes bytes, not ".git" or a name git's `fsck --strict`, HFS+
// or NTFS treats as ".git", not a ".gitmodules" look-alike (nor, for a
// folder, a ".gitattributes" look-alike), no trailing dot or space.
// Errors wrap ErrRefused.
func CheckName(name string, folder bool) error {
	if why := nameProblem(name, folder); why != "" {
		return fmt.Errorf("%w: name %q: %s", ErrRefused, name, why)
	}
	return nil
}

// nameProblem is CheckName's rule text, or "".
func nameProblem(name string, folder bool) string {
	switch {
	case name == "" || name == ".":
		return "empty or '.' component"
	case name == "..":
		return "'..' component (path traversal)"
	case len(name) > MaxComponentBytes:
		return fmt.Sprintf("a component is %d bytes, over the %d-byte limit (MaxComponentBytes)", len(name), MaxComponentBytes)
	}
	return gitname.Problem(name, folder)
}

// foldSet detects paths that collide on case-insensitive, normalising file
// systems (macOS, Windows), including through their folders: the key is
// FoldKey, full Unicode case folding plus NFC, so "café" in NFC and NFD
// and "ſ" beside "s" collide.
type foldSet map[string]string

// add records p and every folder above it; it fails when one of them
// folds to the same key as a different, earlier path.
func (s foldSet) add(p string) error { return s.addFrom(p, 0) }

// addFrom is add for a path whose first from bytes, ending with a '/', are
// the folders of a path add accepted: those are recorded already.
func (s foldSet) addFrom(p string, from int) error {
	if from > len(p) || from > 0 && p[from-1] != '/' {
		from = 0
	}
	for i := from; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		prefix := p[:i]
		key := FoldKey(prefix)
		if prev, ok := s[key]; ok && prev != prefix {
			return fmt.Errorf("%w: %q and %q are the same name once case is folded and Unicode normalised; they collide on macOS and Windows checkouts", ErrRefused, prev, prefix)
		}
		s[key] = prefix
	}
	return nil
}

// FoldKey returns the name under which macOS and Windows file systems store
// a path: full Unicode case folding and NFC normalisation (HFS+ ignorable
// code points dropped). Two paths with one key collide in a checkout.
func FoldKey(p string) string { return gitname.Key(p) }

// sharedFolders is how many leading bytes p shares with prev up to and
// including their last common '/': the folders both paths lie in.
func sharedFolders(prev, p string) int {
	n := min(len(prev), len(p))
	last := 0
	for i := 0; i < n && prev[i] == p[i]; i++ {
		if p[i] == '/' {
			last = i + 1
		}
	}
	return last
}
