package ignore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// tree describes a generated directory: files (path -> content; a path
// ending in "/" is an empty directory) and the .git/info/exclude content.
type tree struct {
	files   map[string]string
	exclude string
}

// build writes t into a fresh git repository and returns its path.
func (tr tree) build(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	// A minimal repository (what `git init` makes, minus hooks and
	// templates), written directly to save a process per tree.
	for _, d := range []string{".git/objects", ".git/refs/heads", ".git/info"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".git/config"), []byte("[core]\n\trepositoryformatversion = 0\n\tbare = false\n"), 0o644)
	if err := os.WriteFile(filepath.Join(dir, ".git/info/exclude"), []byte(tr.exclude), 0o644); err != nil {
		t.Fatal(err)
	}
	for p, content := range tr.files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// paths lists every file and directory of the built tree except .git,
// each with whether it is a directory.
func listPaths(t testing.TB, dir string) (paths []string, isDir map[string]bool) {
	t.Helper()
	isDir = map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if rel == ".git" {
			return filepath.SkipDir
		}
		paths = append(paths, rel)
		isDir[rel] = d.IsDir()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	return paths, isDir
}

var gitPath, _ = exec.LookPath("git")

func runGit(t testing.TB, dir string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(gitPath, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+dir,
		"XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && args[0] == "check-ignore" {
		return out.Bytes() // exit 1: nothing ignored
	}
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

// gitIgnored asks `git check-ignore --no-index` which of paths are ignored.
func gitIgnored(t testing.TB, dir string, paths []string) map[string]bool {
	t.Helper()
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	out := runGit(t, dir, in.Bytes(), "check-ignore", "--no-index", "--stdin", "-z")
	got := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			got[p] = true
		}
	}
	return got
}

