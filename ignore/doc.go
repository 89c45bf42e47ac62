// Package ignore decides which paths of a tree are ignored: git's
// .gitignore semantics (root and nested .gitignore files and
// .git/info/exclude), tv's default skip set (DefaultPatterns) and extra
// caller patterns in gitignore syntax.
//
// Matching is a transcription of git's own code (wildmatch.c and the
// pattern rules of dir.c), not a general glob library, so that corner cases
// agree with git: blank lines and "#" comments, "\#" and "\!" escapes,
// trailing spaces trimmed unless escaped, "!" negation, a trailing "/" for
// directories only, anchoring by a leading or middle "/", "*", "?",
// "[...]" with ranges, "!"/"^" negation and POSIX classes, "**/", "/**"
// and "/**/", a UTF-8 BOM and CRLF line ends. The tests compare the Matcher
// with `git check-ignore --no-index` on table and randomly generated trees.
//
// Precedence is git's: within a file the last matching line wins; a
// deeper .gitignore wins over a shallower one; .gitignore files win over
// .git/info/exclude; Options.Extra (like `git ls-files --exclude`) wins over
// all of them. A path below an ignored directory is ignored whatever later
// patterns say (git cannot re-include a file whose parent directory is
// excluded). DefaultPatterns form a separate layer: a path they match, or
// a path below one, is ignored whatever any negation says.
package ignore
