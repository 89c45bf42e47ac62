package ignore

import (
	"errors"
	"os"
)

// ErrBadPattern is wrapped by errors about invalid caller patterns.
var ErrBadPattern = errors.New("bad ignore pattern")

// DefaultPatterns is the default skip set for list_directory and grep.
var DefaultPatterns = []string{".git", "node_modules", "bazel-*", "dist", "build", ".cache", ".next", "target"}

// Options selects the ignore sources a Matcher applies.
type Options struct {
	// Defaults applies DefaultPatterns.
	Defaults bool
	// GitIgnore honours .gitignore files (root and nested) and .git/info/exclude.
	GitIgnore bool
	// Extra holds additional gitignore-syntax patterns, always applied.
	Extra []string
}

// Matcher decides whether slash-separated paths relative to the root are ignored.
type Matcher struct {
	root *os.Root
	opts Options
}

// NewMatcher returns a Matcher over root.
func NewMatcher(root *os.Root, opts Options) (*Matcher, error) {
	return &Matcher{root: root, opts: opts}, nil
}

// Ignored reports whether rel (slash-separated, relative to the root) is ignored.
func (m *Matcher) Ignored(rel string, isDir bool) bool { return false }
