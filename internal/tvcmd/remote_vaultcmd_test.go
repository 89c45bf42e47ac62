package tvcmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/gitbackend/gitservertest"
	"github.com/thalix/tv/internal/testexe"
)

// TestVaultPublishAndCommands: tv vault init --bare, tv vault push (a
// local vault published to an empty remote keeps its id and history),
// tv login --vault (a token per URL, used without TV_TOKEN), git's
// credential helpers, and tv vault doctor on a stale lock.
func TestVaultPublishAndCommands(t *testing.T) {
	t.Parallel()
	// A single-machine user with history.
	l := newTVEnv(t)
	l.must("workspace", "init", "--name", "mine")
	co := filepath.Join(t.TempDir(), "co")
	l.must("workspace", "checkout", "mine", "--output", co)
	writeNote(t, co, "m.md", "local history\n")
	l.must("workspace", "commit", co, "--reason", "before the server")
	var localInfo struct{ ID string }
	json.Unmarshal([]byte(l.must("vault", "info", "--json")), &localInfo)

	// tv vault init --bare makes a vault; a second init there is refused.
	root := t.TempDir()
	made := filepath.Join(root, "made.git")
	l.must("vault", "init", "--bare", made)
	if _, _, code := l.run("vault", "init", "--bare", made); code != 4 {
		t.Fatalf("second init: exit %d", code)
	}
	gitservertest.Git(t, made, "fsck", "--strict")

	// Publish to an empty repository behind http-backend.
	empty := filepath.Join(root, "team.git")
	gitservertest.InitBare(t, empty)
	srv := gitservertest.StartHTTP(t, root, map[string]string{"alice": remoteToken})
	url := srv.URL + "/team.git"
	pub := append([]string(nil), l.env...)
	l.env = append(l.env, "TV_TOKEN="+remoteToken, "TV_USER=alice")
	l.must("vault", "push", url)
	l.env = pub
	// Publishing again is refused: the repository holds tv refs now.
	if _, errs, code := l.run("vault", "push", "file://"+empty); code != 4 || !strings.Contains(errs, "already holds tv refs") {
		t.Fatalf("second publish: exit %d %s", code, errs)
	}

	// Another machine: token saved per URL with tv login --vault.
	r := remoteEnv(t, url, "")
	r.env = append(r.env, "TV_TOKEN=") // no fallback
	if _, _, code := r.run("workspace", "list"); code != 5 {
		t.Fatalf("no token: exit %d", code)
	}
	c := r.cmd("login", "--vault", url, "--user", "alice", "--token-stdin")
	c.Stdin = strings.NewReader(remoteToken + "\n")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("login --vault: %v %s", err, out)
	}
	var info struct{ ID string }
	json.Unmarshal([]byte(r.must("vault", "info", "--json")), &info)
	if info.ID != localInfo.ID {
		t.Fatalf("published vault id %s, local %s", info.ID, localInfo.ID)
	}
	// The checkout made against the local vault commits to the server
	// (as its author: the workspace is racer's).
	r.must("login", "--user", "racer")
	writeNote(t, co, "m.md", "on the server now\n")
	r.must("workspace", "commit", co, "--reason", "after the move")
	// --topo-order: a child before its parent whatever their dates (all of
	// this test's commits may fall in one second).
	if log := gitservertest.Git(t, empty, "log", "--topo-order", "--format=%s", "--exclude=refs/tv/vault", "--all"); !strings.Contains(log, "before the server") ||
		!strings.Contains(log, "after the move") || strings.Index(log, "after the move") > strings.Index(log, "before the server") {
		t.Fatalf("history on the server:\n%s", log)
	}

	// git's credential helpers, when tv knows no token.
	g := remoteEnv(t, url, "")
	g.env = append(g.env, "TV_TOKEN=")
	g.must("login", "--user", "racer")
	store := filepath.Join(g.home, ".git-credentials")
	os.WriteFile(store, []byte(strings.Replace(srv.URL, "http://", "http://alice:"+remoteToken+"@", 1)+"\n"), 0o600)
	gitservertest.Git(t, "", "config", "--file", filepath.Join(g.home, ".gitconfig"), "credential.helper", "store --file "+store)
	if !strings.Contains(g.must("workspace", "list"), "mine") {
		t.Fatal("list through git's credential helper")
	}

	// tv vault doctor: a lock left by a killed process.
	lock := filepath.Join(l.vault(), "refs", "tv", "workspaces", "ws_aaaaaaaaaaaaaaaaaaaa.lock")
	os.MkdirAll(filepath.Dir(lock), 0o755)
	os.WriteFile(lock, nil, 0o644)
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(lock, old, old)
	fresh := filepath.Join(l.vault(), "refs", "tv", "access.lock")
	os.WriteFile(fresh, nil, 0o644)
	if out := l.must("vault", "doctor"); !strings.Contains(out, lock) || strings.Contains(out, fresh) {
		t.Fatalf("doctor report:\n%s", out)
	}
	l.must("vault", "doctor", "--fix")
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatal("stale lock not removed")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatal("a fresh lock (a live writer's) was removed")
	}
}

