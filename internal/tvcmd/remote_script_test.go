package tvcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/thalix/tv/gitbackend/gitservertest"
)

// remoteScripts are the CLI scenarios that run unchanged against a remote
// vault: the same commands, output, --json shapes and exit codes as on a
// local one. ($VAULT is then the served bare repository, so the scripts'
// own git inspections look at the server.)
var remoteScripts = []string{"access.txtar", "template.txtar", "workspace.txtar", "workspace_update.txtar"}

// TestScriptsRemote runs remoteScripts with TV_VAULT naming the script's
// vault as a file:// URL and as a smart-HTTP URL served by git
// http-backend on 127.0.0.1.
func TestScriptsRemote(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	// One server for every script: its project root is / and a
	// repository's URL path is its absolute path.
	srv := gitservertest.StartHTTP(t, "/", nil)
	for _, proto := range []string{"file", "http"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			p := scriptParams(t, "testdata/script")
			p.Dir, p.Files = "", nil
			for _, f := range remoteScripts {
				p.Files = append(p.Files, filepath.Join("testdata", "script", f))
			}
			local := p.Setup
			p.Setup = func(env *testscript.Env) error {
				if err := local(env); err != nil {
					return err
				}
				vault := env.Getenv("VAULT")
				if out, err := exec.Command("git", "init", "--quiet", "--bare", vault).CombinedOutput(); err != nil {
					return &os.PathError{Op: "git init --bare " + string(out), Path: vault, Err: err}
				}
				url := "file://" + vault
				if proto == "http" {
					url = srv.URL + vault
				}
				env.Setenv("TV_VAULT", url)
				env.Setenv("XDG_CACHE_HOME", filepath.Join(env.Getenv("HOME"), ".cache"))
				return nil
			}
			testscript.Run(t, p)
		})
	}
}