// oursIgnored asks a Matcher over dir the same question.
func oursIgnored(t testing.TB, dir string, opts Options, paths []string, isDir map[string]bool) map[string]bool {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m, err := NewMatcher(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range paths {
		if m.Ignored(p, isDir[p]) {
			got[p] = true
		}
	}
	return got
}

func keys(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func gi(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// gitCases: each tree is checked path by path against git check-ignore
// and against the expected set of ignored paths.
var gitCases = []struct {
	name    string
	tree    tree
	ignored []string // expected ignored paths (files and directories)
}{
	{"blank lines and comments", tree{files: map[string]string{
		".gitignore": gi("", "# a.txt", "   ", "b.txt"), "a.txt": "", "b.txt": "", "# a.txt": ""}},
		[]string{"b.txt"}},
	{"escaped hash and bang", tree{files: map[string]string{
		".gitignore": gi(`\#x`, `\!y`, "#z"), "#x": "", "!y": "", "#z": "", "x": "", "y": ""}},
		[]string{"!y", "#x"}},
	{"trailing spaces trimmed unless escaped", tree{files: map[string]string{
		".gitignore": gi("a.txt   ", `b\ `, "c\\  "), "a.txt": "", "b ": "", "b": "", "c ": "", "c": ""}},
		[]string{"a.txt", "b ", "c "}},
	{"leading space is significant", tree{files: map[string]string{
		".gitignore": gi(" lead"), " lead": "", "lead": ""}},
		[]string{" lead"}},
	{"negation re-includes", tree{files: map[string]string{
		".gitignore": gi("*.log", "!keep.log"), "a.log": "", "keep.log": "", "sub/b.log": "", "sub/keep.log": ""}},
		[]string{"a.log", "sub/b.log"}},
	{"later line wins", tree{files: map[string]string{
		".gitignore": gi("!keep.log", "*.log"), "a.log": "", "keep.log": ""}},
		[]string{"a.log", "keep.log"}},
	{"cannot re-include below excluded dir", tree{files: map[string]string{
		".gitignore": gi("build/", "!build/keep.txt"), "build/keep.txt": "", "build/x.o": "", "src/build.go": ""}},
		[]string{"build", "build/keep.txt", "build/x.o"}},
	{"re-include dir then file", tree{files: map[string]string{
		".gitignore": gi("/*", "!/src", "src/*", "!src/main.go"), "src/main.go": "", "src/util.go": "", "doc.md": "", "lib/x.go": ""}},
		[]string{".gitignore", "doc.md", "lib", "lib/x.go", "src/util.go"}},
	{"trailing slash matches dirs only", tree{files: map[string]string{
		".gitignore": gi("out/"), "out/a": "", "x/out": "", "y/out/b": ""}},
		[]string{"out", "out/a", "y/out", "y/out/b"}},
	{"no slash matches at any depth", tree{files: map[string]string{
		".gitignore": gi("tmp"), "tmp": "", "a/tmp": "", "a/b/tmp/c": "", "a/tmpx": ""}},
		[]string{"a/b/tmp", "a/b/tmp/c", "a/tmp", "tmp"}},
	{"leading slash anchors", tree{files: map[string]string{
		".gitignore": gi("/top"), "top": "", "a/top": ""}},
		[]string{"top"}},
	{"middle slash anchors", tree{files: map[string]string{
		".gitignore": gi("doc/frotz"), "doc/frotz": "", "a/doc/frotz": ""}},
		[]string{"doc/frotz"}},
	{"middle slash with trailing slash", tree{files: map[string]string{
		".gitignore": gi("doc/frotz/"), "doc/frotz/x": "", "a/doc/frotz/x": ""}},
		[]string{"doc/frotz", "doc/frotz/x"}},
	{"star does not cross slash", tree{files: map[string]string{
		".gitignore": gi("a/*.txt"), "a/x.txt": "", "a/b/y.txt": "", "x.txt": ""}},
		[]string{"a/x.txt"}},
	{"star matches dot files", tree{files: map[string]string{
		".gitignore": gi("*rc"), ".bashrc": "", "vimrc": "", "rc.d": ""}},
		[]string{".bashrc", "vimrc"}},
	{"question mark", tree{files: map[string]string{
		".gitignore": gi("file?.c"), "file1.c": "", "file12.c": "", "file.c": ""}},
		[]string{"file1.c"}},
	{"leading double star", tree{files: map[string]string{
		".gitignore": gi("**/foo"), "foo": "", "a/foo": "", "a/b/foo/x": "", "a/xfoo": ""}},
		[]string{"a/b/foo", "a/b/foo/x", "a/foo", "foo"}},
	{"leading double star with path", tree{files: map[string]string{
		".gitignore": gi("**/foo/bar"), "foo/bar": "", "x/foo/bar": "", "foo/x/bar": ""}},
		[]string{"foo/bar", "x/foo/bar"}},
	{"trailing double star", tree{files: map[string]string{
		".gitignore": gi("abc/**"), "abc/x": "", "abc/d/e": "", "abc2/x": "", "q/abc/x": ""}},
		[]string{"abc/d", "abc/d/e", "abc/x"}},
	{"middle double star", tree{files: map[string]string{
		".gitignore": gi("a/**/b"), "a/b": "", "a/x/b": "", "a/x/y/b": "", "a/xb": "", "c/a/b": ""}},
		[]string{"a/b", "a/x/b", "a/x/y/b"}},
	{"double star not at boundary acts as star", tree{files: map[string]string{
		".gitignore": gi("a**z"), "az": "", "abz": "", "a/z": "", "q/abcz": ""}},
		[]string{"abz", "az", "q/abcz"}},
	{"double star inside anchored", tree{files: map[string]string{
		".gitignore": gi("/x**y/z"), "xy/z": "", "xay/z": "", "xa/by/z": ""}},
		[]string{"xay/z", "xy/z"}},
	{"char class and range", tree{files: map[string]string{
		".gitignore": gi("[ab].txt", "n[0-9]"), "a.txt": "", "b.txt": "", "c.txt": "", "n5": "", "nx": ""}},
		[]string{"a.txt", "b.txt", "n5"}},
	{"negated class bang and caret", tree{files: map[string]string{
		".gitignore": gi("x[!ab]", "y[^ab]"), "xa": "", "xc": "", "ya": "", "yc": ""}},
		[]string{"xc", "yc"}},
	{"class with bracket first", tree{files: map[string]string{
		".gitignore": gi("[]a]z"), "]z": "", "az": "", "bz": ""}},
		[]string{"]z", "az"}},
	{"posix classes", tree{files: map[string]string{
		".gitignore": gi("d[[:digit:]]", "u[[:upper:]]", "p[[:punct:]]"), "d1": "", "dx": "", "uA": "", "ua": "", "p-": "", "pa": ""}},
		[]string{"d1", "p-", "uA"}},
	{"escaped glob characters", tree{files: map[string]string{
		".gitignore": gi(`\*.txt`, `q\?`), "*.txt": "", "a.txt": "", "q?": "", "qa": ""}},
		[]string{"*.txt", "q?"}},
	{"unclosed bracket matches nothing", tree{files: map[string]string{
		".gitignore": gi("[abc", "ok"), "[abc": "", "a": "", "ok": ""}},
		[]string{"ok"}},
	{"nested gitignore relative anchoring", tree{files: map[string]string{
		".gitignore": gi("*.tmp"), "sub/.gitignore": gi("/local", "deep/*.c"), "local": "", "sub/local": "",
		"sub/x/local": "", "sub/deep/a.c": "", "deep/a.c": "", "sub/y.tmp": ""}},
		[]string{"sub/deep/a.c", "sub/local", "sub/y.tmp"}},
	{"deeper gitignore wins", tree{files: map[string]string{
		".gitignore": gi("*.gen"), "keep/.gitignore": gi("!*.gen"), "a.gen": "", "keep/b.gen": "", "keep/x/c.gen": ""}},
		[]string{"a.gen"}},
	{"deeper gitignore excludes", tree{files: map[string]string{
		".gitignore": gi("!*.gen"), "drop/.gitignore": gi("*.gen"), "a.gen": "", "drop/b.gen": ""}},
		[]string{"drop/b.gen"}},
	{"gitignore in excluded dir is not read", tree{files: map[string]string{
		".gitignore": gi("vendor/"), "vendor/.gitignore": gi("!*"), "vendor/a.go": ""}},
		[]string{"vendor", "vendor/.gitignore", "vendor/a.go"}},
	{"nested negation of parent pattern", tree{files: map[string]string{
		".gitignore": gi("logs/*", "!logs/.keep"), "logs/.keep": "", "logs/a": ""}},
		[]string{"logs/a"}},
	{"info exclude applies", tree{exclude: gi("*.swp"), files: map[string]string{"a.swp": "", "d/b.swp": "", "c": ""}},
		[]string{"a.swp", "d/b.swp"}},
	{"gitignore beats info exclude", tree{exclude: gi("*.swp"), files: map[string]string{
		".gitignore": gi("!keep.swp"), "keep.swp": "", "a.swp": ""}},
		[]string{"a.swp"}},
	{"info exclude cannot beat gitignore", tree{exclude: gi("!a.o"), files: map[string]string{
		".gitignore": gi("*.o"), "a.o": "", "b.o": ""}},
		[]string{"a.o", "b.o"}},
	{"info exclude dir pattern", tree{exclude: gi("/cache/"), files: map[string]string{"cache/x": "", "a/cache/y": ""}},
		[]string{"cache", "cache/x"}},
	{"crlf line endings", tree{files: map[string]string{".gitignore": "a.txt\r\nb.txt\r\n", "a.txt": "", "b.txt": "", "c.txt": ""}},
		[]string{"a.txt", "b.txt"}},
	{"no final newline", tree{files: map[string]string{".gitignore": "one\ntwo", "one": "", "two": ""}},
		[]string{"one", "two"}},
	{"utf8 bom skipped", tree{files: map[string]string{".gitignore": "\xef\xbb\xbfbom\n", "bom": ""}},
		[]string{"bom"}},
	{"star alone", tree{files: map[string]string{".gitignore": gi("*", "!.gitignore"), "a": "", "d/b": ""}},
		[]string{"a", "d", "d/b"}},
	{"whitelist dirs idiom", tree{files: map[string]string{".gitignore": gi("*", "!*/", "!*.go"), "a.go": "", "a.txt": "", "d/b.go": "", "d/b.txt": ""}},
		[]string{".gitignore", "a.txt", "d/b.txt"}},
	{"dir only pattern does not match file", tree{files: map[string]string{".gitignore": gi("x/"), "x": "", "d/x/": ""}},
		[]string{"d/x"}},
	{"double slash trailing", tree{files: map[string]string{".gitignore": gi("q//"), "q/a": ""}},
		nil},
	{"pattern with dot segments", tree{files: map[string]string{".gitignore": gi("./a", "b/../c"), "a": "", "c": ""}},
		nil},
	{"star slash matches one level", tree{files: map[string]string{".gitignore": gi("*/x"), "a/x": "", "a/b/x": "", "x": ""}},
		[]string{"a/x"}},
	{"anchored star star then slash", tree{files: map[string]string{".gitignore": gi("/**/q"), "q": "", "a/q": "", "a/b/q": ""}},
		[]string{"a/b/q", "a/q", "q"}},
	{"range with escape", tree{files: map[string]string{".gitignore": gi(`r[\]-\]]`, `s[a\-z]`), "r]": "", "s-": "", "sb": ""}},
		[]string{"r]", "s-"}},
	{"negation alone line", tree{files: map[string]string{".gitignore": gi("!", "a"), "a": "", "!": ""}},
		[]string{"a"}},
	{"nested dir-only in subdir", tree{files: map[string]string{"p/.gitignore": gi("gen/"), "p/gen/a": "", "gen/b": "", "p/q/gen/c": ""}},
		[]string{"p/gen", "p/gen/a", "p/q/gen", "p/q/gen/c"}},
	{"nested middle star star", tree{files: map[string]string{"p/.gitignore": gi("a/**/z"), "p/a/z": "", "p/a/m/z": "", "a/z": ""}},
		[]string{"p/a/m/z", "p/a/z"}},
	{"three levels precedence", tree{files: map[string]string{
		".gitignore": gi("*.x"), "a/.gitignore": gi("!*.x"), "a/b/.gitignore": gi("k.x"), "a/b/k.x": "", "a/b/j.x": "", "a/i.x": "", "h.x": ""}},
		[]string{"a/b/k.x", "h.x"}},
	{"symlink gitignore skipped", tree{files: map[string]string{"real": gi("*.a"), "x.a": ""}},
		nil}, // .gitignore symlink added in the test below
	{"character class with slash never matches", tree{files: map[string]string{".gitignore": gi("a[/]b"), "a/b": ""}},
		nil},
	{"dotfiles and hidden dirs", tree{files: map[string]string{".gitignore": gi(".*", "!.gitignore"), ".env": "", ".cfg/x": "", "v.env": ""}},
		[]string{".cfg", ".cfg/x", ".env"}},
	{"trailing backslash never matches", tree{files: map[string]string{".gitignore": "t\\\n", "t": "", "t\\": ""}},
		nil},
	{"literal prefix then double star crosses slashes (git quirk)", tree{files: map[string]string{".gitignore": gi("/a**"), "ab/c": "", "x/ab": ""}},
		[]string{"ab", "ab/c"}},
	{"ignored parent dir by wildcard", tree{files: map[string]string{".gitignore": gi("bazel-*"), "bazel-out/x/y": "", "bazelx": ""}},
		[]string{"bazel-out", "bazel-out/x", "bazel-out/x/y"}},
}

func TestMatchesGitTable(t *testing.T) {
	total := 0
	for _, tc := range gitCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.tree.build(t)
			if tc.name == "symlink gitignore skipped" {
				if err := os.Symlink("real", filepath.Join(dir, ".gitignore")); err != nil {
					t.Skip("no symlinks:", err)
				}
			}
			paths, isDir := listPaths(t, dir)
			ours := oursIgnored(t, dir, Options{GitIgnore: true}, paths, isDir)
			want := slices.Clone(tc.ignored)
			sort.Strings(want)
			if got := keys(ours); !slices.Equal(got, want) {
				t.Errorf("ours ignored %q, want %q", got, want)
			}
			total += len(paths)
			if gitPath == "" {
				return
			}
			g := gitIgnored(t, dir, paths)
			for _, p := range paths {
				if ours[p] != g[p] {
					t.Errorf("%s (dir=%v): ours=%v git=%v", p, isDir[p], ours[p], g[p])
				}
			}
		})
	}
	if gitPath == "" {
		t.Log("git not found: checked against the table's expectations only")
	}
	t.Logf("%d path checks over %d trees", total, len(gitCases))
}

