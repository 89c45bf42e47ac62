package gitbackend

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/internal/testparallel"
)

// The test binary re-executes itself as a helper process when helperEnv is
// set: the interop, crash and concurrent-create tests need real processes.
const helperEnv = "TV_GITBACKEND_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	d, err := os.MkdirTemp("", "gitbackend-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testHome = d
	testparallel.Default() // the parallel tests wait on git and helper processes
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

func runHelper(mode string) int {
	ctx := context.Background()
	path := os.Getenv("TV_HELPER_VAULT")
	switch mode {
	case "create":
		v, created, err := OpenOrCreate(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(v.ID(), created)
		return 0
	case "cas":
		return helperCAS(ctx, path)
	case "txloop":
		return helperTxLoop(ctx, path)
	case "packloop":
		return helperPackLoop(ctx, path)
	case "batchloop":
		return helperBatchLoop(ctx, path)
	case "readloop":
		return helperReadLoop(ctx, path)
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 2
}

// helperCAS makes attempts compare-and-swap increments of one ref and
// prints how many succeeded.
func helperCAS(ctx context.Context, path string) int {
	v, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ref := os.Getenv("TV_HELPER_REF")
	attempts, _ := strconv.Atoi(os.Getenv("TV_HELPER_ATTEMPTS"))
	tree, _ := engine.ParseHash(os.Getenv("TV_HELPER_TREE"))
	worker := os.Getenv("TV_HELPER_WORKER")
	ok := 0
	for i := range attempts {
		cur, err := v.Ref(ctx, ref)
		if err != nil {
			fmt.Fprintln(os.Stderr, "read:", err)
			return 1
		}
		id, err := writeTestCommit(ctx, v, tree, fmt.Sprintf("worker %s attempt %d\n", worker, i), cur)
		if err != nil {
			fmt.Fprintln(os.Stderr, "commit:", err)
			return 1
		}
		err = v.UpdateRefs(ctx, engine.RefUpdate{Name: ref, Old: cur, New: id})
		switch {
		case err == nil:
			ok++
		case errors.Is(err, engine.ErrRefStale), errors.Is(err, engine.ErrRefLocked):
		default:
			fmt.Fprintln(os.Stderr, "update:", err)
			return 1
		}
	}
	fmt.Println(ok)
	return 0
}

// helperTxLoop updates two refs together, forever, until killed.
func helperTxLoop(ctx context.Context, path string) int {
	v, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tree, _ := engine.ParseHash(os.Getenv("TV_HELPER_TREE"))
	refs := []string{"refs/tv/workspaces/ws_a", "refs/tv/workspaces/ws_b"}
	fmt.Println("ready")
	for i := 0; ; i++ {
		var ups []engine.RefUpdate
		for _, r := range refs {
			cur, err := v.Ref(ctx, r)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			id, err := writeTestCommit(ctx, v, tree, fmt.Sprintf("%s %d\n", r, i), cur)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			ups = append(ups, engine.RefUpdate{Name: r, Old: cur, New: id})
		}
		if err := v.UpdateRefs(ctx, ups...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
}

// helperPackLoop writes batches of blobs, forever, until killed.
func helperPackLoop(ctx context.Context, path string) int {
	v, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(time.Now().UnixNano()))
	rng := rand.NewChaCha8(seed)
	fmt.Println("ready")
	for {
		w, err := v.NewObjectWriter(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for range 4 {
			size := int64(rng.Uint64() % (64 << 10))
			if _, err := w.WriteBlob(io.LimitReader(rng, size), size); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		if err := w.Finish(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
}

// writeTestCommit writes one commit on tree with the given parent (zero: none).
func writeTestCommit(ctx context.Context, v *Vault, tree engine.Hash, msg string, parent engine.Hash) (engine.Hash, error) {
	w, err := v.NewObjectWriter(ctx)
	if err != nil {
		return engine.ZeroHash, err
	}
	c := &engine.Commit{Tree: tree, Author: testSig, Committer: testSig, Message: msg}
	if !parent.IsZero() {
		c.Parents = []engine.Hash{parent}
	}
	id, err := w.WriteCommit(c)
	if err != nil {
		w.Abort()
		return engine.ZeroHash, err
	}
	return id, w.Finish()
}

var testSig = engine.Signature{
	Name:  "Tess Tester",
	Email: "tess@example.com",
	When:  time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("", 2*3600)),
}

// emptyTreeID is git's well-known empty tree.
const emptyTreeID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

func requireGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH; these tests check interoperability with real git")
	}
}

// gitEnv is a pinned environment for git commands and helper processes.
func gitEnv(home string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TV_") || strings.HasPrefix(kv, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Git Tester", "GIT_AUTHOR_EMAIL=git@example.com", "GIT_AUTHOR_DATE=1700000000 +0100",
		"GIT_COMMITTER_NAME=Git Tester", "GIT_COMMITTER_EMAIL=git@example.com", "GIT_COMMITTER_DATE=1700000000 +0100",
	)
}

// testHome is HOME for git and helper processes, set up by TestMain.
var testHome string

func homeDir(testing.TB) string { return testHome }

// git runs git with the vault as GIT_DIR and returns trimmed stdout.
func git(t testing.TB, gitDir string, stdin string, args ...string) string {
	t.Helper()
	out, err := gitErr(t, gitDir, stdin, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func gitErr(t testing.TB, gitDir string, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir}, args...)...)
	cmd.Env = gitEnv(homeDir(t))
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w\n%s", err, stderr.String())
	}
	return strings.TrimRight(stdout.String(), "\n"), nil
}

// gitRaw runs git and returns stdout untrimmed.
func gitRaw(t testing.TB, gitDir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir}, args...)...)
	cmd.Env = gitEnv(homeDir(t))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// fsckClean fails unless `git fsck --strict` accepts the vault.
