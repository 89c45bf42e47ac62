package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend/gitservertest"
)

// TestRemoteCommitKilled: a commit to a file:// vault killed (SIGKILL) at
// random points of its push, 50 times: the server's ref is always the old
// or the new value, git fsck --strict stays clean, and the next command
// recovers (a push that landed without its answer is recognised, not
// committed twice).
func TestRemoteCommitKilled(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "vault.git")
	gitservertest.InitBare(t, repo)
	e := remoteEnv(t, "file://"+repo, "")
	e.must("workspace", "init", "--name", "crash")
	ref := "refs/tv/workspaces/" + wsID(t, e, "crash")
	dir := filepath.Join(t.TempDir(), "co")
	e.must("workspace", "checkout", "crash", "--output", dir)
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	seen := map[string]bool{}
	for r := range rounds {
		for i := range 20 {
			writeNote(t, dir, fmt.Sprintf("f%02d.md", i), fmt.Sprintf("round %d file %d\n", r, i))
		}
		before := gitservertest.Git(t, repo, "rev-parse", ref)
		c := e.cmd("workspace", "commit", dir, "--reason", fmt.Sprintf("round %d", r))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		after := gitservertest.Git(t, repo, "rev-parse", ref)
		if after != before {
			if parent := gitservertest.Git(t, repo, "rev-parse", after+"^"); parent != before {
				t.Fatalf("round %d: new head's parent %s, want %s", r, parent, before)
			}
			if got := gitservertest.Git(t, repo, "show", after+":stages/01-research/output/f19.md"); got != fmt.Sprintf("round %d file 19", r) {
				t.Fatalf("round %d: new head has torn content %q", r, got)
			}
			seen["new"] = true
		} else {
			seen["old"] = true
		}
		if r%10 == 9 {
			gitservertest.Git(t, repo, "fsck", "--strict")
		}
	}
	// The next command recovers: the last round's change lands exactly
	// once (or is recognised as already there), and the manifest follows.
	out := e.must("workspace", "commit", dir, "--reason", "recover", "--json")
	head := gitservertest.Git(t, repo, "rev-parse", ref)
	m, err := engine.ReadManifest(dir)
	if err != nil || m.Baseline.String() != head {
		t.Fatalf("after recovery the manifest says %v (%v), server %s\n%s", m.Baseline, err, head, out)
	}
	log := gitservertest.Git(t, repo, "log", "--format=%s", ref)
	for r := range rounds {
		if n := strings.Count("\n"+log+"\n", fmt.Sprintf("\nround %d\n", r)); n > 1 {
			t.Fatalf("round %d committed %d times:\n%s", r, n, log)
		}
	}
	if _, errs, code := e.run("workspace", "status", dir); code != 0 && code != 2 {
		t.Logf("status after recovery: exit %d %s", code, errs)
	}
	gitservertest.Git(t, repo, "fsck", "--strict")
	t.Logf("outcomes seen: %v", seen)
	os.RemoveAll(dir)
}

// TestRemoteFileAndPath: a file:// URL and a plain path to the same bare
// repository are the same vault; `tv vault use` records the default; a
// `git clone --mirror` of it is the same vault too.
func TestRemoteFileAndPath(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "vault.git")
	gitservertest.InitBare(t, repo)
	e := remoteEnv(t, "file://"+repo, "")
	e.must("workspace", "init", "--name", "shared")
	co := filepath.Join(t.TempDir(), "co")
	e.must("workspace", "checkout", "shared", "--output", co)
	writeNote(t, co, "n.md", "via file://\n")
	e.must("workspace", "commit", co, "--reason", "file url")

	// The same repository as a plain path (a local vault).
	p := remoteEnv(t, repo, "")
	if got := wsID(t, p, "shared"); got != wsID(t, e, "shared") {
		t.Fatalf("path and URL disagree: %s %s", got, wsID(t, e, "shared"))
	}
	writeNote(t, co, "n.md", "then via path\n")
	p.must("workspace", "commit", co, "--reason", "path")

	// A mirror is the same vault: a checkout of the original commits to it.
	mirror := filepath.Join(t.TempDir(), "mirror.git")
	gitservertest.Git(t, "", "clone", "--quiet", "--mirror", repo, mirror)
	m := remoteEnv(t, mirror, "")
	writeNote(t, co, "n.md", "then via the mirror\n")
	m.must("workspace", "commit", co, "--reason", "mirror")

	// tv vault use records the default in the config dir.
	u := remoteEnv(t, "", "")
	u.must("vault", "use", "file://"+repo)
	if !strings.Contains(u.must("workspace", "list"), "shared") {
		t.Fatal("tv vault use did not make the URL the default")
	}
	_, errs, code := u.run("vault", "use", "https://alice:"+remoteToken+"@example.com/v.git")
	if code != 2 || strings.Contains(errs, remoteToken) || !strings.Contains(errs, "tv login --vault") {
		t.Fatalf("URL with a token: exit %d\n%s", code, errs)
	}
	gitservertest.Git(t, repo, "fsck", "--strict")
}
