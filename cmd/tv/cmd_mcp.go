package main

import "github.com/urfave/cli/v3"

// mcpCommand groups the MCP servers and their host registration.
func (a *app) mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "MCP servers over stdio, and their registration with MCP hosts",
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
