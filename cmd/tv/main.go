// Command tv is an embedded-git workspace engine with MCP servers over what
// it manages. See README.md.
//
// This is the binary users run. It links every command but the MCP servers
// and the network transports of remote vaults, and hands command lines that
// need them (`tv mcp …`, any command on a remote vault) to tv-full, the
// complete binary (cmd/tv-full), installed beside it: like git, which keeps
// its HTTP transport in git-remote-https so that local commands do not load
// it. Initialising those packages (the MCP SDK, net/http, x/crypto/ssh,
// openpgp) is ~1.7 ms of every process's start on the benchmark machine,
// a quarter of a 1,000-file walk-test (bench/workspace/compare.sh); go-git's
// protocol packages with its config, gcfg and gob (package
// gitbackend/wire) another ~1.2 ms of `tv --version` on a PVM guest.
package main

import (
	"os"

	"github.com/thalix/tv/internal/fullexec"
	"github.com/thalix/tv/internal/tvcmd"
)

func main() {
	os.Exit(tvcmd.Main(tvcmd.Extensions{Full: fullexec.Run}))
}
