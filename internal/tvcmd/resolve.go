package tvcmd

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v3"
)

// resolved is what tv's own pass over the command line found before
// urfave/cli parses it: the command the words name, and the words asking
// for help or the version.
type resolved struct {
	cmd     *cli.Command // the deepest command named (root when none)
	unknown string       // a word that names no subcommand of cmd, if any
	help    bool         // --help or -h before "--"
	version bool         // --version before "--"
}

// resolveArgs walks args (without the program name) down the command tree
// from root: each word that is not a flag (or a flag's value) names the next
// subcommand until a command without subcommands is reached. A word that
// names no subcommand of a command group is reported as unknown, so the
// mistake is named as the command, not as a flag that comes later.
func resolveArgs(root *cli.Command, args []string) resolved {
	r := resolved{cmd: root}
	leaf := len(root.Commands) == 0
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		switch arg {
		case "--help", "-h", "-help":
			r.help = true
			continue
		case "--version":
			r.version = true
			continue
		}
		if strings.HasPrefix(arg, "-") && len(arg) > 1 {
			if f := lookupFlag(r.cmd, flagName(arg)); f != nil && takesValue(f) && !strings.Contains(arg, "=") {
				i++ // the flag's value
			}
			continue
		}
		if leaf || r.unknown != "" {
			continue
		}
		sub := subcommand(r.cmd, arg)
		if sub == nil {
			r.unknown = arg
			continue
		}
		r.cmd = sub
		leaf = len(sub.Commands) == 0
	}
	return r
}

// subcommand returns cmd's subcommand called name (or aliased so).
func subcommand(cmd *cli.Command, name string) *cli.Command {
	for _, c := range cmd.Commands {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}

// flagName strips the dashes and any "=value" from a flag word.
func flagName(arg string) string {
	name := strings.TrimLeft(arg, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	return name
}

// lookupFlag finds the flag called name on cmd or, when it is not local,
// on an ancestor.
func lookupFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmdFlags(cmd) {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// cmdFlags are the flags cmd accepts: its own, then its ancestors'
// non-local ones (the global --json).
func cmdFlags(cmd *cli.Command) []cli.Flag {
	flags := slices.Clone(cmd.Flags)
	for _, c := range lineage(cmd)[1:] {
		for _, f := range c.Flags {
			if lf, ok := f.(cli.LocalFlag); ok && lf.IsLocal() {
				continue
			}
			if !slices.ContainsFunc(flags, func(g cli.Flag) bool { return g.Names()[0] == f.Names()[0] }) {
				flags = append(flags, f)
			}
		}
	}
	return flags
}

// lineage is cmd and its ancestors, cmd first. It follows the parents
// recorded by tv (setParents) so it works before urfave/cli has run.
func lineage(cmd *cli.Command) []*cli.Command {
	var out []*cli.Command
	for c := cmd; c != nil; c = parentOf(c) {
		out = append(out, c)
	}
	return out
}

// metaParent is the Metadata key holding a command's parent.
const metaParent = "tv.parent"

// setParents records every command's parent in its Metadata.
func setParents(root *cli.Command) {
	forEachCommand(root, func(c *cli.Command) {
		for _, sub := range c.Commands {
			if sub.Metadata == nil {
				sub.Metadata = map[string]any{}
			}
			sub.Metadata[metaParent] = c
		}
	})
}

func parentOf(c *cli.Command) *cli.Command {
	p, _ := c.Metadata[metaParent].(*cli.Command)
	return p
}

// fullName is the command path from the root: "tv workspace checkout".
func fullName(cmd *cli.Command) string {
	l := lineage(cmd)
	names := make([]string, len(l))
	for i, c := range l {
		names[len(l)-1-i] = c.Name
	}
	return strings.Join(names, " ")
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}
