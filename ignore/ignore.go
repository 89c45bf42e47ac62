package ignore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"unicode/utf8"
)

// Sentinel errors.
var (
	// ErrBadPattern is wrapped by the error NewMatcher returns for an
	// invalid caller pattern (Options.Extra), or for too many of them.
	ErrBadPattern = errors.New("bad ignore pattern")
	// ErrTooLarge is wrapped by Matcher.Err for an ignore file over
	// MaxIgnoreFileBytes (which matching skipped as if absent).
	ErrTooLarge = errors.New("ignore file too large")
)

// DefaultPatterns is the default skip set of list_directory and grep. Each
// is a gitignore pattern without a slash, so it matches a file or directory
// of that name at any depth.
var DefaultPatterns = []string{".git", "node_modules", "bazel-*", "dist", "build", ".cache", ".next", "target"}

// Names of the ignore files read through the root.
const (
	gitIgnoreName = ".gitignore"
	excludePath   = ".git/info/exclude"
)

// Options selects the ignore sources a Matcher applies.
type Options struct {
	// Defaults applies DefaultPatterns (callers pass !include_ignored). The
	// defaults are a layer of their own: no negation anywhere (not in a
	// .gitignore, not in Extra) re-includes a path they match.
	Defaults bool
	// GitIgnore honours .gitignore files (root and nested) and
	// .git/info/exclude (callers pass !include_ignored). Only a .git that is
	// a directory inside the root is consulted; core.excludesFile comes
	// from the caller (GlobalExcludes), and the info/exclude of a linked
	// worktree's common directory is not read.
	GitIgnore bool
	// GlobalExcludes is the content of git's core.excludesFile (the
	// caller reads it: where it is depends on git's configuration). It has
	// the lowest precedence, below .git/info/exclude, as in git; it is
	// applied only with GitIgnore.
	GlobalExcludes []byte
	// HasIgnoreFile, when set, says whether directory dir ("" for the
	// root) may hold a .gitignore: a caller that has listed the directory
	// already knows, and the Matcher then skips the read (one failed open
	// per directory otherwise). It must return true when it cannot tell.
	HasIgnoreFile func(dir string) bool
	// Extra holds additional gitignore-syntax patterns from the caller,
	// always applied. They are relative to the root and take precedence
	// over .gitignore files and info/exclude, like `git ls-files --exclude`:
	// a "!pattern" here can re-include a path a .gitignore excludes (but,
	// as in git, not one below an excluded directory).
	Extra []string
}

// Matcher decides whether slash-separated paths relative to the root are
// ignored, with git's semantics: later lines win over earlier ones, deeper
// .gitignore files over shallower ones, .gitignore files over info/exclude,
// Extra over all of them; anything below an ignored directory is ignored.
//
// Nested .gitignore files are read lazily through the root, never through
// a symlink: a .gitignore that is a symlink or not a regular file, one in a
// directory reached through a symlink, or one over MaxIgnoreFileBytes is
// skipped as if absent. What was read is cached for the Matcher's life.
// A Matcher is safe for concurrent use.
type Matcher struct {
	root      *os.Root
	rootDir   *rootDir // for openat2 reads; nil if unavailable
	defaults  []pattern
	extra     *list // nil if none
	exclude   *list // info/exclude; nil if none
	global    *list // core.excludesFile; nil if none
	gitIgnore bool
	hasFile   func(dir string) bool

	mu       sync.RWMutex
	dirs     map[string]*dirState
	tooLarge string // the first ignore file skipped for its size
}

// UseListings sets what Options.HasIgnoreFile sets, for a Matcher made
// by someone who cannot know it: the scan that will list the folders. It
// must be called before the Matcher is first used.
func (m *Matcher) UseListings(hasIgnoreFile func(dir string) bool) {
	m.hasFile = hasIgnoreFile
}

// dirState is what the Matcher knows about one directory.
type dirState struct {
	ignored bool    // the directory or one of its parents is ignored
	lists   []*list // .gitignore lists that apply inside it, root first
}

