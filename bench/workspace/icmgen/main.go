// Command icmgen writes an ICM-shaped workspace of Markdown notes for the
// benchmarks: the bundled starter's layout (root contracts, stages with a
// CONTEXT.md, references/ and output/) grown to a given number of files,
// most of them .md notes of 1–20 KB like real references and outputs.
//
//	go run ./bench/workspace/icmgen -files 10000 -out /tmp/tree
//
// The tree is a function of -files and -seed alone: the same arguments
// write the same bytes, so tv and git are measured on identical trees and
// runs are comparable. Nothing it writes is committed anywhere.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Shape of the generated workspace.
const (
	stageCount    = 10    // stages 01..10
	filesPerTopic = 100   // notes per topic folder
	minNoteBytes  = 1024  // smallest note
	maxNoteBytes  = 20480 // largest note
	outputShare   = 4     // one note in outputShare is an output, the rest references
)

var stageSlugs = [stageCount]string{"research", "draft", "review", "edit", "fact-check", "layout", "translate", "publish", "promote", "archive"}

var words = strings.Fields(`the a of to and in for on with by from as at battery cold weather cell
lithium charge voltage capacity temperature source finding study report measure test result
sample range estimate claim evidence open question note draft review reader audience voice
style rule section outline summary table figure chart data model method error limit value
every some most few many this that these those is are was were be been has have had will
would should could may might must can not no yes only also more less than then when where
which while because therefore however although still already again often rarely usually`)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "icmgen:", err)
		os.Exit(2)
	}
}

func run(args []string, stderr io.Writer) error {
	fl := flag.NewFlagSet("icmgen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	files := fl.Int("files", 1000, "how many files the workspace holds (at least 100)")
	seed := fl.Uint64("seed", 1, "random seed: the same seed and -files write the same tree")
	out := fl.String("out", "", "folder to write the workspace into (must not exist, or be empty)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *out == "" || *files < 100 {
		return errors.New("need -out DIR and -files of at least 100")
	}
	if ents, err := os.ReadDir(*out); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty", *out)
	}
	g := &gen{root: *out, rng: rand.New(rand.NewPCG(*seed, 0x1c4)), buf: make([]byte, 0, maxNoteBytes+256)}
	return g.workspace(*files)
}

type gen struct {
	root  string
	rng   *rand.Rand
	buf   []byte
	count int
}

