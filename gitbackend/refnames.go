package gitbackend

import (
	"fmt"
	"strings"

	"github.com/thalix/tv/engine"
)

// checkRefName refuses names git's check-ref-format refuses, and any name
// outside refs/.
func checkRefName(name string) error {
	if why := refNameProblem(name); why != "" {
		return fmt.Errorf("%w: invalid ref name %q: %s", engine.ErrUsage, name, why)
	}
	return nil
}

func refNameProblem(name string) string {
	if !strings.HasPrefix(name, "refs/") || len(name) == len("refs/") {
		return "must start with refs/ and name something below it"
	}
	if strings.HasSuffix(name, "/") || strings.Contains(name, "//") {
		return "empty path component"
	}
	if strings.HasSuffix(name, ".") {
		return "ends with '.'"
	}
	if strings.Contains(name, "..") {
		return "contains '..'"
	}
	if strings.Contains(name, "@{") {
		return "contains '@{'"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f {
			return "contains a control character"
		}
		if strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return fmt.Sprintf("contains %q", c)
		}
	}
	for comp := range strings.SplitSeq(name, "/") {
		if strings.HasPrefix(comp, ".") {
			return "a component starts with '.'"
		}
		if strings.HasSuffix(comp, ".lock") {
			return "a component ends with '.lock'"
		}
	}
	return ""
}
