package hook

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/thalix/tv/internal/testexe"
)

// gitServer is a real git server the tests push to, with the hook installed.
type gitServer struct {
	repo    string              // the bare repository on disk
	url     func(string) string // the URL a user pushes to
	env     []string            // the pushing git's environment
	readers string              // where the hook logs the reader it used (readersUsed)
}

// installHook installs the test binary as the repository's hook.
func installHook(t testing.TB, repo string, env []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := Install(context.Background(), repo, InstallOptions{Tv: exe, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	// The pushes of these tests run the form of the script servers get.
	if text, err := os.ReadFile(out.Hook); err != nil || runtime.GOOS == "linux" && !strings.HasPrefix(string(text), "#!"+exe+" hook pre-receive\n") {
		t.Fatalf("hook script (%v) is not the #! form for %s:\n%s", err, exe, text)
	}
}

// httpServer serves a bare repository with git http-backend behind basic
// auth (password "pw-USER"); the backend gets REMOTE_USER, and the hook
// hookEnv too.
func httpServer(t testing.TB, hookEnv ...string) *gitServer {
	t.Helper()
	home := t.TempDir()
	readers := filepath.Join(t.TempDir(), "readers")
	env := testEnv(t, home)
	root := t.TempDir()
	repo := filepath.Join(root, "vault.git")
	gitRun(t, env, ".", "", "init", "-q", "--bare", repo)
	installHook(t, repo, env)
	backend := filepath.Join(gitRun(t, env, ".", "", "--exec-path"), "git-http-backend")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pw, ok := r.BasicAuth()
		if !ok || pw != "pw-"+user {
			w.Header().Set("WWW-Authenticate", `Basic realm="tv"`)
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		h := &cgi.Handler{Path: backend, Root: "/", Env: append([]string{
			"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=" + user,
			"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", readersLogEnv + "=" + readers,
		}, hookEnv...)}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	return &gitServer{
		repo:    repo,
		url:     func(user string) string { return fmt.Sprintf("http://%s:pw-%s@%s/vault.git", user, user, host) },
		env:     env,
		readers: readers,
	}
}

// gitoliteServer sets gitolite3 up in a temporary HOME with a repository
// "vault" that alice, bob and mallory may push to (gitolite's own rules
// let them; tv's hook judges the rest). Pushes reach gitolite-shell as an
// ssh login would: GIT_SSH_COMMAND runs it with SSH_ORIGINAL_COMMAND and
// the user gitolite would have found from the key.
func gitoliteServer(t testing.TB) *gitServer {
	t.Helper()
	gl, err := exec.LookPath("gitolite")
	if err != nil {
		t.Skip("gitolite3 is not installed (apt-get install gitolite3; .ci/run installs it): skipping the gitolite server")
	}
	home := t.TempDir()
	env := testEnv(t, home)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gl, args...)
		cmd.Env, cmd.Dir = env, home
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("gitolite %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("setup", "-a", "admin")
	conf := "repo gitolite-admin\n    RW+ = admin\n\nrepo vault\n    RW+ = alice bob mallory\n"
	if err := os.WriteFile(filepath.Join(home, ".gitolite", "conf", "gitolite.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	run("compile")
	run("trigger", "POST_COMPILE")
	repo := filepath.Join(home, "repositories", "vault.git")
	if _, err := os.Stat(repo); err != nil {
		t.Fatalf("gitolite made no repository: %v", err)
	}
	installHook(t, repo, env)
	shell := filepath.Join(run("query-rc", "GL_BINDIR"), "gitolite-shell")
	wrapper := filepath.Join(home, "ssh-to-gitolite")
	script := `#!/bin/sh
# git runs: ssh-to-gitolite [options] USER@gitolite COMMAND
for arg; do host=$cmd; cmd=$arg; done
HOME='` + home + `' SSH_CONNECTION='127.0.0.1 50000 127.0.0.1 22' SSH_ORIGINAL_COMMAND="$cmd" exec '` + shell + `' "${host%@*}"
`
	testexe.Write(t, wrapper, []byte(script))
	readers := filepath.Join(t.TempDir(), "readers")
	return &gitServer{
		repo:    repo,
		url:     func(user string) string { return user + "@gitolite:vault" },
		env:     append(env, "GIT_SSH_COMMAND="+wrapper, "GIT_SSH_VARIANT=ssh", readersLogEnv+"="+readers),
		readers: readers,
	}
}

// refsOf is the server's refs as `git for-each-ref` prints them.
func (s *gitServer) refsOf(t testing.TB) string {
	t.Helper()
	return gitRun(t, s.env, s.repo, "", "for-each-ref")
}

// push runs stock git push from dir as user.
func (s *gitServer) push(t testing.TB, dir, user string, refspecs ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"push", "--porcelain", s.url(user)}, refspecs...)...)
	cmd.Dir, cmd.Env = dir, s.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
