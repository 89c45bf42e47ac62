package textsearch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/thalix/tv/ignore"
)

// makeTree writes files (slash path -> content) under a temp dir and
// returns an os.Root on it.
func makeTree(t testing.TB, files map[string]string) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

func run(t testing.TB, root *os.Root, start string, opts Options) *Result {
	t.Helper()
	res, err := Search(context.Background(), root, start, opts)
	if err != nil {
		t.Fatalf("Search(%q, %+v): %v", start, opts, err)
	}
	return res
}

// hits renders matches as "path:line:col:text".
func hits(res *Result) []string {
	out := []string{}
	for _, m := range res.Matches {
		out = append(out, fmt.Sprintf("%s:%d:%d:%s", m.Path, m.Line, m.Column, m.Text))
	}
	return out
}

var basicTree = map[string]string{
	"a.go":         "package a\n\nfunc (c *conn) Close() error {\n\treturn nil\n}\n",
	"b/b.go":       "package b\n// conn.Close is here\nvar x = 1 // Close\n",
	"b/c/deep.txt": "alpha\nbeta\ngamma\nClose\n",
	"b-c.txt":      "x.y(z\nxay(z\n",
	"crlf.txt":     "one\r\nClose two\r\n",
	"latin1.txt":   "caf\xe9 Close\n",
	"empty.txt":    "",
	"nonl.txt":     "last line without newline Close",
	"z/anchor.txt": "start middle end\nend start\n\n",
}

func TestMatching(t *testing.T) {
	root, _ := makeTree(t, basicTree)
	cases := []struct {
		name  string
		opts  Options
		start string
		want  []string
	}{
		{"fixed", Options{Pattern: "func (c *conn) Close", Fixed: true}, ".",
			[]string{"a.go:3:1:func (c *conn) Close() error {"}},
		{"fixed special chars are literal", Options{Pattern: "x.y(z", Fixed: true}, ".",
			[]string{"b-c.txt:1:1:x.y(z"}},
		{"regexp dot", Options{Pattern: `x.y\(z`}, ".",
			[]string{"b-c.txt:1:1:x.y(z", "b-c.txt:2:1:xay(z"}},
		{"literal regexp everywhere, path order, columns, crlf, invalid utf8, no final newline", Options{Pattern: "Close"}, ".", []string{
			"a.go:3:16:func (c *conn) Close() error {",
			"b/b.go:2:9:// conn.Close is here",
			"b/b.go:3:14:var x = 1 // Close",
			"b/c/deep.txt:4:1:Close",
			"crlf.txt:2:1:Close two",
			"latin1.txt:1:6:caf\uFFFD Close",
			"nonl.txt:1:27:last line without newline Close",
		}},
		{"start at a subdirectory", Options{Pattern: "Close"}, "b", []string{
			"b/b.go:2:9:// conn.Close is here", "b/b.go:3:14:var x = 1 // Close", "b/c/deep.txt:4:1:Close"}},
		{"start at a file", Options{Pattern: "Close"}, "b/b.go", []string{
			"b/b.go:2:9:// conn.Close is here", "b/b.go:3:14:var x = 1 // Close"}},
		{"start with ./ and trailing slash", Options{Pattern: "gamma"}, "./b/c/", []string{"b/c/deep.txt:3:1:gamma"}},
		{"anchors are per line", Options{Pattern: `^end|end$`}, "z", []string{
			"z/anchor.txt:1:14:start middle end", "z/anchor.txt:2:1:end start"}},
		{"text anchors are per line too", Options{Pattern: `\Aend|start\z`}, "z", []string{
			"z/anchor.txt:2:1:end start"}},
		{"empty line", Options{Pattern: `^$`}, "z", []string{"z/anchor.txt:3:1:"}},
		{"word boundary, no literal", Options{Pattern: `\b[a-z]{5}\b`}, "b/c", []string{
			"b/c/deep.txt:1:1:alpha", "b/c/deep.txt:3:1:gamma"}},
		{"alternation of literals", Options{Pattern: `beta|gamma`}, "b/c", []string{
			"b/c/deep.txt:2:1:beta", "b/c/deep.txt:3:1:gamma"}},
		{"case-insensitive", Options{Pattern: `(?i)CLOSE TWO`}, ".", []string{"crlf.txt:2:1:Close two"}},
		{"class prefilter", Options{Pattern: `[xy]ay\(`}, ".", []string{"b-c.txt:2:1:xay(z"}},
		{"a newline in a pattern matches nothing", Options{Pattern: "alpha\nbeta"}, ".", []string{}},
		{"a newline in a fixed pattern matches nothing", Options{Pattern: "alpha\nbeta", Fixed: true}, ".", []string{}},
		{"class with newline never spans lines", Options{Pattern: `alpha\sbeta`}, ".", []string{}},
		{"dot-s never spans lines", Options{Pattern: `(?s)alpha.beta`}, ".", []string{}},
		{"empty pattern matches every line", Options{Pattern: ""}, "b/c", []string{
			"b/c/deep.txt:1:1:alpha", "b/c/deep.txt:2:1:beta", "b/c/deep.txt:3:1:gamma", "b/c/deep.txt:4:1:Close"}},
		{"no match", Options{Pattern: "zzz-not-there"}, ".", []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, root, tc.start, tc.opts)
			if got := hits(res); !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if res.Stopped != "" {
				t.Errorf("Stopped = %q", res.Stopped)
			}
		})
	}
}

