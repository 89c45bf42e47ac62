package tvcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/internal/testexe"
)

// TestHandOffToFull: tv runs the command lines that need the MCP servers
// or a remote vault's transports as tv-full, found beside it; without
// tv-full they fail with exit 6 and what to install, nothing touched,
// while every local command still works.
func TestHandOffToFull(t *testing.T) {
	t.Parallel()
	e := newTVEnv(t)
	// tv alone: a copy in a folder without tv-full (a tv-full on PATH is
	// not used: it may be another version).
	alone := filepath.Join(t.TempDir(), "tv")
	testexe.Copy(t, alone, e.bin)
	lone := &tvEnv{t: t, bin: alone, home: e.home, env: append(withoutPath(e.env), "PATH="+filepath.Dir(e.bin)+":/usr/bin:/bin")}

	co := filepath.Join(t.TempDir(), "co")
	lone.must("workspace", "init", "--name", "w")
	lone.must("workspace", "checkout", "w", "--output", co)
	if out := lone.must("workspace", "walk-test", co); !strings.Contains(out, "valid") {
		t.Fatalf("walk-test without tv-full:\n%s", out)
	}

	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"mcp local", nil, []string{"mcp", "local"}},
		{"mcp subcommand help", nil, []string{"mcp", "serve", "--help"}},
		{"help of mcp", nil, []string{"help", "mcp", "doctor"}},
		{"remote vault", []string{"TV_VAULT=https://tv.example.invalid/team.git"}, []string{"workspace", "list"}},
		{"publish to a URL", nil, []string{"vault", "push", "https://tv.example.invalid/team.git"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &tvEnv{t: t, bin: alone, home: e.home, env: append(append([]string(nil), lone.env...), c.env...)}
			out, errs, code := r.run(c.args...)
			if code != ExitNotFound || !strings.Contains(errs, "tv-full not found beside "+alone) ||
				!strings.Contains(errs, "go install github.com/thalix/tv/cmd/...@latest") {
				t.Fatalf("exit %d, want %d naming tv-full and the install command\nstdout: %s\nstderr: %s", code, ExitNotFound, out, errs)
			}
			if c.args[0] == "help" {
				return // help prints no JSON
			}
			jout, _, _ := r.run(append([]string{"--json"}, c.args...)...)
			if !strings.Contains(jout, `"code": "not_found"`) {
				t.Errorf("--json: %s", jout)
			}
		})
	}
	if entries, _ := os.ReadDir(filepath.Join(e.home, ".cache", "tv")); len(entries) > 0 {
		t.Errorf("a refused remote command left a cache: %v", entries)
	}

	// The commands that never open the vault run in tv while the current
	// vault is a URL: one can check a tree, log in, or point tv back at a
	// local vault without tv-full.
	remote := &tvEnv{t: t, bin: alone, home: e.home, env: append(append([]string(nil), lone.env...), "TV_VAULT=https://tv.example.invalid/team.git")}
	for _, args := range [][]string{{"version"}, {"check", co}, {"login", "--user", "racer"}, {"--help"}, {"vault", "use", e.vault()}} {
		remote.must(args...)
	}

	// A file named tv-full that is not tv-full: not executable, or a copy
	// of tv (which would hand the command line back, forever).
	bad := filepath.Join(filepath.Dir(alone), "tv-full")
	for _, c := range []struct {
		name string
		mode os.FileMode
		want string
	}{
		{"not executable", 0o644, "tv-full is not executable"},
		{"tv itself", 0o755, "handed the command line back to tv, so it is not tv-full"},
	} {
		t.Run(c.name, func(t *testing.T) {
			testexe.Copy(t, bad, e.bin)
			if err := os.Chmod(bad, c.mode); err != nil {
				t.Fatal(err)
			}
			_, errs, code := lone.run("mcp", "config")
			if code != ExitNotFound || !strings.Contains(errs, c.want) {
				t.Fatalf("exit %d, want %d with %q\n%s", code, ExitNotFound, c.want, errs)
			}
		})
	}
	os.Remove(bad)

	// tv-full run directly installs a hook that runs tv, the lean binary
	// beside it.
	repo := filepath.Join(t.TempDir(), "srv.git")
	git(t, repo, "init", "--quiet", "--bare")
	full := &tvEnv{t: t, bin: filepath.Join(filepath.Dir(e.bin), "tv-full"), home: e.home, env: e.env}
	full.must("hook", "install", repo)
	if hook, err := os.ReadFile(filepath.Join(repo, "hooks", "pre-receive")); err != nil || !strings.Contains(string(hook), e.bin+" hook pre-receive") {
		t.Errorf("pre-receive hook (%v) does not run %s:\n%s", err, e.bin, hook)
	}

	// With tv-full beside it, the same command lines run there: help, and
	// its exit codes (a usage error is tv-full's exit 2).
	if out := e.must("mcp", "serve", "--help"); !strings.HasPrefix(out, "tv mcp serve - ") {
		t.Errorf("tv mcp serve --help:\n%s", out)
	}
	if out := e.must("help", "mcp"); !strings.Contains(out, "doctor") {
		t.Errorf("tv help mcp:\n%s", out)
	}
	if _, errs, code := e.run("mcp", "serve", "--workspace", "w"); code != ExitUsage || !strings.Contains(errs, "all-or-nothing") {
		t.Errorf("tv mcp serve --workspace alone: exit %d %s", code, errs)
	}
}

// withoutPath is env without its PATH entry.
func withoutPath(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return out
}
