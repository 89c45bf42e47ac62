package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
)

// opened counts the checkout files scans open for reading.
type opened struct {
	mu    sync.Mutex
	paths []string
}

func (o *opened) walk(t *testing.T, e *engine.Engine, d string) (*engine.Plan, []string) {
	t.Helper()
	o.mu.Lock()
	o.paths = nil
	o.mu.Unlock()
	stop := engine.CountOpensForTest(func(p string) {
		o.mu.Lock()
		o.paths = append(o.paths, p)
		o.mu.Unlock()
	})
	p, err := e.WalkTest(context.Background(), d)
	stop()
	if err != nil {
		t.Fatal(err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	slices.Sort(o.paths)
	return p, slices.Clone(o.paths)
}

func findingsText(fs []icm.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s\n", f)
	}
	return b.String()
}

// TestWalkTestOpensOnlyWhatChanged: the ICM results of a checkout's
// Markdown files are remembered with its caches, by content id, so an
// unchanged checkout's walk-test opens no file at all (git status reads
// no file's content either), a touched file is opened once (to hash it),
// and an edited note is read with the contracts only; the findings are
// always those of a validation from scratch.
func TestWalkTestOpensOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	d := setup(t, e, 1)[0]
	const notes = 40
	for i := range notes {
		body := fmt.Sprintf("# Note %d\n\nSome text.\n", i)
		if i%10 == 3 {
			body += "Left: {{TOPIC}} and {{AUDIENCE}}.\n" // two on one line
		}
		write(t, filepath.Join(d, fmt.Sprintf("stages/01-research/references/n/note-%02d.md", i)), body)
	}
	write(t, filepath.Join(d, "stages/01-research/references/n/data.txt"), "not markdown {{X}}\n")
	must[*engine.CommitResult](t)(e.Commit(ctx, d, "notes"))
	time.Sleep(20 * time.Millisecond) // past the racy window of the caches' stamps
	var o opened
	contracts := []string{"AGENTS.md", "CLAUDE.md", "CONTEXT.md", "stages/01-research/CONTEXT.md", "stages/02-draft/CONTEXT.md"}
	edited := "stages/01-research/references/n/note-07.md"

	// scratch is the findings of a validation that remembers nothing.
	scratch := func(t *testing.T) string {
		t.Helper()
		icmCache := filepath.Join(d, engine.ICMCacheName)
		saved, err := os.ReadFile(icmCache)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(icmCache); err != nil {
			t.Fatal(err)
		}
		p, paths := o.walk(t, e, d)
		if len(paths) <= notes {
			t.Fatalf("without the ICM cache, walk-test opened %d files; want every Markdown file", len(paths))
		}
		if err := os.WriteFile(icmCache, saved, 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		return findingsText(p.Findings)
	}

	tests := []struct {
		name   string
		change func(t *testing.T)
		opens  []string // on the first walk-test after the change
		holds  string   // a line the findings must hold
		// again is what the next walk-test opens: a file that differs from
		// the checkout's baseline is hashed on every walk-test (so is it
		// by git status until it is staged), never read to validate.
		again []string
	}{
		{"unchanged", func(t *testing.T) {}, nil, `placeholder "{{TOPIC}}" left after setup (and 1 more on this line)`, nil},
		{"touched one file", func(t *testing.T) {
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(filepath.Join(d, edited), old, old); err != nil {
				t.Fatal(err)
			}
		}, []string{edited}, "", nil},
		{"edited one note", func(t *testing.T) {
			write(t, filepath.Join(d, edited), "# Note 7\n\nNow with {{NEW}}.\n")
		}, slices.Sorted(slices.Values(append([]string{edited, edited}, contracts...))), `note-07.md:3: warning placeholder: placeholder "{{NEW}}"`, []string{edited}},
		{"damaged cache", func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(d, engine.ICMCacheName), []byte("TVIC2\ngarbage"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil, "", []string{edited}}, // opens checked below: every Markdown file
		{"committed", func(t *testing.T) {
			must[*engine.CommitResult](t)(e.Commit(ctx, d, "edit"))
		}, nil, `note-07.md:3: warning placeholder: placeholder "{{NEW}}"`, nil},
	}
	// Warm: the first walk-test after the commit may read what the
	// commit's validation already did not.
	o.walk(t, e, d)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.change(t)
			time.Sleep(20 * time.Millisecond) // out of the racy window: the next scan vouches for it
			p, paths := o.walk(t, e, d)
			switch {
			case tt.name == "damaged cache":
				if len(paths) <= notes {
					t.Errorf("a damaged ICM cache was used: opened only %v", paths)
				}
			case !slices.Equal(paths, tt.opens):
				t.Errorf("walk-test opened %q, want %q", paths, tt.opens)
			}
			got := findingsText(p.Findings)
			if tt.holds != "" && !strings.Contains(got, tt.holds) {
				t.Errorf("findings lack %q:\n%s", tt.holds, got)
			}
			if strings.Contains(got, "data.txt") {
				t.Errorf("a non-Markdown file was judged:\n%s", got)
			}
			time.Sleep(20 * time.Millisecond)
			// Again: now nothing at all is opened, and the remembered
			// findings are those of a validation from scratch.
			p, paths = o.walk(t, e, d)
			if !slices.Equal(paths, tt.again) {
				t.Errorf("second walk-test opened %q, want %q", paths, tt.again)
			}
			if again := findingsText(p.Findings); again != got {
				t.Errorf("remembered findings differ:\n%s\nwant\n%s", again, got)
			}
			if s := scratch(t); s != got {
				t.Errorf("findings differ from a validation from scratch:\n%s\nwant\n%s", got, s)
			}
		})
	}
}

