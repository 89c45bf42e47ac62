//go:build !unix

package engine

// noFollow is not available; callers Lstat first.
const noFollow = 0
