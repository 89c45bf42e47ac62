package ignore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func newTestMatcher(t *testing.T, tr tree, opts Options) *Matcher {
	t.Helper()
	dir := tr.build(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	m, err := NewMatcher(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type query struct {
	path  string
	dir   bool
	want  bool
	cause string
}

func check(t *testing.T, m *Matcher, qs []query) {
	t.Helper()
	for _, q := range qs {
		if got := m.Ignored(q.path, q.dir); got != q.want {
			t.Errorf("Ignored(%q, dir=%v) = %v, want %v (%s)", q.path, q.dir, got, q.want, q.cause)
		}
	}
}

func TestDefaults(t *testing.T) {
	tr := tree{files: map[string]string{
		".gitignore": gi("!*/", "!node_modules", "!dist"),
		"src/a.go":   "",
	}}
	m := newTestMatcher(t, tr, Options{Defaults: true, GitIgnore: true, Extra: []string{"!build", "!target/"}})
	check(t, m, []query{
		{".git", true, true, "default"},
		{".git/config", false, true, "below a default"},
		{"sub/.git", false, true, "a .git file of a worktree"},
		{"node_modules", true, true, "negation in .gitignore does not beat defaults"},
		{"a/b/node_modules/x/y.js", false, true, "at any depth, asked directly"},
		{"bazel-out", true, true, "glob default"},
		{"bazel-tv/k8-fastbuild/bin", true, true, "below a glob default"},
		{"bazel", true, false, "bazel-* needs the dash"},
		{"dist", true, true, "Extra negation does not beat defaults"},
		{"build", false, true, "a file named build too (no trailing slash)"},
		{"target/debug", true, true, "below"},
		{".cache/x", false, true, ""},
		{".next", true, true, ""},
		{"src/a.go", false, false, ""},
		{"distx", false, false, ""},
		{"", true, false, "the root"},
		{".", true, false, "the root"},
	})
	off := newTestMatcher(t, tr, Options{})
	check(t, off, []query{
		{".git", true, false, "defaults off"},
		{"node_modules/x", false, false, "defaults off"},
	})
}

func TestExtra(t *testing.T) {
	tr := tree{
		exclude: gi("*.bak"),
		files: map[string]string{
			".gitignore":     gi("*.log", "out/"),
			"sub/.gitignore": gi("!keep.log"),
		},
	}
	m := newTestMatcher(t, tr, Options{GitIgnore: true, Extra: []string{"*.tmp", "!important.log", "!out/x", "sub/keep.log", "!z.bak"}})
	check(t, m, []query{
		{"a.tmp", false, true, "extra pattern"},
		{"d/e/a.tmp", false, true, "extra at depth"},
		{"a.log", false, true, "gitignore"},
		{"important.log", false, false, "extra negation beats .gitignore"},
		{"sub/keep.log", false, true, "extra beats a deeper .gitignore"},
		{"sub/other/keep.log", false, false, "nested negation"},
		{"out/x", false, true, "extra cannot re-include below an excluded directory"},
		{"y.bak", false, true, "info/exclude"},
		{"z.bak", false, false, "extra beats info/exclude"},
	})
	// Extra alone, without .gitignore handling.
	m2 := newTestMatcher(t, tr, Options{Extra: []string{"*.log"}})
	check(t, m2, []query{
		{"a.log", false, true, "extra"},
		{"a.bak", false, false, "info/exclude off"},
		{"sub/keep.log", false, true, "no .gitignore negation when GitIgnore is off"},
	})
}

func TestExtraValidation(t *testing.T) {
	tooMany := make([]string, MaxExtraPatterns+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("p%d", i)
	}
	bad := []struct {
		name  string
		extra []string
		msg   string
	}{
		{"too many", tooMany, "at most"},
		{"too long", []string{strings.Repeat("a", MaxPatternBytes+1)}, "longer than"},
		{"nul", []string{"a\x00b"}, "NUL"},
		{"newline", []string{"a\nb"}, "newline"},
		{"cr", []string{"a\r"}, "carriage"},
		{"invalid utf8", []string{"a\xffb"}, "UTF-8"},
		{"empty", []string{""}, "empty"},
		{"spaces only", []string{"   "}, "empty"},
		{"bang only", []string{"!"}, "empty"},
		{"comment", []string{"#x"}, "comment"},
		{"trailing backslash", []string{`abc\`}, "backslash"},
		{"unclosed bracket", []string{"a[bc"}, "unclosed"},
		{"unclosed negated bracket", []string{"[!]"}, "unclosed"},
		{"unknown class", []string{"[[:word:]]"}, "unknown character class"},
		{"dot prefix", []string{"./build"}, "can never match"},
		{"dot dot", []string{"a/../b"}, "can never match"},
		{"double slash", []string{"a//b"}, "can never match"},
		{"negated dot prefix", []string{"!./x"}, "can never match"},
		{"slash only", []string{"/"}, "can never match"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewMatcher(nil, Options{Extra: tc.extra})
			if !errors.Is(err, ErrBadPattern) {
				t.Fatalf("err = %v, want ErrBadPattern", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not mention %q", err, tc.msg)
			}
		})
	}
	good := []string{`\#x`, `\!x`, "[]]", "[!]]x", "[[:alpha:]]", `a\\`, `a\ `, "**/x/**", "[[:foo]", `a\[`, strings.Repeat("a", MaxPatternBytes)}
	for _, g := range good {
		if _, err := NewMatcher(nil, Options{Extra: []string{g}}); err != nil {
			t.Errorf("NewMatcher(Extra: %q) = %v, want no error", g, err)
		}
	}
	if _, err := NewMatcher(nil, Options{Extra: make([]string, 0, MaxExtraPatterns)}); err != nil {
		t.Error(err)
	}
}

func TestParentExcludedAskedDirectly(t *testing.T) {
	tr := tree{files: map[string]string{
		".gitignore":   gi("gen/", "!gen/keep.go", "/vendor"),
		"a/.gitignore": gi("!x"),
	}}
	m := newTestMatcher(t, tr, Options{GitIgnore: true})
	// Fresh matchers: no parent was asked about first.
	for _, q := range []query{
		{"gen/keep.go", false, true, "parent dir excluded"},
		{"gen/deep/er/file", false, true, "grandparent excluded"},
		{"vendor/x/y", true, true, "anchored dir excluded"},
		{"a/vendor/y", false, false, "anchored only at root"},
	} {
		m := newTestMatcher(t, tr, Options{GitIgnore: true})
		check(t, m, []query{q})
	}
	check(t, m, []query{{"gen", true, true, ""}, {"gen", false, false, "a file named gen is not matched by gen/"}})
}

func TestPathForms(t *testing.T) {
	m, err := NewMatcher(nil, Options{Extra: []string{"/top", "x/"}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, m, []query{
		{"top", false, true, ""},
		{"./top", false, true, "leading ./"},
		{"/top", false, true, "leading /"},
		{"top/", true, true, "trailing /"},
		{"a/../top", false, true, "cleaned"},
		{"a//x/b", false, true, "double slash"},
	})
}

func TestSymlinks(t *testing.T) {
	tr := tree{files: map[string]string{
		"real/.gitignore": gi("*.a"),
		"real/x.a":        "",
		"rules":           gi("*.b"),
		"big/.gitignore":  gi("*.c") + strings.Repeat("#\n", MaxIgnoreFileBytes/2),
	}}
	dir := tr.build(t)
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink("../rules", filepath.Join(dir, "real", "sub")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "s"), 0o755)
	if err := os.Symlink("../rules", filepath.Join(dir, "s", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m, err := NewMatcher(root, Options{GitIgnore: true})
	if err != nil {
		t.Fatal(err)
	}
	check(t, m, []query{
		{"real/x.a", false, true, "real .gitignore"},
		{"link/x.a", false, false, "a .gitignore reached through a symlinked directory is not read"},
		{"s/y.b", false, false, "a .gitignore that is a symlink is skipped"},
		{"big/z.c", false, false, "a .gitignore over MaxIgnoreFileBytes is skipped"},
	})
}

func TestConcurrentUse(t *testing.T) {
	files := map[string]string{".gitignore": gi("*.o", "!keep.o")}
	for i := range 20 {
		files[fmt.Sprintf("d%d/.gitignore", i)] = gi(fmt.Sprintf("f%d", i))
	}
	m := newTestMatcher(t, tree{files: files}, Options{GitIgnore: true, Defaults: true})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				d := (i + g) % 20
				p := fmt.Sprintf("d%d/e/f%d", d, d)
				if !m.Ignored(p, false) {
					t.Errorf("%s not ignored", p)
				}
				if m.Ignored(fmt.Sprintf("d%d/keep.o", d), false) {
					t.Errorf("keep.o ignored")
				}
				if !m.Ignored(fmt.Sprintf("d%d/node_modules/x", d), false) {
					t.Errorf("node_modules not ignored")
				}
			}
		}()
	}
	wg.Wait()
}

// TestUseListings: a Matcher reads a folder's .gitignore only where the
// lister set by UseListings says the folder holds one (a scan that
// listed the folder knows), and asks about each folder it matches in.
func TestUseListings(t *testing.T) {
	tr := tree{files: map[string]string{
		"a/.gitignore": "x\n",
		"a/x":          "",
		"b/.gitignore": "y\n",
		"b/y":          "",
	}}
	m := newTestMatcher(t, tr, Options{GitIgnore: true})
	var mu sync.Mutex
	asked := map[string]bool{}
	m.UseListings(func(dir string) bool {
		mu.Lock()
		asked[dir] = true
		mu.Unlock()
		return dir != "b" // b's .gitignore goes unread: the listing "lacks" it
	})
	check(t, m, []query{
		{"a/x", false, true, "a/.gitignore, which the listing reports"},
		{"b/y", false, false, "b/.gitignore, which the listing says is absent, is not read"},
	})
	for _, dir := range []string{"", "a", "b"} {
		if !asked[dir] {
			t.Errorf("the matcher did not ask the listing about %q (asked %v)", dir, asked)
		}
	}
}
