// Package textsearch is a fast, bounded grep over a directory tree opened
// as an *os.Root.
package textsearch
