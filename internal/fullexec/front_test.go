package fullexec

import (
	"errors"
	"os"
	"testing"
)

// TestTakeFront: tv-full learns the tv that handed over and clears the
// variable; a tv that finds it set was handed a command line back.
func TestTakeFront(t *testing.T) {
	t.Setenv(FrontEnv, "/opt/tv/bin/tv")
	front, err := TakeFront(false)
	if err != nil || front != "/opt/tv/bin/tv" {
		t.Fatalf("tv-full: %q, %v", front, err)
	}
	if _, ok := os.LookupEnv(FrontEnv); ok {
		t.Fatalf("%s is still set: the processes tv-full starts would inherit it", FrontEnv)
	}
	if front, err := TakeFront(true); err != nil || front != "" {
		t.Fatalf("tv, not handed back: %q, %v", front, err)
	}
	t.Setenv(FrontEnv, "/opt/tv/bin/tv")
	if _, err := TakeFront(true); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("tv handed back: %v, want ErrNotInstalled", err)
	}
}
