package mcptools

import (
	"fmt"

	"github.com/thalix/tv/mcptools/mcpkit"
)

// intArg applies a default and a range to an optional integer argument.
func intArg(name string, p *int, def, lo, hi int) (int, error) {
	if p == nil {
		return def, nil
	}
	if *p < lo || *p > hi {
		return 0, fmt.Errorf("%w: %s is %d; it must be between %d and %d", mcpkit.ErrBadArguments, name, *p, lo, hi)
	}
	return *p, nil
}
