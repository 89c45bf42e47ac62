package hook

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/internal/testparallel"
)

// TestMain lets the test binary serve as the installed hook: the script
// `tv hook install` writes execs it with "hook pre-receive".
// On Linux the script names the binary in its "#!" line, so the kernel
// passes the line's words as one argument, then the script's path.
func TestMain(m *testing.M) {
	args, _ := ShebangArgs(os.Args[1:])
	if len(args) >= 2 && args[0] == "hook" && args[1] == "pre-receive" {
		userEnv := ""
		if len(args) == 4 && args[2] == "--user-env" {
			userEnv = args[3]
		}
		opts := Options{Getenv: os.Getenv, UserEnv: userEnv, Stderr: os.Stderr, readWithGit: os.Getenv(readWithGitEnv) == "1"}
		if log := os.Getenv(readersLogEnv); log != "" {
			opts.opened = func(reader string) { appendLine(log, reader) }
		}
		err := PreReceive(context.Background(), os.Stdin, opts)
		if err != nil {
			if !strings.Contains(err.Error(), ErrPushRefused.Error()) {
				fmt.Fprintf(os.Stderr, "tv: %v\n", err)
			}
			os.Exit(7)
		}
		os.Exit(0)
	}
	testparallel.Default() // the rule runs wait on pushes through real servers
	os.Exit(m.Run())
}

// Variables of the test binary serving as the hook: readWithGitEnv=1
// makes it read through git; readersLogEnv names a file it appends the
// reader it used to, one line per run.
const (
	readWithGitEnv = "TV_HOOK_TEST_READ_WITH_GIT"
	readersLogEnv  = "TV_HOOK_TEST_READERS"
)

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tv: %v\n", err)
		os.Exit(7)
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// readersUsed returns the readers the hook runs logged to path, and
// empties the log.
func readersUsed(t testing.TB, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	os.Remove(path)
	return strings.Fields(string(raw))
}

// testEnv is the environment of every git the tests run: no system or
// user config, pinned identity and dates, no identity variables.
func testEnv(t testing.TB, home string, extra ...string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "REMOTE_USER", "GL_USER", "GITEA_PUSHER_NAME", "GL_USERNAME", "HOME", "XDG_CONFIG_HOME", "GIT_DIR", "GIT_INDEX_FILE":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	return append(env, extra...)
}

// gitRun runs git in dir and returns its trimmed stdout, failing the test
// on error.
func gitRun(t testing.TB, env []string, dir string, stdin string, args ...string) string {
	t.Helper()
	out, err := gitTry(env, dir, stdin, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func gitTry(env []string, dir string, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return strings.TrimSpace(string(out)), fmt.Errorf("%v: %s", err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// crafter makes commits with stock git in a bare repository that borrows
// the server's objects (alternates), as any pusher can.
type crafter struct {
	t    testing.TB
	dir  string
	env  []string
	temp string
}

func newCrafter(t testing.TB, env []string, serverRepo string) *crafter {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "client.git")
	gitRun(t, env, ".", "", "init", "-q", "--bare", dir)
	alt := filepath.Join(serverRepo, "objects") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "objects", "info", "alternates"), []byte(alt), 0o644); err != nil {
		t.Fatal(err)
	}
	return &crafter{t: t, dir: dir, env: env, temp: t.TempDir()}
}

func (c *crafter) git(stdin string, args ...string) string {
	c.t.Helper()
	return gitRun(c.t, c.env, c.dir, stdin, args...)
}

// blob writes content as a blob.
func (c *crafter) blob(content string) string { return c.git(content, "hash-object", "-w", "--stdin") }

// edit is one index change: a file (mode 100644 unless Mode), a raw
// entry (Mode and ID), or a removal (Delete).
type edit struct {
	Path    string
	Content string
	Mode    string
	ID      string
	Delete  bool
}

// tree returns the tree of base (a commit or tree id, "" for empty) with
// edits applied, through a private index.
func (c *crafter) tree(base string, edits ...edit) string {
	c.t.Helper()
	index := filepath.Join(c.temp, "index")
	os.Remove(index)
	env := append(append([]string(nil), c.env...), "GIT_INDEX_FILE="+index)
	if base == "" {
		gitRun(c.t, env, c.dir, "", "read-tree", "--empty")
	} else {
		gitRun(c.t, env, c.dir, "", "read-tree", base)
	}
	for _, e := range edits {
		switch {
		case e.Delete:
			gitRun(c.t, env, c.dir, "0 "+strings.Repeat("0", 40)+"\t"+e.Path+"\n", "update-index", "--index-info")
		default:
			mode, id := e.Mode, e.ID
			if mode == "" {
				mode = "100644"
			}
			if id == "" {
				id = c.blob(e.Content)
			}
			gitRun(c.t, env, c.dir, "", "update-index", "--add", "--cacheinfo", mode+","+id+","+e.Path)
		}
	}
	return gitRun(c.t, env, c.dir, "", "write-tree")
}

// commit writes a commit of tree with msg and parents.
func (c *crafter) commit(tree, msg string, parents ...string) string {
	c.t.Helper()
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	return c.git(msg, args...)
}

// wsMessage is the message tv writes on a workspace version.
func wsMessage(reason, id, name string) string {
	return fmt.Sprintf("%s\n\n%s: workspace\n%s: %s\n%s: %s\n", reason, engine.TrailerKind, engine.TrailerID, id, engine.TrailerName, name)
}

// tplMessage is the message tv writes on a template.
func tplMessage(id, name string) string {
	return fmt.Sprintf("import\n\n%s: template\n%s: %s\n%s: %s\n", engine.TrailerKind, engine.TrailerID, id, engine.TrailerName, name)
}

// accessCommit writes an access version holding grants on top of parent.
func (c *crafter) accessCommit(parent string, grants []engine.Grant) string {
	c.t.Helper()
	b, err := json.MarshalIndent(grants, "", "  ")
	if err != nil {
		c.t.Fatal(err)
	}
	tree := c.tree("", edit{Path: engine.GrantsFile, Content: string(b) + "\n"})
	msg := "grant\n\n" + engine.TrailerKind + ": access\n"
	if parent == "" {
		return c.commit(tree, msg)
	}
	return c.commit(tree, msg, parent)
}

// seedVault makes a tv vault with the engine, as alice: workspace "demo"
// from the starter, bob with write on its stage 01 folder, mallory with
// read on it. It returns the vault's path and the workspace id.
func seedVault(t testing.TB) (string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seed.git")
	v, _, err := gitbackend.OpenOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := engine.New(v, engine.Options{Actor: &engine.Credentials{User: "alice", Email: "alice@example.com"}})
	ws, err := e.InitWorkspace(ctx, "demo", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.GrantAccess(ctx, "bob", engine.RankWrite, "demo:stages/01-research"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.GrantAccess(ctx, "mallory", engine.RankRead, "demo"); err != nil {
		t.Fatal(err)
	}
	return path, ws.ID
}

// newID returns a fresh id of kind k, shaped as the engine's.
func newID(t testing.TB, k engine.Kind) string {
	t.Helper()
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	for i := range b {
		b[i] = alphabet[b[i]&31]
	}
	id := engine.IDPrefix(k) + string(b)
	if !engine.IsID(id) {
		t.Fatalf("made a bad id %q", id)
	}
	return id
}
