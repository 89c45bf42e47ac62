package engine_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/starter"
)

// fsckRefuses builds, with stock git in a fresh bare repository, a commit
// whose root tree holds name as a file (with content) or as a folder
// holding one file, and reports whether `git fsck --strict` refuses it.
// One `git fast-import` writes the blob, the tree(s), the commit and the
// branch (the objects and ref that hash-object, mktree, commit-tree and
// update-ref wrote before, in one process instead of four or five; the
// repository has no template files, which nothing here reads).
func fsckRefuses(t *testing.T, name, content string, folder bool) bool {
	t.Helper()
	dir := t.TempDir()
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	git := func(stdin string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("", "init", "-q", "--bare", "--template=", ".")
	path := name
	if folder {
		path += "/x"
	}
	// fast-import reads an unquoted path to the end of its line: no name
	// of the table starts with a quote or holds a newline.
	if strings.HasPrefix(path, `"`) || strings.Contains(path, "\n") {
		t.Fatalf("name %q cannot be written unquoted in a fast-import stream", name)
	}
	const who = "t <t@example.com> 1767323045 +0000"
	git(fmt.Sprintf("blob\nmark :1\ndata %d\n%s\n"+
		"commit refs/heads/main\ncommitter %s\ndata 4\ncase\n"+
		"M 100644 :1 %s\n\n", len(content), content, who, path),
		"fast-import", "--quiet")
	// The commit is the one meant, byte for byte: its id, computed here
	// from the name and content, is the branch's (a path fast-import
	// read otherwise, a trimmed space, would be another tree).
	blob := objectID("blob", content)
	root := objectID("tree", treeEntry("100644", name, blob))
	if folder {
		root = objectID("tree", treeEntry("40000", name, objectID("tree", treeEntry("100644", "x", blob))))
	}
	want := objectID("commit", "tree "+root+"\nauthor "+who+"\ncommitter "+who+"\n\ncase")
	if got, err := os.ReadFile(filepath.Join(dir, "refs", "heads", "main")); err != nil || strings.TrimSpace(string(got)) != want {
		t.Fatalf("fast-import made commit %q (%v), want %s for %q", got, err, want, path)
	}
	cmd := exec.Command("git", "fsck", "--strict", "--no-dangling")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("git fsck: %v", err)
	}
	t.Logf("fsck %q folder=%v: %v %s", name, folder, err, out)
	return err != nil
}

// objectID is the id git gives an object of kind with body.
func objectID(kind, body string) string {
	sum := sha1.Sum([]byte(fmt.Sprintf("%s %d\x00%s", kind, len(body), body)))
	return hex.EncodeToString(sum[:])
}

// treeEntry is one entry of a tree object: mode, name and raw id.
func treeEntry(mode, name, id string) string {
	raw, _ := hex.DecodeString(id)
	return mode + " " + name + "\x00" + string(raw)
}

// TestNamesAgreeWithGitFsck: every name stock `git fsck --strict` refuses
// as a file or as a folder, engine.CheckPath refuses too; where tv is
// stricter than fsck, the case says why.
func TestNamesAgreeWithGitFsck(t *testing.T) {
	t.Parallel()
	gitOK(t)
	badModules := "[submodule \"x\"]\n\tpath = x\n\turl = -upload-pack=evil\n"
	for _, tc := range []struct {
		name, content string
		fsckFile      bool // fsck --strict refuses name as a file
		fsckFolder    bool // ... and as a folder
		stricter      string
	}{
		{name: "plain.md", content: "x\n"},
		{name: ".gitignore", content: "*.tmp\n"},
		{name: ".mailmap", content: "x\n"},
		{name: "git~2", content: "x\n"},
		{name: "gitmod~5", content: "x\n"},
		{name: "con", content: "x\n"},
		{name: "caf\u00e9.md", content: "x\n"},
		{name: strings.Repeat("n", 255), content: "x\n"},
		{name: ".git", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".GIT", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".g\u200cit", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".\u200dgit", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".gi\u202et", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".git\ufeff", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".git.", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".GIT ", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".git . .", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".git:x", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".git::$INDEX_ALLOCATION", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: "git~1", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: "GIT~1. ", content: "x\n", fsckFile: true, fsckFolder: true},
		{name: ".gitmodules", content: badModules, fsckFile: true, fsckFolder: true},
		{name: ".gitmodules", content: "", fsckFolder: true, stricter: "tv stores no submodules: every .gitmodules look-alike is refused"},
		{name: ".GitModules.", content: badModules, fsckFile: true, fsckFolder: true},
		{name: ".gitmod\u200cules", content: badModules, fsckFile: true, fsckFolder: true},
		{name: "GITMOD~1", content: badModules, fsckFile: true, fsckFolder: true},
		{name: "gitmod~4 ", content: badModules, fsckFile: true, fsckFolder: true},
		{name: "gi7eba~9", content: badModules, fsckFile: true, fsckFolder: true},
		{name: ".gitattributes", content: "*.md text\n", fsckFolder: true},
		{name: ".gitattributes ", content: "*.md text\n", fsckFolder: true, stricter: "a trailing space is refused"},
		{name: "gi7d29~1", content: "*.md text\n", fsckFolder: true},
		{name: "gitatt~2", content: "*.md text\n", fsckFolder: true},
		{name: "notes.", content: "x\n", stricter: "Windows drops a trailing dot"},
		{name: "notes ", content: "x\n", stricter: "Windows drops a trailing space"},
		{name: strings.Repeat("n", 256), content: "x\n", stricter: "over MaxComponentBytes: no checkout could write it"},
	} {
		for _, folder := range []bool{false, true} {
			kind, want, p := "file", tc.fsckFile, tc.name
			if folder {
				kind, want, p = "folder", tc.fsckFolder, tc.name+"/x"
			}
			t.Run(kind+" "+strings.ToValidUTF8(tc.name[:min(len(tc.name), 40)], "?"), func(t *testing.T) {
				t.Parallel()
				if got := fsckRefuses(t, tc.name, tc.content, folder); got != want {
					t.Fatalf("git fsck --strict refuses=%v, the table says %v (git %s)", got, want, gitVersion(t))
				}
				err := engine.CheckPath(p)
				if err != nil && !errors.Is(err, engine.ErrRefused) {
					t.Fatalf("CheckPath(%q) = %v; want ErrRefused", p, err)
				}
				tvRefuses := err != nil
				switch {
				case want && !tvRefuses:
					t.Fatalf("git fsck --strict refuses %q but CheckPath accepts it", p)
				case !want && tvRefuses && tc.stricter == "":
					t.Fatalf("CheckPath(%q) = %v; git fsck --strict accepts it and the case gives no reason to be stricter", p, err)
				case !want && !tvRefuses && tc.stricter != "":
					t.Fatalf("CheckPath(%q) accepted; want refused (%s)", p, tc.stricter)
				}
				if nameErr := engine.CheckName(tc.name, folder); (nameErr != nil) != tvRefuses {
					t.Fatalf("CheckName(%q, %v) = %v disagrees with CheckPath(%q) = %v", tc.name, folder, nameErr, p, err)
				}
			})
		}
	}
}