// NewMatcher returns a Matcher for the tree under root. It validates
// opts.Extra (at most MaxExtraPatterns patterns of at most MaxPatternBytes
// bytes each, valid UTF-8, no NUL or newline) and reads .git/info/exclude
// when opts.GitIgnore is set; the root's own .gitignore is read on first use.
// root may be nil when GitIgnore is false. With GitIgnore on Linux, the
// Matcher keeps a descriptor of the root directory open (for openat2(2)
// reads) until it is garbage collected.
func NewMatcher(root *os.Root, opts Options) (*Matcher, error) {
	m := &Matcher{root: root, gitIgnore: opts.GitIgnore, hasFile: opts.HasIgnoreFile, dirs: map[string]*dirState{}}
	if len(opts.Extra) > MaxExtraPatterns {
		return nil, fmt.Errorf("%w: %d patterns given, at most %d allowed", ErrBadPattern, len(opts.Extra), MaxExtraPatterns)
	}
	if len(opts.Extra) > 0 {
		m.extra = &list{}
		for i, s := range opts.Extra {
			if err := validatePattern(s); err != nil {
				return nil, fmt.Errorf("%w: pattern %d %q: %v", ErrBadPattern, i+1, truncate(s, 64), err)
			}
			if p, ok := parseLine(s); ok {
				m.extra.pats = append(m.extra.pats, p)
			}
		}
	}
	if opts.Defaults {
		for _, s := range DefaultPatterns {
			p, _ := parseLine(s)
			m.defaults = append(m.defaults, p)
		}
	}
	if opts.GitIgnore && root != nil {
		m.rootDir = openRootDir(root)
		if data := m.read(excludePath); data != nil {
			m.exclude = parseFile(data, "")
		}
	}
	if opts.GitIgnore && len(opts.GlobalExcludes) > 0 {
		if len(opts.GlobalExcludes) > MaxIgnoreFileBytes {
			return nil, fmt.Errorf("%w: core.excludesFile is %d bytes, over the %d-byte (%d MiB) limit (MaxIgnoreFileBytes)", ErrTooLarge, len(opts.GlobalExcludes), MaxIgnoreFileBytes, MaxIgnoreFileBytes>>20)
		}
		m.global = parseFile(opts.GlobalExcludes, "")
	}
	return m, nil
}

// Err reports an ignore file that matching skipped because it is over
// MaxIgnoreFileBytes (wrapping ErrTooLarge, naming the file), or nil.
// Callers that must apply every rule git would (tv check, walk-test)
// refuse the tree then; the MCP tools list on without it.
func (m *Matcher) Err() error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.tooLarge == "" {
		return nil
	}
	return fmt.Errorf("%w: %s is over the %d-byte (%d MiB) limit (MaxIgnoreFileBytes); shorten it or use patterns that cover more paths", ErrTooLarge, m.tooLarge, MaxIgnoreFileBytes, MaxIgnoreFileBytes>>20)
}

