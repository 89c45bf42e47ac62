package hook

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
)

// localRepo is a bare repository the hook judges in-process; objects are
// written straight into it (a quarantine is exercised by the server tests).
type localRepo struct {
	t   *testing.T
	dir string
	env []string
}

func newLocalRepo(t *testing.T) *localRepo {
	env := testEnv(t, t.TempDir())
	dir := filepath.Join(t.TempDir(), "vault.git")
	if _, _, err := gitbackend.OpenOrCreate(dir); err != nil { // a bare repository, as tv makes vaults
		t.Fatal(err)
	}
	return &localRepo{t: t, dir: dir, env: env}
}

func (r *localRepo) git(stdin string, args ...string) string {
	r.t.Helper()
	return gitRun(r.t, r.env, r.dir, stdin, args...)
}

// judge runs the hook on one ref creation by alice in an open vault and
// returns its refusal lines.
func (r *localRepo) judge(ref, commit string) (string, error) {
	var stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "REMOTE_USER" {
			return "alice"
		}
		return ""
	}
	in := fmt.Sprintf("%s %s %s\n", engine.ZeroHash, commit, ref)
	err := PreReceive(context.Background(), strings.NewReader(in), Options{GitDir: r.dir, Getenv: getenv, Env: r.env, Stderr: &stderr})
	return stderr.String(), err
}

// TestHostileObjects pushes trees built to hurt — over the tree size limit,
// 10,000 folders deep, a .git look-alike, a gitlink, a symlink — and wants
// each refused with its code, within the hook's Timeout, without a crash.
func TestHostileObjects(t *testing.T) {
	t.Parallel()
	r := newLocalRepo(t)
	blob := r.git("x\n", "hash-object", "-w", "--stdin")
	zwnj := ".g\u200cit"
	cases := []struct {
		name string
		tree func(t *testing.T) string
		want string // a fragment of the refusal line
	}{
		{"a tree over MaxTreeBytes", func(t *testing.T) string {
			var raw bytes.Buffer
			id, _ := hex.DecodeString(blob)
			for i := 0; raw.Len() <= MaxTreeBytes; i++ {
				fmt.Fprintf(&raw, "100644 %s%09d\x00", strings.Repeat("n", 40), i)
				raw.Write(id)
			}
			return r.git(raw.String(), "hash-object", "-t", "tree", "-w", "--stdin")
		}, "over the 8388608-byte limit"},
		{"a tree 10,000 folders deep", func(t *testing.T) string {
			v, _, err := gitbackend.OpenOrCreate(r.dir)
			if err != nil {
				t.Fatal(err)
			}
			w, err := v.NewObjectWriter(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			id, err := engine.ParseHash(blob)
			if err != nil {
				t.Fatal(err)
			}
			entry := engine.TreeEntry{Name: "f", Mode: engine.ModeFile, ID: id}
			for range 10_000 {
				tree, err := w.WriteTree([]engine.TreeEntry{entry})
				if err != nil {
					t.Fatal(err)
				}
				entry = engine.TreeEntry{Name: "d", Mode: engine.ModeDir, ID: tree}
			}
			if err := w.Finish(); err != nil {
				t.Fatal(err)
			}
			return entry.ID.String()
		}, "deeper than 64 levels"},
		{"a .git look-alike with a zero-width non-joiner", func(t *testing.T) string {
			if engine.CheckPath(zwnj+"/config") == nil {
				t.Skipf("engine.CheckPath does not refuse %q yet (issue 15 strengthens it; the hook calls it)", zwnj)
			}
			inner := r.git(fmt.Sprintf("100644 blob %s\tconfig\n", blob), "mktree")
			return r.git(fmt.Sprintf("040000 tree %s\t%s\n", inner, zwnj), "mktree")
		}, "input-refused"},
		{"a gitlink", func(t *testing.T) string {
			empty := r.git("", "hash-object", "-t", "tree", "-w", "--stdin")
			sub := r.git("sub\n", "commit-tree", empty)
			return r.git(fmt.Sprintf("160000 commit %s\tvendor\n", sub), "mktree")
		}, "is a gitlink"},
		{"a symlink", func(t *testing.T) string {
			target := r.git("../../etc/passwd", "hash-object", "-w", "--stdin")
			return r.git(fmt.Sprintf("120000 blob %s\tpasswd\n", target), "mktree")
		}, "is a symlink"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r.t = t
			id := newID(t, engine.KindWorkspace)
			commit := r.git(wsMessage("hostile", id, "hostile"), "commit-tree", tc.tree(t))
			out, err := r.judge(engine.WorkspaceRefPrefix+id, commit)
			if !errors.Is(err, ErrPushRefused) {
				t.Fatalf("not refused: %v\n%s", err, out)
			}
			if !strings.Contains(out, tc.want) || strings.Contains(out, "took longer than") {
				t.Fatalf("want a refusal saying %q within %s, got:\n%s", tc.want, Timeout, out)
			}
			if n := strings.Count(out, "\n"); n > MaxRefusalLines+1 {
				t.Fatalf("%d refusal lines, over MaxRefusalLines", n)
			}
		})
	}
}

