package hook

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
)

// world is the state the rule cases build on: a server seeded with a tv
// vault (workspace "demo" of alice; bob writes its stage 01 folder;
// mallory reads it) and a crafter that makes commits as any pusher can.
type world struct {
	t   *testing.T
	s   *gitServer
	c   *crafter
	ws  string // demo's id
	ws2 string // a workspace a case creates, then deletes
	tpl string // a template a case creates
	// refs is the server's refs as sync last listed them (refsOf): only
	// the pushes move them, and each push is followed by a sync, so
	// head reads them here instead of asking the server again.
	refs string
}

func (w *world) wsRef() string { return engine.WorkspaceRefPrefix + w.ws }

// sync lists the server's refs again (after a push) and returns them.
func (w *world) sync() string {
	w.refs = w.s.refsOf(w.t)
	return w.refs
}

// head returns the server's value of ref as of the last sync ("" when
// absent).
func (w *world) head(ref string) string {
	for _, line := range strings.Split(w.refs, "\n") {
		// for-each-ref's lines: "<object> <type>\t<refname>".
		if obj, name, ok := strings.Cut(line, "\t"); ok && name == ref {
			return strings.Fields(obj)[0]
		}
	}
	return ""
}

// wsCommit makes a version of demo on top of its head, with edits.
func (w *world) wsCommit(reason string, edits ...edit) string {
	head := w.head(w.wsRef())
	return w.c.commit(w.c.tree(head, edits...), wsMessage(reason, w.ws, "demo"), head)
}

// rawRoot returns demo's head tree with one raw entry added at the root
// (names `git update-index` refuses: .git look-alikes).
func (w *world) rawRoot(line string) string {
	listing := w.c.git("", "ls-tree", w.head(w.wsRef()))
	return w.c.git(listing+"\n"+line+"\n", "mktree")
}

// grants returns the server's current grants.
func (w *world) grants() []engine.Grant {
	raw := gitRun(w.t, w.s.env, w.s.repo, "", "cat-file", "blob", engine.AccessRef+":"+engine.GrantsFile)
	var g []engine.Grant
	if err := json.Unmarshal([]byte(raw), &g); err != nil {
		w.t.Fatal(err)
	}
	return g
}

// ruleCase is one push and what the hook must answer: "" accepts it,
// a code refuses it with a line of that code.
type ruleCase struct {
	name string
	user string
	push func(w *world) []string // refspecs
	want Code
}

