//go:build !linux

package hugeheap

// Advise does nothing here: transparent huge pages are Linux's.
func Advise(on bool) {}
