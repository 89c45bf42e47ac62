package statcache

import "testing"

// TestLookup checks Lookup, Under and FindIn against the sorted paths of
// a tree whose folders hold files and subfolders side by side (the order
// a folder's direct files do not have in the sorted list).
func TestLookup(t *testing.T) {
	paths := []string{"a", "a.md", "b/c/x", "b/d", "b/d.md", "b/e/f", "b/z", "b0", "c/a"}
	c := &Cache{}
	for _, p := range paths {
		c.Files = append(c.Files, Entry{Path: p})
	}
	for i, p := range paths {
		if got := c.Lookup(p); got != i {
			t.Errorf("Lookup(%q) = %d, want %d", p, got, i)
		}
	}
	for _, p := range []string{"", "b", "b/", "b/c", "a/", "zz", "b/d.m"} {
		if got := c.Lookup(p); got != -1 {
			t.Errorf("Lookup(%q) = %d, want -1", p, got)
		}
	}
	for dir, want := range map[string]bool{"b": true, "b/c": true, "b/e": true, "c": true, "a": false, "b/d": false, "q": false} {
		if got := c.HasUnder(dir); got != want {
			t.Errorf("HasUnder(%q) = %v, want %v", dir, got, want)
		}
	}
	tests := []struct {
		prefix, name string
		lo, hi, want int
	}{
		{"", "a", 0, 9, 0},
		{"", "b0", 0, 9, 7},
		{"", "b", 0, 9, -1}, // a folder, not a file
		{"b/", "d", 2, 7, 3},
		{"b/", "d.md", 2, 7, 4},
		{"b/", "z", 2, 7, 6},
		{"b/", "c", 2, 7, -1},
		{"b/", "e", 2, 7, -1},
		{"b/", "a", 2, 7, -1},
		{"b/c/", "x", 2, 3, 2},
		{"c/", "a", 8, 9, 8},
		{"q/", "a", 9, 9, -1},
		{"0/", "a", 0, 0, -1},
	}
	for _, tt := range tests {
		t.Run(tt.prefix+tt.name, func(t *testing.T) {
			lo, hi := c.Under(tt.prefix)
			if lo != tt.lo || hi != tt.hi {
				t.Fatalf("Under(%q) = [%d, %d), want [%d, %d)", tt.prefix, lo, hi, tt.lo, tt.hi)
			}
			if got := c.FindIn(lo, hi, tt.prefix, tt.name); got != tt.want {
				t.Errorf("FindIn(%q, %q) = %d, want %d", tt.prefix, tt.name, got, tt.want)
			}
		})
	}
}