// TestFirstWalkTestAfterCheckout: a checkout remembers the facts of every
// note it writes, so its first walk-test reads the contracts only (not
// every note, as it did before), with the findings of a validation from
// scratch — a note over icm.MaxMarkdownBytes included, judged by its
// first MaxMarkdownBytes as the validator reads it.
func TestFirstWalkTestAfterCheckout(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	d := setup(t, e, 1)[0]
	for i := range 30 {
		body := fmt.Sprintf("# Note %d\n\nSome text.\n", i)
		if i%10 == 3 {
			body += "Left: {{TOPIC}} and {{AUDIENCE}}.\n"
		}
		write(t, filepath.Join(d, fmt.Sprintf("stages/01-research/references/n/note-%02d.md", i)), body)
	}
	big := "# Big\n\n{{EARLY}}\n" + strings.Repeat("a line of a long note\n", icm.MaxMarkdownBytes/20) + "{{LATE}}\n"
	write(t, filepath.Join(d, "stages/01-research/references/n/big.md"), big)
	write(t, filepath.Join(d, "stages/01-research/references/n/data.txt"), "not markdown {{X}}\n")
	must[*engine.CommitResult](t)(e.Commit(ctx, d, "notes"))

	co := filepath.Join(t.TempDir(), "fresh")
	must[*engine.CheckoutResult](t)(e.Checkout(ctx, "demo", co))
	time.Sleep(20 * time.Millisecond) // past the racy window of the caches' stamps
	var o opened
	p, paths := o.walk(t, e, co)
	contracts := []string{"AGENTS.md", "CLAUDE.md", "CONTEXT.md", "stages/01-research/CONTEXT.md", "stages/02-draft/CONTEXT.md"}
	if !slices.Equal(paths, contracts) {
		t.Errorf("first walk-test after checkout opened %q, want the contracts %q", paths, contracts)
	}
	got := findingsText(p.Findings)
	for _, want := range []string{`placeholder "{{TOPIC}}" left after setup (and 1 more on this line)`, `big.md:3: warning placeholder: placeholder "{{EARLY}}"`} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "{{LATE}}") || strings.Contains(got, "data.txt") {
		t.Errorf("findings judge what the validator does not read:\n%s", got)
	}
	if err := os.Remove(filepath.Join(co, engine.ICMCacheName)); err != nil {
		t.Fatal(err)
	}
	scratch, paths := o.walk(t, e, co)
	if len(paths) <= 30 {
		t.Fatalf("without the ICM cache, walk-test opened %d files; want every note", len(paths))
	}
	if s := findingsText(scratch.Findings); s != got {
		t.Errorf("findings after checkout differ from a validation from scratch:\n%s\nwant\n%s", got, s)
	}
}

// TestRestampInPlace: the stat cache a walk-test saves is made in the
// checkout's base itself (no copy at the command's peak); it holds what
// a copy made aside holds and stamps exactly what the scan vouches for,
// with an edited, a touched (back to its base version), a deleted and an
// added file among untouched ones.
func TestRestampInPlace(t *testing.T) {
	e := newEngine(backends()[0].open(t), alice)
	d := setup(t, e, 1)[0]
	time.Sleep(20 * time.Millisecond)
	write(t, filepath.Join(d, "_config/voice.md"), "# Voice\n\nEdited.\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(d, "AGENTS.md"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(d, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d, "stages/01-research/references/new.md"), "# New\n")
	time.Sleep(20 * time.Millisecond) // out of the racy window: the scan vouches for what it sees
	agree, stamped, err := engine.RestampAgreesForTest(d)
	if err != nil {
		t.Fatal(err)
	}
	if !agree {
		t.Fatal("the cache made in place differs from the one made aside")
	}
	// What the scan vouches for keeps a stamp: untouched files and a file
	// back to its base version; an edited or deleted file has none.
	for path, want := range map[string]bool{"CONTEXT.md": true, "AGENTS.md": true, "_config/voice.md": false, "CLAUDE.md": false} {
		if got, ok := stamped[path]; !ok || got != want {
			t.Errorf("%s: stamped %v (in the cache: %v), want %v", path, got, ok, want)
		}
	}
}