func gitVersion(t *testing.T) string {
	out, _ := exec.Command("git", "--version").Output()
	return strings.TrimSpace(string(out))
}

// TestNameRulesAtImportAndCommit: the look-alikes, long components and
// Unicode collisions are refused by a folder import, a zip import and a
// commit (walk-test finding), and nothing reaches the vault.
func TestNameRulesAtImportAndCommit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		files []string
		match string
	}{
		{"zero-width .git", []string{".g\u200cit/config"}, "'.git'"},
		{"NTFS short name", []string{"stages/git~1/HEAD"}, "'.git'"},
		{"trailing dot .git", []string{"a/.GIT./x.md"}, "'.git'"},
		{"gitmodules short name", []string{"GITMOD~1"}, ".gitmodules"},
		{"gitattributes folder", []string{".gitattributes/x"}, ".gitattributes"},
		{"trailing space", []string{"notes /a.md"}, "dot or a space"},
		{"300-byte component", []string{strings.Repeat("x", 300) + ".md"}, "MaxComponentBytes"},
		{"café NFC and NFD", []string{"caf\u00e9.txt", "cafe\u0301.txt"}, "case is folded"},
		{"long s", []string{"\u017f.txt", "s.txt"}, "case is folded"},
		{"sharp s full folding", []string{"Stra\u00dfe.md", "STRASSE.md"}, "case is folded"},
		{"Kelvin sign", []string{"\u212a.md", "k.md"}, "case is folded"},
		{"collision through a folder", []string{"Caf\u00e9/a.md", "cafe\u0301/b.md"}, "case is folded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var entries []zipEntry
			for _, f := range tc.files {
				entries = append(entries, zipEntry{name: f, data: []byte("x\n")})
			}
			expectRefused(t, withStarter(t, entries...), tc.match)
			if strings.Contains(tc.name, "300-byte") {
				return // no Linux file system holds such a name: only a zip can
			}
			dir := t.TempDir()
			if err := os.CopyFS(dir, starter.FS()); err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.files {
				write(t, filepath.Join(dir, f), "x\n")
			}
			expectRefused(t, dir, tc.match)

			e := newEngine(backends()[0].open(t), alice)
			co := setup(t, e, 1)[0]
			for _, f := range tc.files {
				write(t, filepath.Join(co, f), "x\n")
			}
			p := must[*engine.Plan](t)(e.WalkTest(ctx, co))
			found := false
			for _, f := range p.Findings {
				found = found || (f.Rule == engine.RulePathRules && strings.Contains(f.Message, tc.match))
			}
			if p.Valid || !found {
				t.Fatalf("walk-test valid=%v findings=%v; want a %s finding mentioning %q", p.Valid, p.Findings, engine.RulePathRules, tc.match)
			}
			if _, err := e.Commit(ctx, co, "look-alike"); !errors.Is(err, engine.ErrInvalidTree) {
				t.Fatalf("commit: %v; want ErrInvalidTree", err)
			}
			for _, f := range tc.files {
				if _, ok := headFile(t, e, f); ok {
					t.Fatalf("%q reached the vault", f)
				}
			}
		})
	}
}
