package tvcmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestCIExamples runs the README's "Use in CI" examples: the commands of
// the GitHub Actions workflow and of the GitLab CI job (all but the line
// that installs tv, which is on PATH here) on a shallow clone of a sample
// repository, and the pre-commit hook installed in it, each on a valid
// tree and on a broken one. The script is testdata/ci/examples.txtar
// with the README's commands put in.
func TestCIExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	github := stepCommands(t, ciExample(t, string(readme), "github"), `^\s*- run: (.+)$`)
	gitlab := stepCommands(t, ciExample(t, string(readme), "gitlab"), `^\s+- (.+)$`)
	hook := ciExample(t, string(readme), "pre-commit")
	if !strings.HasPrefix(hook, "#!/bin/sh\n") || !strings.Contains(hook, "tv check --staged") {
		t.Fatalf("the pre-commit example is not a sh hook running tv check --staged:\n%s", hook)
	}
	tmpl, err := os.ReadFile("testdata/ci/examples.txtar")
	if err != nil {
		t.Fatal(err)
	}
	script := strings.NewReplacer(
		"GITHUB_STEPS_OK", runLines("exec sh -c", github),
		"GITHUB_STEPS_FAIL", runLines("exitcode 3 sh -c", github),
		"GITLAB_SCRIPT_OK", runLines("exec sh -c", gitlab),
		"GITLAB_SCRIPT_FAIL", runLines("exitcode 3 sh -c", gitlab),
		"PRE_COMMIT_HOOK\n", hook,
	).Replace(string(tmpl))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "examples.txtar"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, scriptParams(t, dir))
}

// ciExample returns the body of the fenced block after the README marker
// <!-- ci-example NAME -->.
func ciExample(t *testing.T, readme, name string) string {
	t.Helper()
	marker := "<!-- ci-example " + name + " -->\n"
	i := strings.Index(readme, marker)
	if i < 0 {
		t.Fatalf("README.md has no %q example", name)
	}
	rest := readme[i+len(marker):]
	open := strings.IndexByte(rest, '\n')
	end := strings.Index(rest, "\n```\n")
	if !strings.HasPrefix(rest, "```") || open < 0 || end < open {
		t.Fatalf("README.md's %q marker is not followed by a fenced block", name)
	}
	return rest[open+1 : end+1]
}

// stepCommands returns the commands matched by pattern's group, without
// the one that installs tv.
func stepCommands(t *testing.T, block, pattern string) []string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	var cmds []string
	installs := 0
	for _, line := range strings.Split(block, "\n") {
		m := re.FindStringSubmatch(line)
		switch {
		case m == nil:
		case strings.HasPrefix(m[1], "go install "):
			installs++
		default:
			cmds = append(cmds, m[1])
		}
	}
	if installs != 1 || len(cmds) == 0 {
		t.Fatalf("want one install line and some tv commands in\n%s", block)
	}
	return cmds
}

// runLines makes one script line per command: prefix 'command'. The last
// command is the one expected to fail; the ones before it run plainly.
func runLines(prefix string, cmds []string) string {
	var b strings.Builder
	for i, c := range cmds {
		p := prefix
		if i < len(cmds)-1 {
			p = "exec sh -c"
		}
		b.WriteString(p + " '" + c + "'\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