// TestMatchesGitRandom generates random trees and .gitignore files and
// compares every path with git check-ignore.
func TestMatchesGitRandom(t *testing.T) {
	if gitPath == "" {
		t.Skip("git not found: skipping the comparison with git check-ignore")
	}
	n := 100
	if testing.Short() {
		n = 30
	}
	for i := range n {
		seed := uint64(i)
		rng := rand.New(rand.NewPCG(seed, 42))
		tr := randomTree(rng)
		dir := tr.build(t)
		paths, isDir := listPaths(t, dir)
		ours := oursIgnored(t, dir, Options{GitIgnore: true}, paths, isDir)
		g := gitIgnored(t, dir, paths)
		for _, p := range paths {
			if ours[p] != g[p] {
				t.Errorf("seed %d: %s (dir=%v): ours=%v git=%v\n%s", seed, p, isDir[p], ours[p], g[p], describe(tr))
			}
		}
		if t.Failed() {
			return
		}
	}
}

func describe(tr tree) string {
	var b strings.Builder
	var ks []string
	for k := range tr.files {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		if strings.HasSuffix(k, ".gitignore") {
			fmt.Fprintf(&b, "%s:\n%s", k, indent(tr.files[k]))
		}
	}
	if tr.exclude != "" {
		fmt.Fprintf(&b, "info/exclude:\n%s", indent(tr.exclude))
	}
	return b.String()
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
}

