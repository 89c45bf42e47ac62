package mcpcmd

import (
	"os"
	"testing"

	"github.com/thalix/tv/internal/tvbuild"
)

// TestMain removes the programs the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	tvbuild.Cleanup()
	os.Exit(code)
}
