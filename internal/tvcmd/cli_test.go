package tvcmd

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// commandTree is tv's command tree as Run builds it, completion included.
func commandTree(t *testing.T) *cli.Command {
	t.Helper()
	a := &app{io: &IO{Stdin: strings.NewReader(""), Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer), Getenv: func(string) string { return "" }}, ext: testFull}
	root := a.rootCommand()
	// Running it once lets urfave/cli add the real completion command.
	if err := root.Run(context.Background(), []string{"tv"}); err != nil {
		t.Fatal(err)
	}
	return root
}

// allCommands lists every command of the tree by full name.
func allCommands(t *testing.T) map[string]*cli.Command {
	out := map[string]*cli.Command{}
	forEachCommand(commandTree(t), func(c *cli.Command) {
		if !c.Hidden {
			out[fullName(c)] = c
		}
	})
	return out
}

// TestEveryCommandHasExamples walks the command tree: every command's
// help has a usage line, a summary and an EXAMPLES section, and every
// example starts with tv and names a real command.
func TestEveryCommandHasExamples(t *testing.T) {
	cmds := allCommands(t)
	for name, c := range cmds {
		t.Run(name, func(t *testing.T) {
			if c.Usage == "" {
				t.Errorf("%s has no one-line Usage", name)
			}
			ex := examplesFor(name)
			if len(ex) == 0 {
				t.Fatalf("%s has no examples: add them to commandExamples in examples.go", name)
			}
			var help bytes.Buffer
			writeHelp(&help, c)
			if !strings.Contains(help.String(), "\nEXAMPLES\n  ") {
				t.Errorf("help of %s has no EXAMPLES section:\n%s", name, help.String())
			}
			for _, e := range ex {
				line := e.line
				if i := strings.Index(line, "tv "); i >= 0 {
					line = line[i:]
				}
				words := strings.Fields(strings.NewReplacer(")", " ", "|", " ", ">", " ").Replace(line))
				r := resolveArgs(commandTree(t), words[1:])
				if r.unknown != "" {
					t.Errorf("example %q names no command (%q unknown)", e.line, r.unknown)
				}
			}
		})
	}
	for name := range commandExamples() {
		if _, ok := cmds[name]; !ok {
			t.Errorf("commandExamples has %q, which is not a command", name)
		}
	}
}

func TestSuggestion(t *testing.T) {
	cands := []string{"workspace", "template", "access", "checkout", "commit", "json", "output"}
	for _, tc := range []struct{ word, want string }{
		{"worksapce", "workspace"},
		{"chekout", "checkout"},
		{"comit", "commit"},
		{"jsn", "json"},
		{"work", "workspace"},
		{"templates", "template"},
		{"frob", ""},
		{"x", ""},
	} {
		t.Run(tc.word, func(t *testing.T) {
			if got := suggestion(tc.word, cands); got != tc.want {
				t.Fatalf("suggestion(%q) = %q, want %q", tc.word, got, tc.want)
			}
		})
	}
}

func TestRequiredArgs(t *testing.T) {
	cmds := allCommands(t)
	for _, tc := range []struct {
		cmd  string
		want string
	}{
		{"tv workspace checkout", "ID|NAME"},
		{"tv access grant", "USER read|write|manage @vault|WORKSPACE[:FOLDER]"},
		{"tv workspace list", ""},
		{"tv help", ""},
		{"tv mcp install", ""},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			c := cmds[tc.cmd]
			if c == nil {
				t.Fatalf("no command %s", tc.cmd)
			}
			if got := strings.Join(requiredArgs(c), " "); got != tc.want {
				t.Fatalf("requiredArgs = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 warnings", 1: "1 warning", 2: "2 warnings"} {
		if got := plural(n, "warning"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCommandTablesNameCommands: every command named in the tables keyed
// by full command name (noJSON, readOnly, noVault) exists, so a renamed
// command cannot silently drop out of one.
func TestCommandTablesNameCommands(t *testing.T) {
	all := allCommands(t)
	for table, names := range map[string][]string{"noJSON": slices.Collect(maps.Keys(noJSON)), "readOnly": slices.Collect(maps.Keys(readOnly)), "noVault": slices.Collect(maps.Keys(noVault))} {
		for _, name := range names {
			if _, ok := all[name]; !ok {
				t.Errorf("%s names %q, which is not a command", table, name)
			}
		}
	}
}

// TestRootCommandFor: a command line that names a top-level command gets
// that command's subtree exactly as the whole tree has it (names and
// flags, at every depth) and stubs for the others; help, version,
// completion and unknown words get the whole tree. topLevel lists the
// whole tree's top-level commands in order, each builder making the
// command it is listed under.
func TestRootCommandFor(t *testing.T) {
	a := &app{io: &IO{Stdin: strings.NewReader(""), Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer), Getenv: func(string) string { return "" }}, ext: testFull}
	full := a.rootCommand()
	var names []string
	for _, c := range full.Commands {
		if c.Name != "completion" {
			names = append(names, c.Name)
		}
	}
	var topLevelNames []string
	for _, c := range topLevel {
		topLevelNames = append(topLevelNames, c.name)
	}
	if !slices.Equal(names, topLevelNames) {
		t.Fatalf("top-level commands %v, topLevel lists %v", names, topLevelNames)
	}
	shape := func(c *cli.Command) []string {
		var out []string
		forEachCommand(c, func(c *cli.Command) {
			line := fullName(c) + ":"
			for _, f := range c.Flags {
				line += " " + strings.Join(f.Names(), ",")
			}
			out = append(out, line)
		})
		return out
	}
	for _, name := range topLevelNames {
		if name == "help" {
			continue // help gets the whole tree (below)
		}
		t.Run(name, func(t *testing.T) {
			lazy := a.rootCommandFor([]string{"--json", name, "x"})
			for _, c := range lazy.Commands {
				switch {
				case c.Name == name:
					if got, want := shape(c), shape(subcommand(full, name)); !slices.Equal(got, want) {
						t.Errorf("subtree of %s:\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
				case c.Name != "completion" && (len(c.Commands) > 0 || len(c.Flags) > 0):
					t.Errorf("%s built beside %s", c.Name, name)
				}
			}
		})
	}
	for _, args := range [][]string{{}, {"--help"}, {"workspace", "-h"}, {"help", "workspace"}, {"--version"}, {"workspce"}, {"workspace", "--generate-shell-completion"}, {"--", "workspace"}} {
		if got, want := shape(a.rootCommandFor(args)), shape(full); !slices.Equal(got, want) {
			t.Errorf("rootCommandFor(%q) is not the whole tree", args)
		}
	}
}
