package tvcmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/thalix/tv/starter"
)

// TestCheckBadInput: each kind of bad input is a clear error naming the
// path and the rule, with its documented exit code, and nothing is
// written anywhere (the folder, the repository and HOME are unchanged).
func TestCheckBadInput(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed:", err)
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, repo string) []string // returns tv's arguments
		code  int
		want  []string
	}{
		{"not a folder", func(t *testing.T, repo string) []string {
			return []string{"check", filepath.Join(repo, "CONTEXT.md")}
		}, ExitRefused, []string{"CONTEXT.md is not a folder (it is a regular file)"}},
		{"a FIFO", func(t *testing.T, repo string) []string {
			p := filepath.Join(repo, "pipe")
			mkfifo(t, p)
			return []string{"check", p}
		}, ExitRefused, []string{"pipe is not a folder (it is a FIFO)"}},
		{"oversize .gitignore", func(t *testing.T, repo string) []string {
			writeFile(t, filepath.Join(repo, "stages", ".gitignore"), strings.Repeat("# padding\n", 110_000))
			return []string{"check", repo}
		}, ExitRefused, []string{"stages/.gitignore is over the 1048576-byte (1 MiB) limit (MaxIgnoreFileBytes)"}},
		{"oversize core.excludesFile", func(t *testing.T, repo string) []string {
			p := filepath.Join(t.TempDir(), "global-ignore")
			writeFile(t, p, strings.Repeat("# padding\n", 110_000))
			gitRun(t, repo, "config", "core.excludesFile", p)
			return []string{"check", repo}
		}, ExitRefused, []string{"global-ignore is over the 1048576-byte (1 MiB) limit (MaxExcludesBytes)"}},
		{"nested repository", func(t *testing.T, repo string) []string {
			gitRun(t, filepath.Join(repo, "stages", "01-research"), "init", "-q")
			return []string{"check", repo}
		}, ExitRefused, []string{"stages/01-research is a nested git repository"}},
		{"corrupt index", func(t *testing.T, repo string) []string {
			writeFile(t, filepath.Join(repo, ".git", "index"), "DIRC garbage")
			return []string{"check", repo, "--staged"}
		}, ExitRefused, []string{"broken git repository", filepath.Join(".git", "index")}},
		{"missing object", func(t *testing.T, repo string) []string {
			id := strings.TrimSpace(gitRun(t, repo, "rev-parse", "HEAD:CLAUDE.md"))
			if err := os.Remove(filepath.Join(repo, ".git", "objects", id[:2], id[2:])); err != nil {
				t.Fatal(err)
			}
			return []string{"check", repo, "--rev", "HEAD"}
		}, ExitRefused, []string{"broken git repository", "of CLAUDE.md is missing"}},
		{"unknown revision", func(t *testing.T, repo string) []string {
			return []string{"check", repo, "--rev", "no-such-branch"}
		}, ExitNotFound, []string{`"no-such-branch" names no commit or tree`}},
		{"option as revision", func(t *testing.T, repo string) []string {
			return []string{"check", repo, "--rev=--output=x"}
		}, ExitNotFound, []string{"a revision does not start with '-'"}},
		{"submodule", func(t *testing.T, repo string) []string {
			head := strings.TrimSpace(gitRun(t, repo, "rev-parse", "HEAD"))
			gitRun(t, repo, "update-index", "--add", "--cacheinfo", "160000,"+head+",stages/vendored")
			return []string{"check", repo, "--staged"}
		}, ExitRefused, []string{"stages/vendored is a submodule (a gitlink, mode 160000)"}},
		{"unreadable folder", func(t *testing.T, repo string) []string {
			if os.Geteuid() == 0 {
				t.Skip("root reads every folder: TestCheckUnreadableFolderAsUser runs this case as an unprivileged user")
			}
			p := filepath.Join(repo, "stages", "01-research", "references")
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(p, 0o755) })
			return []string{"check", repo}
		}, ExitRefused, []string{"references", "permission denied"}},
		{"not a repository", func(t *testing.T, repo string) []string {
			return []string{"check", t.TempDir(), "--staged"}
		}, ExitNotFound, []string{"not in a git work tree"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			repo := sampleRepo(t)
			args := tc.setup(t, repo)
			before := snapshot(t, repo, home)
			env := map[string]string{"HOME": home}
			_, stderr, code := runTV(t, env, false, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if after := snapshot(t, repo, home); after != before {
				t.Fatalf("tv check wrote something:\n%s\n---\n%s", before, after)
			}
		})
	}
}

// sampleRepo makes a git repository holding the bundled starter, committed.
func sampleRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, starter.FS()); err != nil {
		t.Fatal(err)
	}
	gitRun(t, repo, "init", "-q")
	gitRun(t, repo, "add", "-A")
	gitRun(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "starter")
	return repo
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot lists every entry under the roots with its size and mtime.
func snapshot(t *testing.T, roots ...string) string {
	t.Helper()
	var lines []string
	for _, root := range roots {
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				lines = append(lines, p+" "+err.Error())
				return nil
			}
			lines = append(lines, p+" "+fi.Mode().String()+" "+fi.ModTime().String()+" "+strconv.FormatInt(fi.Size(), 10))
			return nil
		})
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestCheckUnreadableFolderAsUser is the unreadable-folder case of
// TestCheckBadInput for a root test run (CI's): root reads every folder,
// so the real tv binary checks the repository as the unprivileged user
// nobody (through setpriv), who owns it and cannot read one folder.
func TestCheckUnreadableFolderAsUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("not root: TestCheckBadInput's unreadable-folder case runs as this user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) is not installed: cannot run tv as an unprivileged user")
	}
	const nobody = "65534"
	base, err := os.MkdirTemp("", "tv-unreadable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(base, "repo")
	if err := os.CopyFS(repo, starter.FS()); err != nil {
		t.Fatal(err)
	}
	gitRun(t, repo, "init", "-q")
	gitRun(t, repo, "add", "-A")
	gitRun(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "starter")
	if out, err := exec.Command("chown", "-R", nobody+":"+nobody, base).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
	unreadable := filepath.Join(repo, "stages", "01-research", "references")
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, base)
	cmd := exec.Command(setpriv, "--reuid", nobody, "--regid", nobody, "--clear-groups", "--", tvBin(t), "check", repo)
	cmd.Env = []string{"HOME=" + base, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitRefused {
		t.Fatalf("tv check as nobody: %v, want exit %d; stderr:\n%s", err, ExitRefused, stderr.String())
	}
	for _, w := range []string{"references", "permission denied"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
		}
	}
	if after := snapshot(t, base); after != before {
		t.Fatalf("tv check wrote something:\n%s\n---\n%s", before, after)
	}
}