var (
	randNames  = []string{"a", "b", "ab", "foo", "x.log", "y.txt", ".hid", "ba"}
	randTokens = []string{"a", "b", "foo", ".log", ".txt", "*", "*", "**", "?", "/", "/", "[ab]", "[!a]", "[a-c]", `\*`, "x", ".",
		"[[:alpha:]]", "[]a]", "[^b]", ` `, `\ `, "#", `\!`, "***", "a**", "**/", "/**"}
)

func randomTree(rng *rand.Rand) tree {
	tr := tree{files: map[string]string{}}
	var dirs = []string{""}
	for range 12 {
		parent := dirs[rng.IntN(len(dirs))]
		name := path.Join(parent, randNames[rng.IntN(len(randNames))])
		if strings.Count(name, "/") >= 3 {
			continue
		}
		if _, taken := tr.files[name]; taken {
			continue
		}
		if rng.IntN(2) == 0 && !slices.Contains(dirs, name) {
			// a directory (files added under it later make it real)
			if _, isFile := tr.files[name]; !isFile {
				dirs = append(dirs, name)
				tr.files[name+"/"] = ""
			}
		} else if !slices.Contains(dirs, name) {
			tr.files[name] = ""
		}
	}
	for _, d := range dirs {
		if rng.IntN(3) == 0 {
			tr.files[path.Join(d, ".gitignore")] = randomPatterns(rng)
		}
	}
	if rng.IntN(3) == 0 {
		tr.exclude = randomPatterns(rng)
	}
	// A file under a directory entry "d/" makes the directory marker redundant.
	for k := range tr.files {
		if strings.HasSuffix(k, "/") {
			for k2 := range tr.files {
				if k2 != k && strings.HasPrefix(k2, k) {
					delete(tr.files, k)
					break
				}
			}
		}
	}
	return tr
}

func randomPatterns(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(4) {
		if rng.IntN(4) == 0 {
			b.WriteString("!")
		}
		if rng.IntN(5) == 0 {
			b.WriteString("/")
		}
		for range 1 + rng.IntN(3) {
			b.WriteString(randTokens[rng.IntN(len(randTokens))])
		}
		if rng.IntN(4) == 0 {
			b.WriteString("/")
		}
		b.WriteString("\n")
	}
	return b.String()
}
