// Command tv-full is the complete tv: every command, the MCP servers and
// the network transports of remote vaults included. tv runs it for the
// command lines that need those (see cmd/tv); it can also be run directly,
// and answers exactly as tv does.
package main

import (
	"os"

	"github.com/thalix/tv/gitbackend/nettransport"
	"github.com/thalix/tv/internal/tvcmd"
	"github.com/thalix/tv/internal/tvcmd/mcpcmd"
)

func main() {
	os.Exit(tvcmd.Main(tvcmd.Extensions{MCP: mcpcmd.Command, Transport: nettransport.New()}))
}
