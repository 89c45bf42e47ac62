package engine

import (
	"regexp"
	"testing"
)

// The shapes isID and isNameShaped implement, as the regular expressions
// they replaced (compiled here, not at tv's start-up).
var (
	idShape   = regexp.MustCompile(`^(ws|tpl)_[a-z2-7]{20}$`)
	nameShape = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

func TestIDAndNameShapes(t *testing.T) {
	tests := []struct {
		in       string
		id, name bool
	}{
		{"ws_abcdefghijklmnopqrst", true, true},
		{"tpl_234567abcdefghijklmn", true, true},
		{"ws_abcdefghijklmnopqrs", false, true},   // 19
		{"ws_abcdefghijklmnopqrstu", false, true}, // 21
		{"ws_abcdefghijklmnopqr8t", false, true},  // 8 is not base32
		{"ws_ABCDEFGHIJKLMNOPQRST", false, true},
		{"wsx_abcdefghijklmnopqrst", false, true},
		{"", false, false},
		{"a", false, true},
		{"-a", false, false},
		{".a", false, false},
		{"a.b_c-d", false, true},
		{"a b", false, false},
		{"é", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := isID(tt.in); got != tt.id {
				t.Errorf("isID(%q) = %v, want %v", tt.in, got, tt.id)
			}
			if got := isNameShaped(tt.in); got != tt.name {
				t.Errorf("isNameShaped(%q) = %v, want %v", tt.in, got, tt.name)
			}
		})
	}
	for range 100 {
		for _, k := range []Kind{KindWorkspace, KindTemplate} {
			if id := newID(k); !isID(id) {
				t.Fatalf("newID(%v) = %q is not an id", k, id)
			}
		}
	}
}

func FuzzIDAndNameShapes(f *testing.F) {
	for _, s := range []string{"ws_abcdefghijklmnopqrst", "tpl_234567abcdefghijklmn", "a.b", "-x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isID(s), idShape.MatchString(s); got != want {
			t.Fatalf("isID(%q) = %v, regexp says %v", s, got, want)
		}
		if got, want := isNameShaped(s), nameShape.MatchString(s); got != want {
			t.Fatalf("isNameShaped(%q) = %v, regexp says %v", s, got, want)
		}
	})
}