// TestRemoteCredentialHelper: with no token known to tv, git's credential
// helpers answer (a helper script configured in the test HOME's
// .gitconfig, logging what git asks it): a password the server accepts is
// approved (the helper is told "store"), a wrong one rejected ("erase")
// with exit 5 and without the password in any message.
func TestRemoteCredentialHelper(t *testing.T) {
	t.Parallel()
	s := startRemote(t)
	seed := remoteEnv(t, s.url, remoteToken)
	seed.must("workspace", "init", "--name", "helped")
	for _, tc := range []struct {
		name, password, wantOp string
		exit                   int
	}{
		{"approved", remoteToken, "store", 0},
		{"rejected", "wrong-password-31337", "erase", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := remoteEnv(t, s.url, "")
			logf := filepath.Join(e.home, "helper.log")
			helper := filepath.Join(e.home, "helper.sh")
			script := "#!/bin/sh\nin=$(cat)\nprintf '%s\\n%s\\n--\\n' \"$1\" \"$in\" >> " + logf + "\n" +
				"if [ \"$1\" = get ]; then printf 'username=alice\\npassword=" + tc.password + "\\n'; fi\n"
			testexe.Write(t, helper, []byte(script))
			gitservertest.Git(t, "", "config", "--file", filepath.Join(e.home, ".gitconfig"), "credential.helper", "!"+helper)
			out, errs, code := e.run("workspace", "list")
			if code != tc.exit {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.exit, out, errs)
			}
			if tc.exit == 0 && !strings.Contains(out, "helped") {
				t.Fatalf("list through the helper:\n%s", out)
			}
			if strings.Contains(out+errs, tc.password) {
				t.Fatalf("the helper's password is in tv's output:\n%s%s", out, errs)
			}
			b, err := os.ReadFile(logf)
			if err != nil {
				t.Fatal(err)
			}
			log := string(b)
			if !strings.HasPrefix(log, "get\n") || !strings.Contains(log, "\n--\n"+tc.wantOp+"\n") || !strings.Contains(log, "host="+strings.TrimPrefix(s.srv.URL, "http://")) {
				t.Fatalf("helper calls, want get then %s:\n%s", tc.wantOp, log)
			}
			for _, other := range []string{"store", "erase"} {
				if other != tc.wantOp && strings.Contains(log, "\n--\n"+other+"\n") {
					t.Fatalf("helper told %s too:\n%s", other, log)
				}
			}
			if out, err := exec.Command("grep", "-r", "-l", "--exclude=helper.*", "--exclude=.gitconfig", tc.password, e.home).CombinedOutput(); err == nil {
				t.Fatalf("the password was written to disk by tv: %s", out)
			}
		})
	}
}
