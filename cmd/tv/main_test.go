package main

import (
	"strings"
	"testing"

	"github.com/thalix/tv/internal/tvbuild"
)

// TestLinksNoExtensions keeps tv lean: the packages tv hands to tv-full
// (the MCP servers and SDK, the network transports and what they pull in)
// must not be linked into tv, whose start-up they would cost. go-git as a
// whole belongs there: the vault's own reader and writer need none of it.
func TestLinksNoExtensions(t *testing.T) {
	forbidden := []string{
		"github.com/modelcontextprotocol/go-sdk",
		"github.com/google/jsonschema-go",
		"github.com/thalix/tv/mcptools",
		"github.com/thalix/tv/mcpdoctor",
		"github.com/thalix/tv/internal/tvcmd/mcpcmd",
		"github.com/thalix/tv/gitbackend/nettransport",
		"github.com/go-git/go-git/v5",
		"github.com/go-git/go-billy/v5",
		"github.com/pjbgf/sha1cd",
		"github.com/ProtonMail/go-crypto",
		"golang.org/x/crypto/ssh",
		"net/http",
	}
	for _, dep := range tvbuild.Deps(t) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("tv links %s (%s belongs in tv-full)", dep, f)
			}
		}
	}
}
