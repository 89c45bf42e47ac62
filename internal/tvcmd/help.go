package tvcmd

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"
)

// helpWidth is the column help text is wrapped at.
const helpWidth = 80

// helpCommand is `tv help [COMMAND…]`: the same page as `tv COMMAND… --help`.
func (a *app) helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show help for tv or for a command",
		UsageText: "tv help [COMMAND…]",
		Action: a.action(func(_ context.Context, cmd *cli.Command) error {
			target := cmd.Root()
			for _, word := range cmd.Args().Slice() {
				sub := subcommand(target, word)
				if sub == nil {
					a.cmd = target
					return unknownCommandError(target, word)
				}
				target = sub
				if a.isMCPStandIn(target) {
					return errNeedsFull // tv-full knows the mcp commands
				}
			}
			writeHelp(a.io.Stdout, target)
			return nil
		}),
	}
}

// writeHelp prints cmd's help page: one layout for every command, the root
// included, whether asked by `tv`, `tv --help`, `tv help` or a bare group.
func writeHelp(w io.Writer, cmd *cli.Command) {
	name := fullName(cmd)
	fmt.Fprintf(w, "%s - %s\n", name, cmd.Usage)

	fmt.Fprintf(w, "\nUSAGE\n  %s\n", usageLine(cmd))

	if cmd.Description != "" {
		fmt.Fprintf(w, "\nDESCRIPTION\n%s", wrapIndented(cmd.Description, "  ", helpWidth))
	}

	if cmds := visibleCommands(cmd); len(cmds) > 0 {
		fmt.Fprintf(w, "\nCOMMANDS\n")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, c := range cmds {
			fmt.Fprintf(tw, "  %s\t%s\n", c.Name, c.Usage)
		}
		tw.Flush()
	}

	local, inherited := helpFlags(cmd)
	if len(local) > 0 {
		fmt.Fprintf(w, "\nFLAGS\n")
		writeFlagTable(w, local, cmd)
	}
	fmt.Fprintf(w, "\nGLOBAL FLAGS\n")
	writeFlagTable(w, inherited, cmd)

	if ex := examplesFor(name); len(ex) > 0 {
		fmt.Fprintf(w, "\nEXAMPLES\n")
		for _, e := range ex {
			if e.note != "" {
				fmt.Fprintf(w, "  # %s\n", e.note)
			}
			fmt.Fprintf(w, "  $ %s\n", e.line)
		}
	}

	fmt.Fprintf(w, "\nLEARN MORE\n")
	if len(visibleCommands(cmd)) > 0 {
		fmt.Fprintf(w, "  Run `%s COMMAND --help` (or `%s COMMAND`) for more about a command.\n", name, strings.Replace(name, "tv", "tv help", 1))
	}
	fmt.Fprintf(w, "  Exit codes, the JSON style and every limit are in README.md.\n")
}

// usageLine is cmd's UsageText, or one built from its path.
func usageLine(cmd *cli.Command) string {
	if cmd.UsageText != "" {
		return cmd.UsageText
	}
	if len(visibleCommands(cmd)) > 0 {
		return fullName(cmd) + " COMMAND [flags]"
	}
	return fullName(cmd) + " [flags]"
}

func visibleCommands(cmd *cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, c := range cmd.Commands {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// helpFlag documents -h/--help, which tv answers itself (resolveArgs).
var helpFlag = &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help for this command"}

// versionFlag documents the root's --version, answered like `tv version`
// (a new one per command tree, as jsonFlag).
func versionFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "version", Usage: "print tv's version (like `tv version`)", Local: true}
}

// helpFlags splits the flags cmd accepts into its own and the global ones.
func helpFlags(cmd *cli.Command) (local, global []cli.Flag) {
	own := map[cli.Flag]bool{}
	for _, f := range cmd.Flags {
		own[f] = true
	}
	for _, f := range cmdFlags(cmd) {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue
		}
		if own[f] && f.Names()[0] != "json" {
			local = append(local, f)
		} else {
			global = append(global, f)
		}
	}
	return local, append(global, helpFlag)
}

func writeFlagTable(w io.Writer, flags []cli.Flag, cmd *cli.Command) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range flags {
		var short, long []string
		for _, n := range f.Names() {
			if len(n) == 1 {
				short = append(short, "-"+n)
			} else {
				long = append(long, "--"+n)
			}
		}
		names := strings.Join(long, ", ")
		if len(short) > 0 {
			names = strings.Join(short, ", ") + ", " + names
		} else {
			names = "    " + names
		}
		if takesValue(f) {
			names += " " + placeholder(f, cmd)
		}
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
			if rf, ok := f.(cli.RequiredFlag); ok && rf.IsRequired() {
				usage += " (required)"
			} else if def := defaultText(d); def != "" {
				usage += " (default " + def + ")"
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\n", names, usage)
	}
	tw.Flush()
}

// placeholder names a flag's value: the word after the flag in the
// command's usage line ("--output DIR"), else VALUE (N for numbers).
func placeholder(f cli.Flag, cmd *cli.Command) string {
	for _, n := range f.Names() {
		re := regexp.MustCompile(`(?:^|[\s\[|])--?` + regexp.QuoteMeta(n) + `[ =]([A-Z][A-Za-z0-9_|.…-]*)`)
		if m := re.FindStringSubmatch(cmd.UsageText); m != nil {
			return m[1]
		}
	}
	switch f.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
		return "N"
	case *cli.DurationFlag:
		return "DURATION"
	}
	return "VALUE"
}

// defaultText is a flag's non-empty, non-false default as help shows it.
func defaultText(d cli.DocGenerationFlag) string {
	if t := d.GetDefaultText(); t != "" {
		return t
	}
	if !d.TakesValue() {
		return ""
	}
	v := d.GetValue()
	if v == "" || v == `""` || v == "0" {
		return ""
	}
	return v
}

// wrapIndented wraps text (paragraphs kept at its newlines) at width with
// every line indented.
func wrapIndented(text, indent string, width int) string {
	var b strings.Builder
	for _, para := range strings.Split(text, "\n") {
		line := indent
		for _, word := range strings.Fields(para) {
			if len(line) > len(indent) && len(line)+1+len(word) > width {
				b.WriteString(line + "\n")
				line = indent
			}
			if len(line) > len(indent) {
				line += " "
			}
			line += word
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.String()
}
