package engine_test

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
)

// TestCheckDirMatchesWalkTest: tv check of a checkout reports exactly
// walk-test's findings (rules, severities, paths, lines, messages), for a
// valid tree and for each kind of breakage, and writes nothing.
func TestCheckDirMatchesWalkTest(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  []string // rules expected among the findings
	}{
		{"valid", func(*testing.T, string) {}, nil},
		{"headings", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "stages/01-research/CONTEXT.md"), "# Research\n\n## Outputs\n\n## Inputs\n")
		}, []string{icm.RuleStageHeadings}},
		{"symlink and fifo", func(t *testing.T, dir string) {
			if err := os.Symlink("CONTEXT.md", filepath.Join(dir, "link.md")); err != nil {
				t.Fatal(err)
			}
			mkfifo(t, filepath.Join(dir, "pipe"))
		}, []string{icm.RuleFileType}},
		{"no output folder", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "stages/02-draft/output")); err != nil {
				t.Fatal(err)
			}
		}, []string{icm.RuleStageFiles}},
		{"unsafe names", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, `notes\draft.md`), "x\n")
			write(t, filepath.Join(dir, "Context.md"), "y\n")
		}, []string{engine.RulePathRules}},
		{"warnings", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "stages/01-research/references/todo.md"), "line\n{{CLIENT_NAME}}\n")
			if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{icm.RulePlaceholder, icm.RuleGitkeep}},
		{"long and empty Markdown", func(t *testing.T, dir string) {
			long := "# Long\n\n{{EARLY}}\n" + strings.Repeat("a line of text\n", icm.MaxMarkdownBytes/15+10) + "{{LATE}}\n"
			write(t, filepath.Join(dir, "stages/01-research/references/long.md"), long)
			write(t, filepath.Join(dir, "stages/01-research/references/empty.md"), "")
			write(t, filepath.Join(dir, "stages/01-research/references/two.md"), "x\n{{A}} and {{B}}\n")
		}, []string{icm.RulePlaceholder}},
		{"gitignored breakage", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ".gitignore"), "scratch/\n*.log\n")
			write(t, filepath.Join(dir, "scratch/x.md"), "{{X}}\n")
			write(t, filepath.Join(dir, "debug.log"), "x\n")
			if err := os.Symlink("../CONTEXT.md", filepath.Join(dir, "scratch/link")); err != nil {
				t.Fatal(err)
			}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e := newEngine(mustVault(t), alice)
			must[*engine.Created](t)(e.InitWorkspace(ctx, "demo", ""))
			dir := filepath.Join(t.TempDir(), "co")
			must[*engine.CheckoutResult](t)(e.Checkout(ctx, "demo", dir))
			tc.setup(t, dir)
			before := treeState(t, dir)
			res, err := engine.CheckDir(ctx, dir, engine.CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if after := treeState(t, dir); after != before {
				t.Fatalf("check changed the folder:\n%s\nvs\n%s", before, after)
			}
			p := must[*engine.Plan](t)(e.WalkTest(ctx, dir))
			if !reflect.DeepEqual(nonNilF(res.Findings), nonNilF(p.Findings)) || res.Valid != p.Valid {
				t.Fatalf("check findings\n%v\nwalk-test findings\n%v", res.Findings, p.Findings)
			}
			for _, rule := range tc.want {
				if !hasRule(res.Findings, rule) {
					t.Errorf("no %s finding in %v", rule, res.Findings)
				}
			}
			if tc.want == nil && len(res.Findings) > 0 {
				t.Errorf("findings on a valid tree: %v", res.Findings)
			}
		})
	}
}