func ruleCases(heavy bool) []ruleCase {
	cases := []ruleCase{
		{"ref outside tv's namespaces", "alice", func(w *world) []string {
			return []string{w.head(w.wsRef()) + ":refs/heads/main"}
		}, CodeNotTvRef},
		{"malformed workspace id", "alice", func(w *world) []string {
			return []string{w.head(w.wsRef()) + ":refs/tv/workspaces/ws_NOT_AN_ID"}
		}, CodeRefused},
		{"the enforced marker", "alice", func(w *world) []string {
			return []string{"+" + w.head(w.wsRef()) + ":" + EnforcedRef}
		}, CodePermission},
		{"a commit without tv's trailers", "alice", func(w *world) []string {
			head := w.head(w.wsRef())
			c := w.c.commit(w.c.tree(head, edit{Path: "notes.md", Content: "x\n"}), "plain git commit\n", head)
			return []string{c + ":" + w.wsRef()}
		}, CodeRefused},
		{"a legitimate edit", "alice", func(w *world) []string {
			return []string{w.wsCommit("edit", edit{Path: "stages/01-research/references/research-rules.md", Content: "rules v2\n"}, edit{Path: "stages/01-research/references/old.md", Content: "old\n"}) + ":" + w.wsRef()}
		}, ""},
		{"a legitimate deletion", "alice", func(w *world) []string {
			return []string{w.wsCommit("tidy", edit{Path: "stages/01-research/references/old.md", Delete: true}) + ":" + w.wsRef()}
		}, ""},
		{"a version not descending from the current one", "alice", func(w *world) []string {
			head := w.head(w.wsRef())
			parent := w.c.git("", "rev-parse", head+"^")
			c := w.c.commit(w.c.tree(parent, edit{Path: "other.md", Content: "y\n"}), wsMessage("fork", w.ws, "demo"), parent)
			return []string{"+" + c + ":" + w.wsRef()}
		}, CodeConflict},
		{"a merge", "alice", func(w *world) []string {
			head := w.head(w.wsRef())
			parent := w.c.git("", "rev-parse", head+"^")
			c := w.c.commit(w.c.tree(head), wsMessage("merge", w.ws, "demo"), head, parent)
			return []string{c + ":" + w.wsRef()}
		}, CodeRefused},
		{"an ICM-invalid tree (no root CONTEXT.md)", "alice", func(w *world) []string {
			return []string{w.wsCommit("drop", edit{Path: "CONTEXT.md", Delete: true}) + ":" + w.wsRef()}
		}, CodeInvalidTree},
		{"an ICM-invalid stage contract", "alice", func(w *world) []string {
			return []string{w.wsCommit("break", edit{Path: "stages/02-draft/CONTEXT.md", Content: "# Draft\n\nno sections\n"}) + ":" + w.wsRef()}
		}, CodeInvalidTree},
		{"a .GIT folder", "alice", func(w *world) []string {
			inner := w.c.git(fmt.Sprintf("100644 blob %s\tconfig\n", w.c.blob("[core]\n")), "mktree")
			tree := w.rawRoot("040000 tree " + inner + "\t.GIT")
			head := w.head(w.wsRef())
			return []string{w.c.commit(tree, wsMessage("x", w.ws, "demo"), head) + ":" + w.wsRef()}
		}, CodeRefused},
		{"a .git look-alike (zero-width non-joiner)", "alice", func(w *world) []string {
			inner := w.c.git(fmt.Sprintf("100644 blob %s\tconfig\n", w.c.blob("[core]\n")), "mktree")
			tree := w.rawRoot("040000 tree " + inner + "\t.g\u200cit")
			head := w.head(w.wsRef())
			return []string{w.c.commit(tree, wsMessage("x", w.ws, "demo"), head) + ":" + w.wsRef()}
		}, CodeRefused},
		{"a .gitattributes folder", "alice", func(w *world) []string {
			inner := w.c.git(fmt.Sprintf("100644 blob %s\tx\n", w.c.blob("x\n")), "mktree")
			tree := w.rawRoot("040000 tree " + inner + "\t.gitattributes")
			head := w.head(w.wsRef())
			return []string{w.c.commit(tree, wsMessage("x", w.ws, "demo"), head) + ":" + w.wsRef()}
		}, CodeRefused},
		{"a symlink", "alice", func(w *world) []string {
			return []string{w.wsCommit("link", edit{Path: "link", Mode: "120000", ID: w.c.blob("/etc/passwd")}) + ":" + w.wsRef()}
		}, CodeRefused},
		{"a gitlink", "alice", func(w *world) []string {
			return []string{w.wsCommit("sub", edit{Path: "sub", Mode: "160000", ID: w.head(w.wsRef())}) + ":" + w.wsRef()}
		}, CodeRefused},
		// A folder that keeps its names is judged entry by entry, each
		// level of the path keeping its names here: the mode change deep
		// down is still seen, and a content change of a contract still
		// revalidates the tree.
		{"a file turned into a symlink in place, deep down", "alice", func(w *world) []string {
			return []string{w.wsCommit("link", edit{Path: "stages/01-research/references/research-rules.md", Mode: "120000", ID: w.c.blob("/etc/passwd")}) + ":" + w.wsRef()}
		}, CodeRefused},
		{"a file turned into a gitlink in place", "alice", func(w *world) []string {
			return []string{w.wsCommit("sub", edit{Path: "stages/01-research/references/research-rules.md", Mode: "160000", ID: w.head(w.wsRef())}) + ":" + w.wsRef()}
		}, CodeRefused},
		{"a file made executable in place", "alice", func(w *world) []string {
			return []string{w.wsCommit("chmod", edit{Path: "stages/01-research/references/research-rules.md", Mode: "100755", ID: w.c.blob("rules v3\n")}) + ":" + w.wsRef()}
		}, ""},
		{"a contract emptied in place", "alice", func(w *world) []string {
			return []string{w.wsCommit("empty", edit{Path: "stages/01-research/CONTEXT.md", Content: ""}) + ":" + w.wsRef()}
		}, CodeInvalidTree},
		{"a path deeper than MaxDepth", "alice", func(w *world) []string {
			p := strings.Repeat("d/", engine.MaxDepth) + "f.md"
			return []string{w.wsCommit("deep", edit{Path: p, Content: "deep\n"}) + ":" + w.wsRef()}
		}, CodeRefused},
		{"a path longer than MaxPathBytes", "alice", func(w *world) []string {
			p := strings.Repeat(strings.Repeat("n", 200)+"/", engine.MaxPathBytes/200+1) + "f.md"
			return []string{w.wsCommit("long", edit{Path: p, Content: "long\n"}) + ":" + w.wsRef()}
		}, CodeRefused},
		{"names equal when case is folded", "alice", func(w *world) []string {
			return []string{w.wsCommit("case", edit{Path: "Notes.md", Content: "a\n"}, edit{Path: "NOTES.md", Content: "b\n"}) + ":" + w.wsRef()}
		}, CodeRefused},
		{"write outside the pusher's folder", "bob", func(w *world) []string {
			return []string{w.wsCommit("bob edits the root", edit{Path: "CONTEXT.md", Content: "# mine\n"}) + ":" + w.wsRef()}
		}, CodePermission},
		{"write inside the pusher's folder", "bob", func(w *world) []string {
			return []string{w.wsCommit("bob's notes", edit{Path: "stages/01-research/references/bob.md", Content: "bob\n"}) + ":" + w.wsRef()}
		}, ""},
		{"a reader's edit", "mallory", func(w *world) []string {
			return []string{w.wsCommit("mallory", edit{Path: "stages/01-research/references/bob.md", Content: "mallory\n"}) + ":" + w.wsRef()}
		}, CodePermission},
		{"a new workspace without write on the vault", "mallory", func(w *world) []string {
			id := newID(w.t, engine.KindWorkspace)
			tree := w.c.git("", "rev-parse", w.head(w.wsRef())+"^{tree}")
			return []string{w.c.commit(tree, wsMessage("mine", id, "mine")) + ":" + engine.WorkspaceRefPrefix + id}
		}, CodePermission},
		{"a new workspace whose name is taken", "alice", func(w *world) []string {
			id := newID(w.t, engine.KindWorkspace)
			tree := w.c.git("", "rev-parse", w.head(w.wsRef())+"^{tree}")
			return []string{w.c.commit(tree, wsMessage("again", id, "demo")) + ":" + engine.WorkspaceRefPrefix + id}
		}, CodeConflict},
		{"a new workspace with its creator's grant", "alice", func(w *world) []string {
			w.ws2 = newID(w.t, engine.KindWorkspace)
			tree := w.c.git("", "rev-parse", w.head(w.wsRef())+"^{tree}")
			grants := append(w.grants(), engine.Grant{User: "alice", Rank: engine.RankManage, Workspace: w.ws2})
			return []string{
				w.c.commit(tree, wsMessage("scratch", w.ws2, "scratch")) + ":" + engine.WorkspaceRefPrefix + w.ws2,
				w.c.accessCommit(w.head(engine.AccessRef), grants) + ":" + engine.AccessRef,
			}
		}, ""},
		{"a deletion by a non-manager", "bob", func(w *world) []string {
			return []string{":" + engine.WorkspaceRefPrefix + w.ws2}
		}, CodePermission},
		{"a deletion of the access ref", "alice", func(w *world) []string {
			return []string{":" + engine.AccessRef}
		}, CodePermission},
		{"a deletion by a vault manager", "alice", func(w *world) []string {
			return []string{":" + engine.WorkspaceRefPrefix + w.ws2}
		}, ""},
		{"a template by a non-manager", "bob", func(w *world) []string {
			id := newID(w.t, engine.KindTemplate)
			tree := w.c.git("", "rev-parse", w.head(w.wsRef())+"^{tree}")
			return []string{w.c.commit(tree, tplMessage(id, "bobs")) + ":" + engine.TemplateRefPrefix + id}
		}, CodePermission},
		{"an ICM-invalid template", "alice", func(w *world) []string {
			id := newID(w.t, engine.KindTemplate)
			tree := w.c.tree("", edit{Path: "README.md", Content: "not a workspace\n"})
			return []string{w.c.commit(tree, tplMessage(id, "broken")) + ":" + engine.TemplateRefPrefix + id}
		}, CodeInvalidTree},
		{"a template", "alice", func(w *world) []string {
			w.tpl = newID(w.t, engine.KindTemplate)
			tree := w.c.git("", "rev-parse", w.head(w.wsRef())+"^{tree}")
			return []string{w.c.commit(tree, tplMessage(w.tpl, "starter-copy")) + ":" + engine.TemplateRefPrefix + w.tpl}
		}, ""},
		{"a template moved", "alice", func(w *world) []string {
			ref := engine.TemplateRefPrefix + w.tpl
			head := w.head(ref)
			c := w.c.commit(w.c.tree(head, edit{Path: "extra.md", Content: "z\n"}), tplMessage(w.tpl, "starter-copy"), head)
			return []string{c + ":" + ref}
		}, CodeConflict},
		{"grants changed by a non-manager", "bob", func(w *world) []string {
			grants := append(w.grants(), engine.Grant{User: "bob", Rank: engine.RankManage})
			return []string{w.c.accessCommit(w.head(engine.AccessRef), grants) + ":" + engine.AccessRef}
		}, CodePermission},
		{"grants leaving no manager", "alice", func(w *world) []string {
			var kept []engine.Grant
			for _, g := range w.grants() {
				if g.Workspace != "" {
					kept = append(kept, g)
				}
			}
			return []string{w.c.accessCommit(w.head(engine.AccessRef), kept) + ":" + engine.AccessRef}
		}, CodeConflict},
		{"grants changed by a manager", "alice", func(w *world) []string {
			grants := append(w.grants(), engine.Grant{User: "mallory", Rank: engine.RankWrite, Workspace: w.ws})
			return []string{w.c.accessCommit(w.head(engine.AccessRef), grants) + ":" + engine.AccessRef}
		}, ""},
	}
	if heavy {
		cases = append(cases, ruleCase{"a file over MaxFileBytes", "alice", func(w *world) []string {
			big := w.c.git(strings.Repeat("\x00", engine.MaxFileBytes+1), "hash-object", "-w", "--stdin")
			return []string{w.wsCommit("big", edit{Path: "big.bin", ID: big}) + ":" + w.wsRef()}
		}, CodeRefused})
	}
	return cases
}

