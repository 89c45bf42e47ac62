// Package ignore decides which paths of a tree are ignored: git's
// .gitignore semantics (root and nested .gitignore files and
// .git/info/exclude), tv's default skip set (DefaultPatterns) and extra
// caller patterns in gitignore syntax.
package ignore