// TestCheckDirNoCheckout: a plain folder (no manifest) is checked, and a
// path that is not a folder is refused.
func TestCheckDirNoCheckout(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "CONTEXT.md"), "# Root\n")
	res, err := engine.CheckDir(context.Background(), dir, engine.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid || !hasRule(res.Findings, icm.RuleRootFiles) || !hasRule(res.Findings, icm.RuleStages) {
		t.Fatalf("findings %v", res.Findings)
	}
	for _, p := range []string{filepath.Join(dir, "CONTEXT.md"), filepath.Join(dir, "absent")} {
		if _, err := engine.CheckDir(context.Background(), p, engine.CheckOptions{}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("CheckDir(%s) = %v, want an error naming it", p, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("check wrote into the folder: %v", entries)
	}
}

// TestWalkTestHonoursGitignore: ignored files are neither planned nor
// committed and are counted; a file of the baseline that a rule now
// ignores stays tracked.
func TestWalkTestHonoursGitignore(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *engine.Engine, v engine.Vault) {
		ctx := context.Background()
		must[*engine.Created](t)(e.InitWorkspace(ctx, "demo", ""))
		dir := filepath.Join(t.TempDir(), "co")
		must[*engine.CheckoutResult](t)(e.Checkout(ctx, "demo", dir))
		write(t, filepath.Join(dir, ".gitignore"), "*.log\nnode_modules/\nstages/01-research/\n")
		write(t, filepath.Join(dir, "debug.log"), "noise\n")
		write(t, filepath.Join(dir, "node_modules/pkg/index.js"), "x\n")
		write(t, filepath.Join(dir, "stages/01-research/output/new.md"), "# New\n")
		write(t, filepath.Join(dir, "stages/01-research/CONTEXT.md"), readFile(t, filepath.Join(dir, "stages/01-research/CONTEXT.md"))+"\nedited\n")
		write(t, filepath.Join(dir, "stages/02-draft/.gitignore"), "*.tmp\n")
		write(t, filepath.Join(dir, "stages/02-draft/output/draft.tmp"), "scratch\n")
		// Twice: the second walk-test lists no folder (the stat cache
		// vouches for them) and must still read the nested .gitignore.
		for range 2 {
			p := must[*engine.Plan](t)(e.WalkTest(ctx, dir))
			if got := planString(p); got != "+.gitignore +stages/02-draft/.gitignore ~stages/01-research/CONTEXT.md" {
				t.Fatalf("plan = %q", got)
			}
			// debug.log, node_modules/, stages/01-research/output/new.md,
			// stages/02-draft/output/draft.tmp.
			if p.Ignored != 4 {
				t.Fatalf("ignored = %d, want 4", p.Ignored)
			}
		}
		must[*engine.CommitResult](t)(e.Commit(ctx, dir, "ignore things"))
		dir2 := filepath.Join(t.TempDir(), "co2")
		must[*engine.CheckoutResult](t)(e.Checkout(ctx, "demo", dir2))
		for _, p := range []string{"debug.log", "node_modules", "stages/01-research/output/new.md", "stages/02-draft/output/draft.tmp"} {
			if _, err := os.Lstat(filepath.Join(dir2, p)); err == nil {
				t.Errorf("%s was committed", p)
			}
		}
		if !strings.HasSuffix(readFile(t, filepath.Join(dir2, "stages/01-research/CONTEXT.md")), "edited\n") {
			t.Error("the tracked, now ignored file's change was not committed")
		}
	})
}

// TestCheckReadsMarkdownOnce: tv check reads each Markdown file once,
// where its scan meets it; only the contracts, which the validator
// parses, are read a second time. Other files are never opened.
func TestCheckReadsMarkdownOnce(t *testing.T) {
	ctx := context.Background()
	e := newEngine(mustVault(t), alice)
	must[*engine.Created](t)(e.InitWorkspace(ctx, "demo", ""))
	dir := filepath.Join(t.TempDir(), "co")
	must[*engine.CheckoutResult](t)(e.Checkout(ctx, "demo", dir))
	const notes = 30
	for i := range notes {
		write(t, filepath.Join(dir, fmt.Sprintf("stages/01-research/references/n%02d/note.md", i)), fmt.Sprintf("# %d\n\n{{TOPIC}}\n", i))
		write(t, filepath.Join(dir, fmt.Sprintf("stages/01-research/references/n%02d/data.txt", i)), "{{X}}\n")
	}
	var mu sync.Mutex
	opens := map[string]int{}
	stop := engine.CountOpensForTest(func(p string) {
		mu.Lock()
		opens[p]++
		mu.Unlock()
	})
	res, err := engine.CheckDir(ctx, dir, engine.CheckOptions{})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	placeholders := 0
	for _, f := range res.Findings {
		if f.Rule == icm.RulePlaceholder {
			placeholders++
		}
	}
	if placeholders < notes {
		t.Fatalf("%d placeholder findings, want one per note (%d): %v", placeholders, notes, res.Findings)
	}
	for p, n := range opens {
		contract := path.Base(p) == "CONTEXT.md" || p == "AGENTS.md" || p == "CLAUDE.md"
		switch {
		case !icm.IsMarkdown(p):
			t.Errorf("check opened %s, which is not Markdown", p)
		case n > 2 || n == 2 && !contract:
			t.Errorf("check opened %s %d times", p, n)
		}
	}
	for i := range notes {
		if p := fmt.Sprintf("stages/01-research/references/n%02d/note.md", i); opens[p] != 1 {
			t.Errorf("check opened %s %d times, want once", p, opens[p])
		}
	}
}

func mustVault(t *testing.T) engine.Vault { return backends()[0].open(t) }

func hasRule(fs []icm.Finding, rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

func nonNilF(fs []icm.Finding) []icm.Finding {
	if fs == nil {
		return []icm.Finding{}
	}
	return fs
}

// treeState lists every entry under dir with its size and mtime.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		lines = append(lines, p+" "+fi.Mode().String()+" "+fi.ModTime().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
