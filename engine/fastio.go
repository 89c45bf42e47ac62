package engine

import (
	"fmt"
	"strings"
)

// checkElem refuses a name that is not exactly one path element, before
// it is used relative to an open folder (see fastio_linux.go).
func checkElem(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("%w: %q is not a file or folder name", ErrRefused, name)
	}
	return nil
}