func TestCounters(t *testing.T) {
	big := strings.Repeat("x", BinarySniffBytes) + "\x00 Close\n"
	root, _ := makeTree(t, map[string]string{
		"a.txt":        "Close\n",
		"bin.dat":      "ab\x00cd Close\n",
		"late-nul.txt": big,
	})
	res := run(t, root, ".", Options{Pattern: "Close"})
	if res.FilesScanned != 3 || res.BinarySkipped != 1 {
		t.Errorf("FilesScanned=%d BinarySkipped=%d, want 3 and 1", res.FilesScanned, res.BinarySkipped)
	}
	if want := int64(len("Close\n") + len(big)); res.BytesScanned != want {
		t.Errorf("BytesScanned=%d, want %d (binary files not counted)", res.BytesScanned, want)
	}
	if got := hits(res); len(got) != 2 || !strings.HasPrefix(got[1], "late-nul.txt:1:") {
		t.Errorf("hits %q: a NUL after the first %d bytes does not make a file binary", got, BinarySniffBytes)
	}
}

func TestLongLines(t *testing.T) {
	long := strings.Repeat("é", MaxLineBytes) // 2 bytes each
	root, _ := makeTree(t, map[string]string{"l.txt": long + "needle\n"})
	res := run(t, root, ".", Options{Pattern: "needle"})
	m := res.Matches[0]
	if len(m.Text) > MaxLineBytes || !strings.HasPrefix(long, m.Text) || m.Column != 2*MaxLineBytes+1 {
		t.Errorf("len(Text)=%d Column=%d", len(m.Text), m.Column)
	}
}