// workspace writes the root contracts, the stages' contracts, and notes
// until the tree holds n files.
func (g *gen) workspace(n int) error {
	if err := g.contracts(); err != nil {
		return err
	}
	per := (n - g.count) / stageCount
	for s := range stageCount {
		want := per
		if s == stageCount-1 {
			want = n - g.count // the remainder
		}
		if err := g.notes(s, want); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) stageDir(s int) string { return fmt.Sprintf("stages/%02d-%s", s+1, stageSlugs[s]) }

func (g *gen) contracts() error {
	var routing strings.Builder
	routing.WriteString("# Routing\n\nStart here. Find the request, then open only that stage's `CONTEXT.md`.\n\n## Task Routing\n\n| Request | Stage | Contract |\n|---|---|---|\n")
	for s := range stageCount {
		fmt.Fprintf(&routing, "| %s work | %02d %s | `%s/CONTEXT.md` |\n", stageSlugs[s], s+1, stageSlugs[s], g.stageDir(s))
	}
	if err := g.write("CONTEXT.md", []byte(routing.String())); err != nil {
		return err
	}
	agent := "# Agent instructions\n\nRead `CONTEXT.md` first and open only the stage it routes you to.\n"
	for _, f := range []string{"CLAUDE.md", "AGENTS.md"} {
		if err := g.write(f, []byte(agent)); err != nil {
			return err
		}
	}
	if err := g.write("_config/voice.md", []byte("# Voice\n\nPlain, precise, friendly. Short sentences.\n")); err != nil {
		return err
	}
	for s := range stageCount {
		if err := g.write(g.stageDir(s)+"/CONTEXT.md", []byte(g.stageContract(s))); err != nil {
			return err
		}
	}
	return nil
}

// stageContract is a valid stage contract: Inputs (naming the previous
// stage's output and the stage's references), Process, Outputs.
func (g *gen) stageContract(s int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %02d %s\n\nDo the %s work from the inputs below.\n\n## Inputs\n\n| Source | File/Location | Why |\n|---|---|---|\n", s+1, stageSlugs[s], stageSlugs[s])
	if s > 0 {
		fmt.Fprintf(&b, "| Previous stage (handoff) | `../%02d-%s/output/` | what it produced |\n", s, stageSlugs[s-1])
	}
	b.WriteString("| References | `references/` | the rules and notes |\n| Voice | `_config/voice.md` | tone |\n\n")
	b.WriteString("## Process\n\n1. Read the inputs.\n2. Do the work.\n3. Write the results into `output/`, run walk-test, commit.\n\n")
	b.WriteString("## Outputs\n\n| Artifact | Location | Format |\n|---|---|---|\n| Notes | `output/` | Markdown |\n")
	return b.String()
}

// notes writes want notes into stage s: references and outputs, in topic
// folders of filesPerTopic.
func (g *gen) notes(s, want int) error {
	dir := g.stageDir(s)
	for i := range want {
		kind, name := "references", "note"
		if i%outputShare == 0 {
			kind, name = "output", "result"
		}
		p := fmt.Sprintf("%s/%s/topic-%03d/%s-%05d.md", dir, kind, i/filesPerTopic, name, i)
		if err := g.write(p, g.note(p)); err != nil {
			return err
		}
	}
	return nil
}

// note is a Markdown note of minNoteBytes..maxNoteBytes (log-uniform,
// like real notes: many short, a few long): a title, sections of
// paragraphs and lists, now and then a table or a code block.
func (g *gen) note(p string) []byte {
	size := int(math.Exp(g.rng.Float64()*math.Log(maxNoteBytes/minNoteBytes))) * minNoteBytes
	size += g.rng.IntN(minNoteBytes)
	size = min(size, maxNoteBytes)
	b := g.buf[:0]
	b = append(b, "# "...)
	b = append(b, filepath.Base(p)...)
	b = append(b, "\n\n"...)
	for sec := 1; len(b) < size; sec++ {
		b = fmt.Appendf(b, "## Part %d\n\n", sec)
		switch g.rng.IntN(8) {
		case 0:
			b = append(b, "| Measure | Value | Source |\n|---|---|---|\n"...)
			for r := range 4 {
				b = fmt.Appendf(b, "| %s | %d | [%d] |\n", g.word(), g.rng.IntN(1000), r+1)
			}
		case 1:
			b = append(b, "```\n"...)
			b = g.sentence(b)
			b = append(b, "\n```\n"...)
		case 2:
			for range 3 {
				b = append(b, "- "...)
				b = g.sentence(b)
				b = append(b, '\n')
			}
		}
		b = append(b, '\n')
		for range 1 + g.rng.IntN(4) {
			for range 2 + g.rng.IntN(5) {
				b = g.sentence(b)
				b = append(b, ' ')
			}
			b = append(b, "\n\n"...)
		}
	}
	g.buf = b
	return b
}

func (g *gen) word() string { return words[g.rng.IntN(len(words))] }

func (g *gen) sentence(b []byte) []byte {
	n := 6 + g.rng.IntN(12)
	for i := range n {
		w := g.word()
		if i == 0 {
			b = append(b, strings.ToUpper(w[:1])...)
			w = w[1:]
		} else {
			b = append(b, ' ')
		}
		b = append(b, w...)
	}
	return append(b, '.')
}

func (g *gen) write(rel string, data []byte) error {
	p := filepath.Join(g.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	g.count++
	return os.WriteFile(p, data, 0o644)
}