// validatePattern checks one caller pattern.
func validatePattern(s string) error {
	switch {
	case len(s) > MaxPatternBytes:
		return fmt.Errorf("longer than %d bytes", MaxPatternBytes)
	case !utf8.ValidString(s):
		return errors.New("not valid UTF-8")
	case strings.ContainsAny(s, "\x00\n\r"):
		return errors.New("contains a NUL, newline or carriage return")
	case strings.TrimSpace(s) == "" || strings.TrimSpace(s) == "!":
		return errors.New("empty pattern")
	case strings.HasPrefix(s, "#"):
		return errors.New(`starts with "#", which makes it a comment (write \# for a literal #)`)
	case strings.HasSuffix(trimTrailingSpaces(s), `\`) && !strings.HasSuffix(trimTrailingSpaces(s), `\\`):
		return errors.New("ends with an unfinished backslash escape")
	}
	core := strings.TrimSuffix(trimTrailingSpaces(strings.TrimPrefix(strings.TrimPrefix(s, "!"), "/")), "/")
	body := "/" + core + "/"
	if strings.Contains(body, "/./") || strings.Contains(body, "/../") || strings.Contains(body, "//") {
		return errors.New(`has an empty, "." or ".." path element, so it can never match (write it relative to the root, like "build/" or "/docs/*.md")`)
	}
	return checkBrackets(s)
}

// checkBrackets rejects a "[" class that is never closed or names an
// unknown [:class:] — git silently matches nothing for those.
func checkBrackets(s string) error {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(s) && (s[j] == '!' || s[j] == '^') {
				j++
			}
			first := true
			for ; j < len(s); j++ {
				if s[j] == ']' && !first {
					break
				}
				first = false
				if s[j] == '\\' {
					j++
					continue
				}
				if s[j] == '[' && j+1 < len(s) && s[j+1] == ':' {
					end := strings.Index(s[j+2:], ":]")
					if end >= 0 && !strings.Contains(s[j+2:j+2+end], "]") {
						if _, known := charClass(s[j+2:j+2+end], 0); !known {
							return fmt.Errorf("unknown character class [:%s:]", s[j+2:j+2+end])
						}
						j += 2 + end + 1
					}
				}
			}
			if j >= len(s) {
				return errors.New(`unclosed "[" character class (write \[ for a literal [)`)
			}
			i = j
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Ignored reports whether rel, a slash-separated path relative to the root,
// is ignored; isDir says whether it is a directory (for patterns ending in
// "/"; pass false for a symlink to a directory, as git does). A path below
// an ignored directory is ignored. The root itself ("" or ".") never is.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	rel = clean(rel)
	if rel == "" {
		return false
	}
	dir, name := splitPath(rel)
	d := m.dir(dir)
	if d.ignored {
		return true
	}
	return m.excluded(rel, name, isDir, d)
}

// clean normalises rel to "" for the root or "a/b" form.
func clean(rel string) string {
	if rel == "" || rel == "." {
		return ""
	}
	if strings.HasPrefix(rel, "/") || strings.Contains(rel, "//") || strings.Contains(rel, "./") ||
		strings.HasSuffix(rel, "/") || strings.HasSuffix(rel, "/.") || strings.HasSuffix(rel, "/..") || rel == ".." {
		rel = strings.TrimPrefix(path.Clean("/"+rel), "/")
	}
	return rel
}

func splitPath(rel string) (dir, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}

// excluded decides the path itself, given its parent's state.
func (m *Matcher) excluded(rel, name string, isDir bool, parent *dirState) bool {
	for i := range m.defaults {
		if m.defaults[i].matches(rel, name, "", isDir) {
			return true
		}
	}
	if m.extra != nil {
		if p := m.extra.match(rel, name, isDir); p != nil {
			return !p.negate
		}
	}
	for i := len(parent.lists) - 1; i >= 0; i-- {
		if p := parent.lists[i].match(rel, name, isDir); p != nil {
			return !p.negate
		}
	}
	if m.exclude != nil {
		if p := m.exclude.match(rel, name, isDir); p != nil {
			return !p.negate
		}
	}
	if m.global != nil {
		if p := m.global.match(rel, name, isDir); p != nil {
			return !p.negate
		}
	}
	return false
}

// dir returns the (cached) state of directory rel ("" for the root).
func (m *Matcher) dir(rel string) *dirState {
	m.mu.RLock()
	d := m.dirs[rel]
	m.mu.RUnlock()
	if d != nil {
		return d
	}
	if rel == "" {
		d = &dirState{}
	} else {
		pdir, name := splitPath(rel)
		p := m.dir(pdir)
		switch {
		case p.ignored:
			d = p // shares the parent's "ignored" state
		case m.excluded(rel, name, true, p):
			d = &dirState{ignored: true}
		default:
			d = &dirState{lists: p.lists}
		}
	}
	if !d.ignored && m.gitIgnore && m.root != nil && (m.hasFile == nil || m.hasFile(rel)) {
		if data := m.read(path.Join(rel, gitIgnoreName)); data != nil {
			if l := parseFile(data, rel); len(l.pats) > 0 {
				d.lists = append(d.lists[:len(d.lists):len(d.lists)], l)
			}
		}
	}
	m.mu.Lock()
	if old := m.dirs[rel]; old != nil {
		d = old
	} else {
		m.dirs[rel] = d
	}
	m.mu.Unlock()
	return d
}

// read returns the content of the ignore file name (relative to the root)
// if it is a regular file of at most MaxIgnoreFileBytes reached through
// directories only, never a symlink; otherwise nil.
func (m *Matcher) read(name string) []byte {
	data, ok, large := m.rootDir.readFast(name)
	if !ok {
		data, large = readIgnoreFile(m.root, name)
		if data != nil && !m.isRealDir(path.Dir(name)) {
			return nil
		}
	}
	if large {
		m.mu.Lock()
		if m.tooLarge == "" {
			m.tooLarge = name
		}
		m.mu.Unlock()
	}
	return data
}

// isRealDir reports whether rel and each of its parents is a directory, not
// a symlink (the root's os.Root would follow a symlink inside the root).
func (m *Matcher) isRealDir(rel string) bool {
	for p := rel; p != "" && p != "."; p, _ = splitPath(p) {
		fi, err := m.root.Lstat(p)
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readIgnoreFile reads name through root if it is a regular file (not a
// symlink) of at most MaxIgnoreFileBytes; otherwise it returns nil, and
// large says a regular file was over the limit.
func readIgnoreFile(root *os.Root, name string) (data []byte, large bool) {
	fi, err := root.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	if fi.Size() > MaxIgnoreFileBytes {
		return nil, true
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi2, err := f.Stat(); err != nil || !os.SameFile(fi, fi2) {
		return nil, false // replaced between the checks
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxIgnoreFileBytes+1))
	if err != nil || len(data) == 0 {
		return nil, false
	}
	if len(data) > MaxIgnoreFileBytes {
		return nil, true
	}
	return data, false
}