func TestContext(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		if i == 10 || i == 13 || i == 28 {
			fmt.Fprintf(&b, "line %d MATCH\n", i)
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	root, _ := makeTree(t, map[string]string{"f.txt": b.String(), "g.txt": "MATCH first\nsecond\n"})
	res := run(t, root, ".", Options{Pattern: "MATCH", Context: 3})
	nums := func(ls []Line) []int {
		out := []int{}
		for _, l := range ls {
			if want := fmt.Sprintf("line %d", l.Number); !strings.HasPrefix(l.Text, want) {
				panic(l.Text)
			}
			out = append(out, l.Number)
		}
		return out
	}
	type want struct {
		path          string
		line          int
		before, after []int
	}
	wants := []want{
		{"f.txt", 10, []int{7, 8, 9}, []int{11, 12}},    // After stops before the next match
		{"f.txt", 13, []int{}, []int{14, 15, 16}},       // Before already reported
		{"f.txt", 28, []int{25, 26, 27}, []int{29, 30}}, // end of file
		{"g.txt", 1, []int{}, []int{2}},                 // start of file
	}
	if len(res.Matches) != len(wants) {
		t.Fatalf("got %q", hits(res))
	}
	for i, w := range wants {
		m := res.Matches[i]
		if m.Path != w.path || m.Line != w.line {
			t.Errorf("match %d: %s:%d, want %s:%d", i, m.Path, m.Line, w.path, w.line)
		}
		if m.Path == "g.txt" {
			if len(m.Before) != 0 || len(m.After) != 1 || m.After[0] != (Line{2, "second"}) {
				t.Errorf("g.txt context %+v %+v", m.Before, m.After)
			}
			continue
		}
		if got := nums(m.Before); !slices.Equal(got, w.before) {
			t.Errorf("match %d Before %v, want %v", i, got, w.before)
		}
		if got := nums(m.After); !slices.Equal(got, w.after) {
			t.Errorf("match %d After %v, want %v", i, got, w.after)
		}
	}
}

func TestStopReasons(t *testing.T) {
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("f%02d.txt", i)] = "hit one\nmiss\nhit two\n" // 21 bytes, 2 hits
	}
	root, _ := makeTree(t, files)
	cases := []struct {
		name      string
		opts      Options
		stopped   string
		matches   int
		files     int
		bytes     int64
		lastMatch string
	}{
		{"no stop", Options{Pattern: "hit"}, "", 20, 10, 210, "f09.txt:3"},
		{"exactly limit: not stopped", Options{Pattern: "hit", Limit: 20}, "", 20, 10, 210, "f09.txt:3"},
		{"match limit", Options{Pattern: "hit", Limit: 5}, StopMatchLimit, 5, 3, 63, "f02.txt:1"},
		{"match limit at a file boundary", Options{Pattern: "hit", Limit: 4}, StopMatchLimit, 4, 3, 63, "f01.txt:3"},
		{"file cap", Options{Pattern: "hit", MaxFiles: 3}, StopFileCap, 6, 3, 63, "f02.txt:3"},
		{"file cap equal to files: not stopped", Options{Pattern: "hit", MaxFiles: 10}, "", 20, 10, 210, "f09.txt:3"},
		{"byte cap cuts at a line end", Options{Pattern: "hit", MaxBytes: 21*2 + 12}, StopByteCap, 5, 3, 54, "f02.txt:1"},
		{"byte cap inside the first line", Options{Pattern: "hit", MaxBytes: 21*2 + 3}, StopByteCap, 4, 3, 45, "f01.txt:3"},
		{"byte cap equal to content: not stopped", Options{Pattern: "hit", MaxBytes: 210}, "", 20, 10, 210, "f09.txt:3"},
		{"output cap", Options{Pattern: "hit", MaxOutputBytes: 3 * len("f00.txthit one")}, StopOutputCap, 3, 2, 42, "f01.txt:1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, root, ".", tc.opts)
			last := ""
			if n := len(res.Matches); n > 0 {
				last = fmt.Sprintf("%s:%d", res.Matches[n-1].Path, res.Matches[n-1].Line)
			}
			got := fmt.Sprintf("stopped=%q matches=%d files=%d bytes=%d last=%s", res.Stopped, len(res.Matches), res.FilesScanned, res.BytesScanned, last)
			want := fmt.Sprintf("stopped=%q matches=%d files=%d bytes=%d last=%s", tc.stopped, tc.matches, tc.files, tc.bytes, tc.lastMatch)
			if got != want {
				t.Errorf("\ngot  %s\nwant %s", got, want)
			}
		})
	}
}

func TestByteCapLargeFile(t *testing.T) {
	// A file larger than the byte cap is read only up to the cap, and its
	// cut last line is not reported.
	line := "0123456789 hit\n"
	root, _ := makeTree(t, map[string]string{"big.txt": strings.Repeat(line, 100)})
	res := run(t, root, ".", Options{Pattern: "hit", MaxBytes: int64(len(line)*10 + 5)})
	if res.Stopped != StopByteCap || len(res.Matches) != 10 || res.BytesScanned != int64(len(line)*10+5) {
		t.Errorf("stopped=%q matches=%d bytes=%d", res.Stopped, len(res.Matches), res.BytesScanned)
	}
}