// runRules seeds s with a tv vault pushed by alice, then runs every rule
// case: a refused push leaves the server's refs byte-identical and says
// why in a "remote: tv: <code>:" line; an accepted one moves the refs.
// Every run of the hook read the push with reader.
func runRules(t *testing.T, s *gitServer, heavy bool, reader string) {
	seed, ws := seedVault(t)
	if out, err := s.push(t, seed, "alice", "refs/tv/*:refs/tv/*"); err != nil {
		t.Fatalf("seeding the server: %v\n%s", err, out)
	}
	w := &world{t: t, s: s, c: newCrafter(t, s.env, s.repo), ws: ws}
	w.sync()
	for _, tc := range ruleCases(heavy) {
		t.Run(tc.name, func(t *testing.T) {
			w.t, w.c.t = t, t
			refspecs := tc.push(w)
			before := w.refs
			out, err := s.push(t, w.c.dir, tc.user, refspecs...)
			after := w.sync()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("push refused: %v\n%s", err, out)
				}
				if after == before {
					t.Fatalf("accepted push moved no ref\n%s", out)
				}
				return
			}
			if err == nil {
				t.Fatalf("push accepted, want %s\n%s", tc.want, out)
			}
			if !strings.Contains(out, "remote: tv: "+string(tc.want)+": ") {
				t.Errorf("no %q refusal line in:\n%s", tc.want, out)
			}
			if after != before {
				t.Errorf("refused push changed the server's refs:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
	used := readersUsed(t, s.readers)
	if len(used) < len(ruleCases(heavy)) {
		t.Errorf("the hook logged %d runs for %d pushes", len(used), len(ruleCases(heavy)))
	}
	for _, r := range used {
		if r != reader {
			t.Errorf("the hook read with %q, want %q (all runs: %v)", r, reader, used)
			break
		}
	}
}

// TestRulesHTTPBackend runs every rule through git http-backend, with the
// hook reading in-process (as it does for these small pushes) and through
// git (as it does for large ones).
func TestRulesHTTPBackend(t *testing.T) {
	t.Parallel()
	t.Run("in-process", func(t *testing.T) {
		t.Parallel()
		runRules(t, httpServer(t), !testing.Short(), "in-process")
	})
	t.Run("git", func(t *testing.T) {
		t.Parallel()
		runRules(t, httpServer(t, readWithGitEnv+"=1"), false, "git")
	})
}

func TestRulesGitolite(t *testing.T) {
	t.Parallel()
	runRules(t, gitoliteServer(t), false, "in-process")
}
