//go:build !unix

package mounts

// lockRegistry is a no-op where flock is unavailable; the registry write
// stays atomic, but concurrent checkouts may drop each other's entry.
func lockRegistry(string) (func(), error) { return func() {}, nil }