func TestIgnoreIntegration(t *testing.T) {
	root, _ := makeTree(t, map[string]string{
		".gitignore":             "*.log\n!keep.log\ngen/\n",
		"a.txt":                  "needle\n",
		"x.log":                  "needle\n",
		"keep.log":               "needle\n",
		"gen/g.txt":              "needle\n",
		"node_modules/m/i.js":    "needle\n",
		"src/build/out.txt":      "needle\n",
		"src/.gitignore":         "local.txt\n",
		"src/local.txt":          "needle\n",
		"src/main.go":            "needle\n",
		".git/config":            "needle\n",
		"vendor/skip/README.txt": "needle\n",
	})
	all := run(t, root, ".", Options{Pattern: "needle"})
	if len(all.Matches) != 10 {
		t.Errorf("without a matcher: %q", hits(all))
	}
	m, err := ignore.NewMatcher(root, ignore.Options{Defaults: true, GitIgnore: true, Extra: []string{"vendor/"}})
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, root, ".", Options{Pattern: "needle", Ignore: m})
	var paths []string
	for _, mt := range res.Matches {
		paths = append(paths, mt.Path)
	}
	want := []string{"a.txt", "keep.log", "src/main.go"}
	if !slices.Equal(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
	// A start path that is itself ignored scans nothing.
	res = run(t, root, "node_modules", Options{Pattern: "needle", Ignore: m})
	if len(res.Matches) != 0 || res.FilesScanned != 0 {
		t.Errorf("ignored start: %q", hits(res))
	}
	res = run(t, root, "gen/g.txt", Options{Pattern: "needle", Ignore: m})
	if len(res.Matches) != 0 {
		t.Errorf("ignored start file: %q", hits(res))
	}
}

