package fullexec

import (
	"path/filepath"
	"testing"

	"github.com/thalix/tv/internal/testexe"
)

// TestFront: tv-full's front is the tv beside it, when there is one.
func TestFront(t *testing.T) {
	both, lone := t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(both, Name), filepath.Join(both, FrontName), filepath.Join(lone, Name)} {
		testexe.Write(t, p, []byte("#!/bin/sh\n"))
	}
	for _, c := range []struct{ name, path, want string }{
		{"tv-full with tv beside it", filepath.Join(both, Name), filepath.Join(both, FrontName)},
		{"tv-full alone", filepath.Join(lone, Name), filepath.Join(lone, Name)},
		{"tv itself", filepath.Join(both, FrontName), filepath.Join(both, FrontName)},
		{"another program", "/usr/bin/env", "/usr/bin/env"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Front(c.path); got != c.want {
				t.Errorf("Front(%s) = %s, want %s", c.path, got, c.want)
			}
		})
	}
}

// TestIsRelease: only a tagged version goes into the install hint.
func TestIsRelease(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{
		{"v1.2.3", true},
		{"v1.2.3-rc.1", true},
		{"(devel)", false},
		{"", false},
		{"v0.0.0-20261202175357-1b71b10a8998", false},
		{"v0.0.0-20261202175357-1b71b10a8998+dirty", false},
		{"v1.2.4-0.20261202175357-1b71b10a8998", false},
		{"v1.2.3-pre.0.20261202175357-1b71b10a8998", false},
		{"v1.2.3+incompatible", false},
	} {
		if got := isRelease(c.v); got != c.want {
			t.Errorf("isRelease(%q) = %v, want %v", c.v, got, c.want)
		}
	}
}
