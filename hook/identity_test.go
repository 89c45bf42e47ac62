package hook

import (
	"errors"
	"testing"
)

// TestCheckUserEnv: an installer-configured identity variable is a
// portable environment variable name, or none.
func TestCheckUserEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"", true},
		{"TV_PUSHER", true},
		{"_x9", true},
		{"user", true},
		{"9LIVES", false},
		{"TV-PUSHER", false},
		{"TV PUSHER", false},
		{"A=B", false},
		{"ÜSER", false},
		{"$USER", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckUserEnv(tc.name)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrUsage)) {
				t.Errorf("CheckUserEnv(%q) = %v, want ok %v (else ErrUsage)", tc.name, err, tc.ok)
			}
		})
	}
}