func TestErrors(t *testing.T) {
	root, _ := makeTree(t, map[string]string{"a.txt": "x\n"})
	cases := []struct {
		start string
		opts  Options
		want  error
		msg   string
	}{
		{".", Options{Pattern: strings.Repeat("a", MaxPatternBytes+1)}, ErrBadPattern, "4096"},
		{".", Options{Pattern: strings.Repeat("a", MaxPatternBytes+1), Fixed: true}, ErrBadPattern, "4096"},
		{".", Options{Pattern: "a(b"}, ErrBadPattern, "missing closing )"},
		{".", Options{Pattern: `\p{Bogus}`}, ErrBadPattern, "invalid character class range"},
		{".", Options{Pattern: "x", Context: MaxContext + 1}, ErrBadOptions, "0..20"},
		{".", Options{Pattern: "x", Context: -1}, ErrBadOptions, "0..20"},
		{".", Options{Pattern: "x", Limit: MaxLimit + 1}, ErrBadOptions, "1..1000"},
		{".", Options{Pattern: "x", MaxBytes: -1}, ErrBadOptions, "negative"},
		{"../x", Options{Pattern: "x"}, ErrBadPath, "inside the root"},
		{"/etc", Options{Pattern: "x"}, ErrBadPath, "inside the root"},
		{`a\b`, Options{Pattern: "x"}, ErrBadPath, "slash-separated"},
		{"missing", Options{Pattern: "x"}, fs.ErrNotExist, "missing"},
		{"a.txt/x", Options{Pattern: "x"}, ErrBadPath, "a.txt"},
	}
	for _, tc := range cases {
		_, err := Search(context.Background(), root, tc.start, tc.opts)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Search(%q, pattern %.10q…): err = %v, want %v mentioning %q", tc.start, tc.opts.Pattern, err, tc.want, tc.msg)
		}
	}
	if _, err := Search(context.Background(), root, ".", Options{Pattern: strings.Repeat("a", MaxPatternBytes)}); err != nil {
		t.Errorf("a pattern of exactly MaxPatternBytes: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Search(ctx, root, ".", Options{Pattern: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// reference is a plain sequential grep: sorted walk, every line through
// the regexp. Search must return exactly its first limit matches.
func reference(t testing.TB, dir, pattern string) []string {
	re := regexp.MustCompile(pattern)
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(paths) // byte order of the full path
	out := []string{}
	for _, p := range paths {
		data, _ := os.ReadFile(filepath.Join(dir, p))
		if strings.IndexByte(string(data[:min(len(data), BinarySniffBytes)]), 0) >= 0 {
			continue
		}
		lines := strings.Split(string(data), "\n")
		if strings.HasSuffix(string(data), "\n") || len(data) == 0 {
			lines = lines[:len(lines)-1]
		}
		for i, l := range lines {
			if loc := re.FindStringIndex(l); loc != nil {
				out = append(out, fmt.Sprintf("%s:%d:%d:%s", p, i+1, loc[0]+1, lineText([]byte(l))))
			}
		}
	}
	return out
}

// genTree makes a tree whose walk order differs from naive orders:
// names that sort differently as paths than as components ("a-b" vs
// "a/b"), many small files and a few large ones.
func genTree(t testing.TB, nfiles int) map[string]string {
	files := map[string]string{}
	names := []string{"a", "a-b", "a.b", "a0", "b", "B", "_x", "z"}
	for i := range nfiles {
		d := names[i%len(names)] + "/" + names[(i/len(names))%len(names)]
		var b strings.Builder
		n := 5 + (i*7)%40
		if i%97 == 0 {
			n = 60000 // a few files over smallFileBytes
		}
		for j := range n {
			if (i+j)%11 == 0 {
				fmt.Fprintf(&b, "%d func (x *T) Target%d() {}\n", j, i)
			} else {
				fmt.Fprintf(&b, "%d filler text %d\n", j, i*j)
			}
		}
		files[fmt.Sprintf("%s/f%03d.go", d, i)] = b.String()
	}
	files["a-c"] = "func (x *T) Target() {}\n" // sorts before the directory "a" as a path
	files["a/c"] = "func (x *T) Target() {}\n"
	return files
}

func TestDeterministic(t *testing.T) {
	root, dir := makeTree(t, genTree(t, 300))
	pattern := `func \(\w+ \*T\) Target\d*\(`
	ref := reference(t, dir, pattern)
	if len(ref) < 1000 {
		t.Fatalf("reference too small: %d", len(ref))
	}
	for _, procs := range []int{1, 2, 4, 8} {
		old := runtime.GOMAXPROCS(procs)
		for _, limit := range []int{1, 7, 200, MaxLimit} {
			for rep := range 3 {
				res := run(t, root, ".", Options{Pattern: pattern, Limit: limit})
				got := hits(res)
				want := ref[:min(limit, len(ref))]
				if !slices.Equal(got, want) {
					t.Fatalf("procs=%d limit=%d rep=%d: differs from the sequential reference\n got[:3]=%q\nwant[:3]=%q", procs, limit, rep, got[:min(3, len(got))], want[:min(3, len(want))])
				}
				if !slices.IsSortedFunc(res.Matches, func(a, b Match) int {
					if c := strings.Compare(a.Path, b.Path); c != 0 {
						return c
					}
					return a.Line - b.Line
				}) {
					t.Fatal("not sorted by path, line")
				}
				if wantStop := map[bool]string{true: StopMatchLimit, false: ""}[len(ref) > limit]; res.Stopped != wantStop {
					t.Fatalf("Stopped = %q, want %q", res.Stopped, wantStop)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
	// Same for a fixed string, and the counters are deterministic too.
	first := run(t, root, ".", Options{Pattern: "Target1", Fixed: true, Limit: 50})
	for range 5 {
		again := run(t, root, ".", Options{Pattern: "Target1", Fixed: true, Limit: 50})
		if !reflect.DeepEqual(first, again) {
			t.Fatal("fixed search not deterministic")
		}
	}
}

// TestConcurrentSearches shares one root and one ignore.Matcher between
// concurrent searches (run with -race).
func TestConcurrentSearches(t *testing.T) {
	files := genTree(t, 120)
	files[".gitignore"] = "B/\n"
	root, _ := makeTree(t, files)
	m, err := ignore.NewMatcher(root, ignore.Options{GitIgnore: true, Defaults: true})
	if err != nil {
		t.Fatal(err)
	}
	want := hits(run(t, root, ".", Options{Pattern: `Target\d+\(`, Limit: 300, Ignore: m}))
	for _, h := range want {
		if strings.HasPrefix(h, "B/") {
			t.Fatalf("ignored directory searched: %s", h)
		}
	}
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Search(context.Background(), root, ".", Options{Pattern: `Target\d+\(`, Limit: 300, Ignore: m})
			if err != nil {
				t.Error(err)
				return
			}
			if got := hits(res); !slices.Equal(got, want) {
				t.Error("concurrent search differs")
			}
		}()
	}
	wg.Wait()
}
