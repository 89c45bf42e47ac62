package vaultmcp

import (
	"testing"

	"github.com/thalix/tv/mcptools/mcpkit"
)

// TestInputSchemasResolve: the input schema of every tool, in either
// mode, is one the schema library resolves (the validator resolves each
// only on its tool's first call that needs it).
func TestInputSchemasResolve(t *testing.T) {
	for name, specs := range map[string][]mcpkit.Spec{"unscoped": UnscopedTools(), "scoped": ScopedTools()} {
		t.Run(name, func(t *testing.T) {
			v, err := mcpkit.NewValidator(specs)
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Resolve(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
