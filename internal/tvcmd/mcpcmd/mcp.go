// Package mcpcmd is `tv mcp`: tv's two MCP servers (serve, local), their
// registration with MCP hosts (install, uninstall, config) and the doctor
// that checks them. It links the MCP SDK, so only the complete binary,
// tv-full, imports it; tv hands `tv mcp …` command lines to tv-full.
package mcpcmd

import (
	"github.com/thalix/tv/internal/tvcmd"
	"github.com/urfave/cli/v3"
)

// app is one run of a `tv mcp` command: the runner's Host and its IO.
type app struct {
	h  tvcmd.Host
	io *tvcmd.IO
}

// Command is `tv mcp` with its subcommands, for tvcmd.Extensions.MCP.
func Command(h tvcmd.Host) *cli.Command {
	a := &app{h: h, io: h.IO()}
	return &cli.Command{
		Name:  "mcp",
		Usage: tvcmd.MCPUsage,
		Commands: []*cli.Command{
			// Subcommands are listed here in help order.
			a.mcpServeCommand(),
			a.mcpLocalCommand(),
			a.mcpInstallCommand(),
			a.mcpUninstallCommand(),
			a.mcpConfigCommand(),
			a.mcpDoctorCommand(),
		},
	}
}
