package engine_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
)

// git runs git in dir with a pinned identity and returns its stdout.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// TestDiffLikeGit: a checkout kept in git too; after the same edits, tv's
// unified diff equals `git diff` byte for byte (added files marked with
// intent-to-add): headers, index lines, hunks, binary summaries.
func TestDiffLikeGit(t *testing.T) {
	gitOK(t)
	ctx := context.Background()
	e := newEngine(backends()[0].open(t), alice)
	co := setup(t, e, 1)[0]
	git(t, co, "init", "-q")
	git(t, co, "add", "-A", "--", ".", ":!.thalix-workspace*")
	git(t, co, "commit", "-q", "-m", "base")

	voice := readFile(t, filepath.Join(co, "_config/voice.md"))
	write(t, filepath.Join(co, "_config/voice.md"), strings.Replace(voice, "\n", "\nan inserted line\n", 3)+"the end")
	write(t, filepath.Join(co, "shared/new.md"), "one\ntwo\n")
	write(t, filepath.Join(co, "shared/blob.bin"), "bin\x00ary")
	os.Remove(filepath.Join(co, "AGENTS.md"))
	git(t, co, "add", "-N", "shared/new.md", "shared/blob.bin")
	want := git(t, co, "diff", "--no-color", "--no-ext-diff")

	res := must[*engine.DiffResult](t)(e.Diff(ctx, co, engine.DiffOptions{}))
	var got bytes.Buffer
	if err := res.WriteUnified(&got); err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Fatalf("tv diff:\n%s\ngit diff:\n%s", got.String(), want)
	}
	// A path limits the diff.
	res = must[*engine.DiffResult](t)(e.Diff(ctx, co, engine.DiffOptions{Paths: []string{"shared"}}))
	if len(res.Files) != 2 || res.Files[0].Path != "shared/blob.bin" || !res.Files[0].Binary || res.Files[1].Status != "added" {
		t.Fatalf("diff of shared: %+v", res.Files)
	}
}

// TestDiffHead: --head compares with the current head: upstream's change
// shows as the checkout lacking it; without --head the diff is empty.
func TestDiffHead(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[1].open(t), alice)
	dirs := setup(t, e, 2)
	write(t, filepath.Join(dirs[0], "_config/voice.md"), "upstream voice\n")
	must[*engine.CommitResult](t)(e.Commit(ctx, dirs[0], "up"))
	if res := must[*engine.DiffResult](t)(e.Diff(ctx, dirs[1], engine.DiffOptions{})); len(res.Files) != 0 {
		t.Fatalf("diff against the baseline: %+v", res.Files)
	}
	res := must[*engine.DiffResult](t)(e.Diff(ctx, dirs[1], engine.DiffOptions{Head: true}))
	if len(res.Files) != 1 || res.Files[0].Path != "_config/voice.md" || res.Files[0].Status != "modified" {
		t.Fatalf("diff --head: %+v", res.Files)
	}
	h := res.Files[0].Hunks
	if len(h) != 1 {
		t.Fatalf("hunks %+v", h)
	}
	if !strings.Contains(strings.Join(h[0].Lines, "\n"), "-upstream voice") {
		t.Fatalf("hunk does not remove the head's line: %+v", h)
	}
}

// TestDiffBounded: past MaxDiffBytes of hunk lines, files come without
// hunks and the result says it was truncated.
func TestDiffBounded(t *testing.T) {
	ctx := context.Background()
	e := newEngine(backends()[1].open(t), alice)
	co := setup(t, e, 1)[0]
	big := strings.Repeat("a line of text that repeats\n", engine.MaxDiffBytes/20)
	write(t, filepath.Join(co, "shared/a.md"), big)
	write(t, filepath.Join(co, "shared/b.md"), "small\n")
	res := must[*engine.DiffResult](t)(e.Diff(ctx, co, engine.DiffOptions{}))
	if !res.Truncated || len(res.Files) != 2 || len(res.Files[0].Hunks) == 0 || !res.Files[1].Truncated || len(res.Files[1].Hunks) != 0 {
		t.Fatalf("truncated=%v files=%d", res.Truncated, len(res.Files))
	}
}
