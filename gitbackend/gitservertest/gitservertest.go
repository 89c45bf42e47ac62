// Package gitservertest starts real git servers on 127.0.0.1 for tests:
// git http-backend behind net/http/httptest (net/http/cgi) with basic
// auth that sets REMOTE_USER. Servers stop when the test ends.
package gitservertest

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/thalix/tv/internal/testexe"
)

// HTTP is a running smart-HTTP git server.
type HTTP struct {
	// Root holds the served bare repositories (GIT_PROJECT_ROOT).
	Root string
	// URL is the server's base URL; a repository is URL + "/" + name.
	URL string
	// Requests counts the requests served.
	Requests atomic.Int64

	srv *httptest.Server
}

// StartHTTP serves the bare repositories under root with git http-backend.
// users maps user names to passwords; with none, any request is served
// as user "anonymous". A request with wrong or missing credentials gets
// 401 when users is not empty.
func StartHTTP(t testing.TB, root string, users map[string]string) *HTTP {
	t.Helper()
	backend, err := httpBackend()
	if err != nil {
		t.Skip("git is not on PATH")
	}
	h := &HTTP{Root: root}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.Requests.Add(1)
		user := "anonymous"
		if len(users) > 0 {
			u, p, ok := r.BasicAuth()
			if !ok || users[u] != p {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
			user = u
		}
		cg := &cgi.Handler{
			Path: backend,
			Dir:  root,
			Env: []string{
				"GIT_PROJECT_ROOT=" + root,
				"GIT_HTTP_EXPORT_ALL=1",
				"REMOTE_USER=" + user,
				"GIT_CONFIG_NOSYSTEM=1",
				"HOME=" + root,
			},
			InheritEnv: []string{"PATH"},
		}
		cg.ServeHTTP(w, r)
	}))
	t.Cleanup(h.srv.Close)
	h.URL = h.srv.URL
	return h
}

// httpBackend is the path of git's http-backend program, found once
// (`git --exec-path`). Each request runs it directly: through the git
// wrapper every request would start two processes, the wrapper only
// exec'ing the same program.
var httpBackend = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return "", err
	}
	return filepath.Join(strings.TrimSpace(string(out)), "git-http-backend"), nil
})

// Close stops the server (further requests fail to connect).
func (h *HTTP) Close() { h.srv.Close() }

// InitBare creates an empty bare repository dir (git init --bare) with
// the given extra config ("key=value").
func InitBare(t testing.TB, dir string, config ...string) {
	t.Helper()
	Git(t, "", "init", "--quiet", "--bare", dir)
	for _, kv := range config {
		k, v, _ := strings.Cut(kv, "=")
		Git(t, dir, "config", k, v)
	}
}

// Git runs git (with --git-dir when gitDir is not empty) and returns its
// trimmed output, failing the test on error.
func Git(t testing.TB, gitDir string, args ...string) string {
	t.Helper()
	out, err := GitErr(gitDir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// GitErr runs git and returns its trimmed combined output.
func GitErr(gitDir string, args ...string) (string, error) {
	if gitDir != "" {
		args = append([]string{"--git-dir=" + gitDir}, args...)
	}
	cmd := exec.Command("git", args...)
	// A fixed identity: the tests' commits (commit-tree) must not depend
	// on the machine's git configuration (an empty HOME has none).
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=gitservertest", "GIT_AUTHOR_EMAIL=gitservertest@example.invalid",
		"GIT_COMMITTER_NAME=gitservertest", "GIT_COMMITTER_EMAIL=gitservertest@example.invalid")
	out, err := cmd.CombinedOutput()
	return strings.TrimRight(string(out), "\n"), err
}

// Hook installs an executable hook script (e.g. "pre-receive") in the
// bare repository dir (through testexe: git may run it while other tests
// start processes).
func Hook(t testing.TB, dir, name, script string) {
	t.Helper()
	testexe.Write(t, filepath.Join(dir, "hooks", name), []byte(script))
}