// FuzzParseCommands feeds arbitrary hook input: it never panics, and what
// it accepts is a well-formed list of ref updates.
func FuzzParseCommands(f *testing.F) {
	zero, one := engine.ZeroHash.String(), strings.Repeat("a", 40)
	for _, s := range []string{
		zero + " " + one + " refs/tv/workspaces/ws_aaaaaaaaaaaaaaaaaaaa\n",
		one + " " + zero + " refs/heads/main\n" + one + " " + one + " refs/tv/access",
		"", "\n", zero + " " + zero + " refs/x\n", one + " " + one + " refs/a\x00b\n",
		strings.Repeat("x", MaxLineBytes+2),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		cmds, err := ParseCommands(strings.NewReader(in))
		if err != nil {
			if cmds != nil {
				t.Fatalf("error %v with %d commands", err, len(cmds))
			}
			return
		}
		if len(cmds) > MaxCommands {
			t.Fatalf("%d commands, over MaxCommands", len(cmds))
		}
		for _, c := range cmds {
			if !strings.HasPrefix(c.Ref, "refs/") || (c.Old.IsZero() && c.New.IsZero()) || strings.ContainsAny(c.Ref, " \n\x00") {
				t.Fatalf("accepted a bad command %+v", c)
			}
			kind, _ := classifyRef(c.Ref)
			_ = kind
		}
	})
}

// FuzzPreReceive runs the whole hook on fuzzed stdin against a seeded
// vault (workspace demo, its head and parent, the access ref and other
// ids as seeds): it never panics, accepts only well-formed input, and
// answers within its Timeout (a refusal, an acceptance, or an error it
// reports) — never "took longer than".
func FuzzPreReceive(f *testing.F) {
	path, ws := seedVault(f)
	env := testEnv(f, f.TempDir())
	v, err := gitbackend.Open(path)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	ref := engine.WorkspaceRefPrefix + ws
	head, err := v.Ref(ctx, ref)
	if err != nil {
		f.Fatal(err)
	}
	c, err := v.ReadCommit(ctx, head)
	if err != nil {
		f.Fatal(err)
	}
	access, err := v.Ref(ctx, engine.AccessRef)
	if err != nil {
		f.Fatal(err)
	}
	zero := engine.ZeroHash.String()
	for _, s := range []string{
		fmt.Sprintf("%s %s %s\n", head, head, ref),                             // a verify step
		fmt.Sprintf("%s %s %s\n", zero, head, engine.WorkspaceRefPrefix+"ws_"), // malformed id
		fmt.Sprintf("%s %s %s\n", head, c.Tree, ref),                           // a tree as a commit
		fmt.Sprintf("%s %s %s\n", head, access, ref),                           // another kind of commit
		fmt.Sprintf("%s %s %s\n", access, zero, engine.AccessRef),              // the access ref deleted
		fmt.Sprintf("%s %s refs/heads/main\n%s %s %s\n", zero, head, head, zero, ref),
		fmt.Sprintf("%s %s %s", zero, head, ref+"\x00"),
		"\n\n", strings.Repeat("x", MaxLineBytes+2),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var stderr bytes.Buffer
		getenv := func(k string) string {
			if k == "REMOTE_USER" {
				return "bob"
			}
			return ""
		}
		err := PreReceive(context.Background(), strings.NewReader(in), Options{GitDir: path, Getenv: getenv, Env: env, Stderr: &stderr})
		out := stderr.String()
		if strings.Contains(out, "took longer than") {
			t.Fatalf("not answered within %s:\n%s", Timeout, out)
		}
		if err == nil && out != "" {
			t.Fatalf("accepted, yet printed:\n%s", out)
		}
		if errors.Is(err, ErrPushRefused) && !strings.HasPrefix(out, "tv: ") {
			t.Fatalf("refused without a refusal line:\n%s", out)
		}
		if err == nil {
			if _, perr := ParseCommands(strings.NewReader(in)); perr != nil {
				t.Fatalf("accepted malformed input: %v", perr)
			}
		}
	})
}