func fsckClean(t testing.TB, gitDir string) {
	t.Helper()
	cmd := exec.Command("git", "--git-dir="+gitDir, "fsck", "--strict", "--no-dangling", "--no-progress")
	cmd.Env = gitEnv(homeDir(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "error") || strings.Contains(line, "missing") || strings.Contains(line, "broken") || strings.Contains(line, "corrupt") {
			t.Fatalf("git fsck --strict reported a problem:\n%s", out)
		}
	}
}

func newDiskVault(t testing.TB) *Vault {
	t.Helper()
	requireGit(t)
	v, created, err := OpenOrCreate(filepath.Join(t.TempDir(), "vault.git"))
	if err != nil {
		t.Fatal(err)
	}
	if !created {
		t.Fatal("OpenOrCreate on a fresh path did not report created")
	}
	return v
}

// vaultKinds is every backend the shared suites run against.
var vaultKinds = []struct {
	name string
	new  func(t testing.TB) *Vault
}{
	{"disk", newDiskVault},
	{"memory", func(testing.TB) *Vault { return NewMemory() }},
}

// mustTree writes the empty tree and returns its id.
func mustEmptyTree(t testing.TB, v *Vault) engine.Hash {
	t.Helper()
	w, err := v.NewObjectWriter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.WriteTree(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if id.String() != emptyTreeID {
		t.Fatalf("empty tree id %s, want %s", id, emptyTreeID)
	}
	return id
}

func mustCommit(t testing.TB, v *Vault, msg string, parent engine.Hash) engine.Hash {
	t.Helper()
	tree := mustEmptyTree(t, v)
	id, err := writeTestCommit(context.Background(), v, tree, msg, parent)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// packFiles lists objects/pack entries matching pattern.
func packFiles(t testing.TB, v *Vault, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(v.Path(), "objects", "pack", pattern))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// helperCmd returns a command re-running the test binary as helper mode.
func helperCmd(t testing.TB, mode string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(gitEnv(homeDir(t)), append([]string{helperEnv + "=" + mode}, env...)...)
	return cmd
}

func readAllClose(t testing.TB, rc io.ReadCloser) []byte {
	t.Helper()
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
