package tvcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/tvbuild"
)

// tvBin is the tv binary, for tests that need real, separate processes
// (races, crashes, MCP clients over stdio).
func tvBin(t *testing.T) string {
	t.Helper()
	return tvbuild.TV(t)
}

// tvEnv is an isolated environment: its own HOME, vault and state.
type tvEnv struct {
	t    *testing.T
	bin  string
	home string
	env  []string
}

func newTVEnv(t *testing.T) *tvEnv {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	home := t.TempDir()
	e := &tvEnv{t: t, bin: tvBin(t), home: home}
	e.env = append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_DATA_HOME="+home+"/.local/share",
		"XDG_STATE_HOME="+home+"/.local/state", "XDG_CACHE_HOME="+home+"/.cache", "TV_VAULT="+home+"/vault.git", "GIT_CONFIG_NOSYSTEM=1")
	e.must("login", "--user", "racer")
	return e
}

func (e *tvEnv) vault() string { return filepath.Join(e.home, "vault.git") }

func (e *tvEnv) cmd(args ...string) *exec.Cmd {
	c := exec.Command(e.bin, args...)
	c.Env = e.env
	return c
}

// run returns stdout, stderr and the exit code.
func (e *tvEnv) run(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	c := e.cmd(args...)
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (e *tvEnv) must(args ...string) string {
	e.t.Helper()
	out, errs, code := e.run(args...)
	if code != 0 {
		e.t.Fatalf("tv %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

func git(t *testing.T, gitDir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir=" + gitDir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestConcurrentCommitters: several processes commit to one workspace in a
// loop, each from its own checkout; every successful commit is in the
// history exactly once and nothing is lost.
func TestConcurrentCommitters(t *testing.T) {
	e := newTVEnv(t)
	e.must("workspace", "init", "--name", "race")
	const workers, rounds = 4, 6
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		success []string
	)
	for w := range workers {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("co%d", w))
		e.must("workspace", "checkout", "race", "--output", dir)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				f := filepath.Join(dir, "stages", "01-research", "output", fmt.Sprintf("w%d.md", w))
				os.WriteFile(f, []byte(fmt.Sprintf("round %d\n", r)), 0o644)
				reason := fmt.Sprintf("w%d-r%d", w, r)
				if _, _, code := e.run("workspace", "commit", dir, "--reason", reason); code == 0 {
					mu.Lock()
					success = append(success, reason)
					mu.Unlock()
				} else if code != 4 {
					t.Errorf("commit %s: exit %d", reason, code)
				}
			}
		}()
	}
	wg.Wait()
	log := git(t, e.vault(), "log", "--format=%s", "refs/tv/workspaces/"+wsID(t, e, "race"))
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != len(success)+1 {
		t.Fatalf("history has %d versions, want %d successes + init\n%s", len(lines), len(success), log)
	}
	for _, s := range success {
		if n := strings.Count("\n"+log, "\n"+s+"\n"); n != 1 {
			t.Errorf("%s appears %d times in history", s, n)
		}
	}
	if len(success) < workers*rounds/2 {
		t.Errorf("only %d of %d commits succeeded", len(success), workers*rounds)
	}
	git(t, e.vault(), "fsck", "--strict")
}

func wsID(t *testing.T, e *tvEnv, name string) string {
	var list struct {
		Workspaces []struct {
			ID   string `json:"workspace_id"`
			Name string `json:"workspace_name"`
		} `json:"workspaces"`
	}
	if err := json.Unmarshal([]byte(e.must("workspace", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, w := range list.Workspaces {
		if w.Name == name {
			return w.ID
		}
	}
	t.Fatalf("no workspace %s", name)
	return ""
}

// TestCommitKilled: a commit killed with SIGKILL at random moments leaves
// the vault at the old or the new version, never a mix; the manifest is old
// or new, never torn; and the next commit and walk-test tell the truth.
//
// The kills fall in the first killWindow of the commit, one in each of
// rounds equal slices of it (a random point inside its slice, the
// slices in random order): no two kills are more than two slices
// apart, 7.5 ms with 16 rounds. The 25 uniformly random kills this
// test made before left a largest gap of about 8.9 ms on average (the
// expected largest of their 26 gaps, 60 ms × H(26)/26) and a wider one
// in an unlucky run, at 9 more rounds of commits, walk-tests and reads.
func TestCommitKilled(t *testing.T) {
	t.Parallel()
	e := newTVEnv(t)
	e.must("workspace", "init", "--name", "crash")
	id := wsID(t, e, "crash")
	ref := "refs/tv/workspaces/" + id
	dir := filepath.Join(t.TempDir(), "co")
	e.must("workspace", "checkout", "crash", "--output", dir)
	rounds := 16
	if testing.Short() {
		rounds = 8
	}
	const killWindow = 60 * time.Millisecond
	slices := rand.Perm(rounds)
	// The ref as the last round left it (its retry commit, read with the
	// head's content): each round's starting value without another read.
	head := strings.TrimSpace(git(t, e.vault(), "rev-parse", ref))
	for r := range rounds {
		// Each round changes many files so the commit has a window to die in.
		for i := range 200 {
			f := filepath.Join(dir, "stages", "01-research", "output", fmt.Sprintf("f%03d.md", i))
			os.WriteFile(f, []byte(fmt.Sprintf("round %d file %d\n", r, i)), 0o644)
		}
		before := head
		c := e.cmd("workspace", "commit", dir, "--reason", fmt.Sprintf("round %d", r))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(killWindow*time.Duration(slices[r])/time.Duration(rounds) + rand.N(killWindow/time.Duration(rounds)))
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		after := strings.TrimSpace(git(t, e.vault(), "rev-parse", ref))
		if after != before {
			// The new version must be complete: its tree holds this round's content.
			ids, data := catBatch(t, e.vault(), after+":stages/01-research/output/f199.md", after+"^")
			if got := data[0]; got != fmt.Sprintf("round %d file 199\n", r) {
				t.Fatalf("round %d: new head has torn content %q", r, got)
			}
			if parent := ids[1]; parent != before {
				t.Fatalf("round %d: new head's parent %s, want %s", r, parent, before)
			}
		}
		// The manifest, with its log applied, is whole and says the old or
		// the new version.
		m, err := engine.ReadManifest(dir)
		if err != nil {
			t.Fatalf("round %d: manifest unreadable after kill: %v", r, err)
		}
		if got := m.Baseline.String(); got != before && got != after {
			t.Fatalf("round %d: manifest baseline %s is neither %s nor %s", r, got, before, after)
		}
		// A kill inside the ref transaction may leave its lock files (the
		// workspace ref's, and the access ref's it verifies): the next
		// commit must name one and change nothing; a user removes them.
		var locks []string
		for _, name := range []string{ref, "refs/tv/access"} {
			lock := filepath.Join(e.vault(), filepath.FromSlash(name)+".lock")
			if _, err := os.Stat(lock); err == nil {
				locks = append(locks, lock)
			}
		}
		if len(locks) > 0 {
			_, errs, code := e.run("workspace", "commit", dir, "--reason", "blocked")
			named := false
			for _, l := range locks {
				named = named || strings.Contains(errs, filepath.ToSlash(l))
			}
			if code != 4 || !named {
				t.Fatalf("round %d: commit with stale locks %v: exit %d, %s", r, locks, code, errs)
			}
			if now := strings.TrimSpace(git(t, e.vault(), "rev-parse", ref)); now != after {
				t.Fatalf("round %d: a blocked commit moved the ref to %s", r, now)
			}
			for _, l := range locks {
				os.Remove(l)
			}
		}
		// Finish the round without a kill: it must land or find nothing to do.
		e.must("workspace", "commit", dir, "--reason", fmt.Sprintf("round %d retry", r))
		out := e.must("workspace", "walk-test", dir, "--json")
		if !strings.Contains(out, `"changed": false`) {
			t.Fatalf("round %d: after a clean commit walk-test still sees changes:\n%s", r, out)
		}
		ids, data := catBatch(t, e.vault(), ref, ref+":stages/01-research/output/f000.md")
		if got := data[1]; got != fmt.Sprintf("round %d file 0\n", r) {
			t.Fatalf("round %d: head content %q", r, got)
		}
		head = ids[0]
	}
	git(t, e.vault(), "fsck", "--strict")
}

// catBatch reads revs from the bare repository with one `git cat-file
// --batch` (one process for what a rev-parse and a show per rev would
// read): each one's object id and its contents, in order.
func catBatch(t *testing.T, repo string, revs ...string) (ids, contents []string) {
	t.Helper()
	cmd := exec.Command("git", "--git-dir="+repo, "cat-file", "--batch")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	cmd.Stdin = strings.NewReader(strings.Join(revs, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch %v: %v", revs, err)
	}
	for _, rev := range revs {
		head, rest, _ := strings.Cut(string(out), "\n")
		f := strings.Fields(head)
		size := -1
		if len(f) == 3 {
			size, _ = strconv.Atoi(f[2])
		}
		if size < 0 || len(rest) < size+1 || rest[size] != '\n' {
			t.Fatalf("git cat-file --batch: %q for %s", head, rev)
		}
		ids, contents = append(ids, f[0]), append(contents, rest[:size])
		out = []byte(rest[size+1:])
	}
	return ids, contents
}
