package icm

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/thalix/tv/starter"
)

// walkListing walks fsys into the listing ValidateEntries takes.
func walkListing(tb testing.TB, fsys fs.FS) []Entry {
	tb.Helper()
	var entries []Entry
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != "." {
			entries = append(entries, Entry{Path: p, Type: d.Type()})
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return entries
}

// guardFS lets ValidateEntries open only the regular .md files of its
// listing, and counts the opens.
type guardFS struct {
	fs.FS
	tb      testing.TB
	allowed map[string]bool
	opened  map[string]int
}

func newGuardFS(tb testing.TB, fsys fs.FS, entries []Entry) *guardFS {
	g := &guardFS{FS: fsys, tb: tb, allowed: map[string]bool{}, opened: map[string]int{}}
	for _, e := range entries {
		if e.Type.IsRegular() && strings.EqualFold(path.Ext(e.Path), ".md") {
			g.allowed[e.Path] = true
		}
	}
	return g
}

func (g *guardFS) Open(name string) (fs.File, error) {
	g.tb.Helper()
	if !g.allowed[name] {
		g.tb.Errorf("ValidateEntries opened %q, not a regular .md file of its listing", name)
	}
	g.opened[name]++
	if g.opened[name] > 1 {
		g.tb.Errorf("ValidateEntries opened %q %d times", name, g.opened[name])
	}
	return g.FS.Open(name)
}

// errString is err's message, "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// checkSame validates fsys two ways, ValidateTools and ValidateEntries on
// a walk of fsys (through a guardFS), and fails unless both return exactly
// the same findings. It returns ValidateTools' findings and error.
func checkSame(t *testing.T, fsys fs.FS, known []string) ([]Finding, error) {
	t.Helper()
	want, wantErr := ValidateTools(fsys, known)
	if wantErr != nil {
		return nil, wantErr
	}
	entries := walkListing(t, fsys)
	g := newGuardFS(t, fsys, entries)
	got, err := ValidateEntries(g, entries, known)
	if !reflect.DeepEqual(got, want) || err != nil {
		t.Fatalf("ValidateEntries = %v\n%s\nValidateTools =\n%s", err, dump(got), dump(want))
	}
	return want, nil
}

var narrowKnown = []string{"vault_file_info", "vault_file_read"}

// TestEntriesMatchTools: on the starter (on disk too) and on the
// benchmark tree, ValidateEntries returns what ValidateTools returns (the
// TestValidate cases are checked so in TestGoldenFindings).
func TestEntriesMatchTools(t *testing.T) {
	t.Run("starter", func(t *testing.T) {
		if got, err := checkSame(t, starter.FS(), KnownTools()); err != nil || len(got) != 0 {
			t.Errorf("starter findings: %v\n%s", err, dump(got))
		}
		checkSame(t, starter.FS(), narrowKnown)
		m := fstest.MapFS{}
		for _, e := range walkListing(t, starter.FS()) {
			if !e.Type.IsDir() {
				data, err := fs.ReadFile(starter.FS(), e.Path)
				if err != nil {
					t.Fatal(err)
				}
				setFile(m, e.Path, string(data))
			}
		}
		if disk := diskFS(t, m); disk != nil {
			checkSame(t, disk, KnownTools())
		}
	})
	t.Run("benchmark tree", func(t *testing.T) {
		full, md := benchTree(t)
		index := newIndexFS(t, full)
		want, err := checkSame(t, index, KnownTools())
		if err != nil {
			t.Fatal(err)
		}
		if full := walkListing(t, full); !slices.Equal(walkListing(t, index), full) {
			t.Fatal("indexFS walks otherwise than its MapFS")
		}
		got, err := ValidateEntries(md, walkListing(t, index), KnownTools())
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("ValidateEntries with only the .md files = %v\n%s\nwant\n%s", err, dump(got), dump(want))
		}
	})
}

// TestValidateEntriesAllocs: ValidateEntries allocates per Markdown file
// it reads, not per entry: the benchmark tree's 12,800 entries cost what
// the starter's 17 do, plus its 30 more .md files.
func TestValidateEntriesAllocs(t *testing.T) {
	full, md := benchTree(t)
	small := fstest.MapFS{}
	for p, f := range md {
		if !strings.HasPrefix(p, gosrcDir+"/") {
			small[p] = f
		}
	}
	allocs := func(fsys fs.FS, entries []Entry) float64 {
		return testing.AllocsPerRun(20, func() {
			if _, err := ValidateEntries(fsys, entries, KnownTools()); err != nil {
				t.Fatal(err)
			}
		})
	}
	bulk := len(md) - len(small)
	base, all := allocs(small, walkListing(t, small)), allocs(md, walkListing(t, newIndexFS(t, full)))
	t.Logf("%v allocations for the starter, %v for the benchmark tree (%d more .md files)", base, all, bulk)
	if all > base+float64(bulk)+5 || all > 100 {
		t.Errorf("%v allocations for the benchmark tree, %v for the starter: want at most one more per .md file", all, base)
	}
}

// unsortedFS reverses every ReadDir listing, as an fs.FS that breaks the
// ReadDirFS contract might: ValidateTools still validates it as before.
type unsortedFS struct{ fstest.MapFS }

func (u unsortedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	list, err := u.MapFS.ReadDir(name)
	slices.Reverse(list)
	return list, err
}

func TestValidateToolsUnsortedReadDir(t *testing.T) {
	m := baseFS()
	setFile(m, "shared/{{X}}.md", "{{X}}\n")
	setDir(m, "shared/empty")
	setFile(m, "stages/03_x/CONTEXT.md", "# x\n")
	fsys := unsortedFS{m}
	if entries := walkListing(t, fsys); slices.IsSortedFunc(entries, func(a, b Entry) int { return walkCmp(a.Path, b.Path) }) {
		t.Fatal("the walk is in order; the test tests nothing")
	}
	want, err := ValidateTools(m, KnownTools()) // m's ReadDir is sorted
	if err != nil {
		t.Fatal(err)
	}
	got, err := ValidateTools(fsys, KnownTools())
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ValidateTools = %v\n%s\nwant\n%s", err, dump(got), dump(want))
	}
}

// failFS fails every Open: a listing error must come before any read.
type failFS struct{}

func (failFS) Open(name string) (fs.File, error) {
	return nil, fmt.Errorf("opened %q", name)
}

func TestValidateEntriesBadListing(t *testing.T) {
	const (
		dir  = fs.ModeDir
		file = fs.FileMode(0)
		link = fs.ModeSymlink
	)
	e := func(p string, t fs.FileMode) Entry { return Entry{p, t} }
	tests := []struct {
		name    string
		entries []Entry
		want    string // in the error
	}{
		{"empty path", []Entry{e("CONTEXT.md", file), e("", file)}, `entry 1 "": empty path`},
		{"empty first path", []Entry{e("", file)}, `entry 0 "": empty path`},
		{"root", []Entry{e(".", dir)}, `entry 0 ".": the root, which a listing leaves out`},
		{"absolute", []Entry{e("/etc", dir)}, `entry 0 "/etc": absolute path`},
		{"absolute later", []Entry{e("a", dir), e("/a/b", file)}, `entry 1 "/a/b": absolute path`},
		{"dot-slash", []Entry{e("./a", file)}, `entry 0 "./a": not a clean relative slash path`},
		{"dot element", []Entry{e("a", dir), e("a/.", file)}, `entry 1 "a/.": not a clean relative slash path`},
		{"dot-dot element", []Entry{e("a", dir), e("a/..", dir)}, `entry 1 "a/..": not a clean relative slash path`},
		{"dot-dot inside", []Entry{e("a", dir), e("a/../b", file)}, `entry 1 "a/../b": not a clean relative slash path`},
		{"dot-dot first", []Entry{e("..", dir)}, `entry 0 "..": not a clean relative slash path`},
		{"double slash", []Entry{e("a", dir), e("a//b", file)}, `entry 1 "a//b": not a clean relative slash path`},
		{"trailing slash", []Entry{e("a", dir), e("a/", dir)}, `entry 1 "a/": not a clean relative slash path`},
		{"trailing slash first", []Entry{e("a/", dir)}, `entry 0 "a/": not a clean relative slash path`},
		{"siblings out of order", []Entry{e("b", file), e("a", file)}, `entry 1 "a": not in walk order: it follows "b"`},
		{"nested siblings out of order", []Entry{e("s", dir), e("s/b", file), e("s/a", file)}, `entry 2 "s/a": not in walk order`},
		{"listed twice", []Entry{e("a", file), e("a", file)}, `entry 1 "a": listed twice`},
		{"folder listed twice", []Entry{e("a", dir), e("a/x", file), e("a", dir)}, `entry 2 "a": not in walk order`},
		{"folder missing", []Entry{e("a/b", file)}, `entry 0 "a/b": not in walk order`},
		{"folder missing later", []Entry{e("a", dir), e("a/b/c", file)}, `entry 1 "a/b/c": not in walk order: it follows "a", but its folder "a/b" is not listed`},
		{"inside a file", []Entry{e("a", file), e("a/b", file)}, `entry 1 "a/b": listed inside "a", which is not a folder`},
		{"inside a symlink", []Entry{e("a", link), e("a/b", file)}, `entry 1 "a/b": listed inside "a", which is not a folder`},
		{"contents not right after the folder", []Entry{e("a", dir), e("b", file), e("a/x", file)}, `entry 2 "a/x": not in walk order`},
		// Byte order of whole paths is not walk order: '-' < '/'.
		{"path order", []Entry{e("a", dir), e("a-b", file), e("a/x", file)}, `entry 2 "a/x": not in walk order`},
		{"ancestor's sibling out of order", []Entry{e("b", dir), e("b/x", file), e("a", file)}, `entry 2 "a": not in walk order`},
		{"not UTF-8, out of order", []Entry{e("\xf5", dir), e("\xf5/x", file), e("a", file)}, `entry 2 "a": not in walk order`},
		{"not UTF-8, folder missing", []Entry{e("\xf5", dir), e("\xf5/\xff/x", file)}, `entry 1 "\xf5/\xff/x": not in walk order`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ValidateEntries(failFS{}, tc.entries, KnownTools())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "icm: listing entry ") {
				t.Fatalf("ValidateEntries = %v, %v; want an error with %q", got, err, tc.want)
			}
			if got != nil {
				t.Errorf("findings %v with the error", got)
			}
		})
	}
	// The same listings in walk order are accepted.
	for _, entries := range [][]Entry{
		{e("a", dir), e("a/x", file), e("a-b", file)},
		{e("a", dir), e("a/b", dir), e("a/b/c", file), e("a0", file), e("b", link)},
		{e("a", dir), e("a/\xff", file), e("\xf5", dir), e("\xf5/x", file)}, // names need not be UTF-8
		{},
		nil,
	} {
		if _, err := ValidateEntries(failFS{}, entries, KnownTools()); err != nil {
			t.Errorf("ValidateEntries(%v) = %v", entries, err)
		}
	}
}

// TestValidateEntriesListingIsTheTruth: ValidateEntries believes the
// listing, not fsys: it reports what the listing says and opens only the
// .md files it lists as regular.
func TestValidateEntriesListingIsTheTruth(t *testing.T) {
	m := baseFS()
	entries := walkListing(t, m)
	i := slices.IndexFunc(entries, func(e Entry) bool { return e.Path == "_config/voice.md" })
	entries[i].Type = fs.ModeSymlink
	entries = slices.Insert(entries, i+1, Entry{"_config/zz.md", 0}) // absent from fsys
	g := newGuardFS(t, m, entries)
	delete(g.allowed, "_config/zz.md")
	_, err := ValidateEntries(m, entries, KnownTools())
	if err == nil || !strings.Contains(err.Error(), "icm: open _config/zz.md") {
		t.Fatalf("err = %v, want the open error of the listed .md file fsys lacks", err)
	}
	entries = slices.Delete(entries, i+1, i+2)
	got, err := ValidateEntries(g, entries, KnownTools())
	if err != nil {
		t.Fatal(err)
	}
	var gotW []want
	for _, f := range got {
		gotW = append(gotW, want{f.Rule, f.Path, f.Line})
	}
	wantW := []want{{RuleFileType, "_config/voice.md", 0}, {RuleInputsResolve, c1, 17}}
	if !slices.Equal(gotW, wantW) {
		t.Fatalf("findings:\n%s\nwant %v", dump(got), wantW)
	}
	if g.opened["_config/voice.md"] != 0 {
		t.Error("opened a .md file listed as a symlink")
	}
}

func TestWalkCmp(t *testing.T) {
	names := []string{"a", "a-b", "a.b", "a0", "a b", "A", "b", "é", "a\x00", "ab"}
	var paths []string
	for _, x := range names {
		paths = append(paths, x)
		for _, y := range names {
			paths = append(paths, x+"/"+y)
			paths = append(paths, x+"/"+y+"/"+x)
		}
	}
	// Walk order is lexicographic order of the element sequences.
	tuple := func(a, b string) int { return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/")) }
	for _, a := range paths {
		for _, b := range paths {
			if got, want := walkCmp(a, b), tuple(a, b); got != want {
				t.Fatalf("walkCmp(%q, %q) = %d, want %d", a, b, got, want)
			}
			if dir, rel, ok := strings.Cut(b, "/"); ok {
				if got, want := walkCmpJoined(a, joined{dir, rel}), tuple(a, b); got != want {
					t.Fatalf("walkCmpJoined(%q, %q+%q) = %d, want %d", a, dir, rel, got, want)
				}
			}
		}
	}
}

func TestJoin(t *testing.T) {
	bases := []string{"", "stages/02-draft", "stages", "a/b/c"}
	elems := []string{"", ".", "..", "x", "x.md", "a-b", "..x", "...", "stages"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for k := r.IntN(6); k >= 0; k-- {
			b.WriteString(elems[r.IntN(len(elems))])
			if k > 0 || r.IntN(3) == 0 {
				b.WriteByte('/')
			}
		}
		p := b.String()
		if strings.HasPrefix(p, "/") {
			continue // resolve never joins an absolute path
		}
		for _, base := range bases {
			want := cmp.Or(path.Join(base, p), ".") // resolve never joins ""
			c, up := join(base, p)
			wantUp := want == ".." || strings.HasPrefix(want, "../")
			got := c.String()
			if got == "" {
				got = "."
			}
			if up != wantUp || !up && got != want {
				t.Fatalf("join(%q, %q) = %q, %v; path.Join = %q", base, p, got, up, want)
			}
		}
	}
}

// randomTree builds a workspace from random stage names, contracts,
// files, empty folders, symlinks and FIFOs. Names like "a", "a-b" and
// "a.b" side by side make walk order differ from byte order of paths.
func randomTree(r *rand.Rand) fstest.MapFS {
	m := fstest.MapFS{}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	chance := func(p float64) bool { return r.Float64() < p }
	odd := []string{"a", "a-b", "a.b", "a0", "a_b", "A", "b", "z", "a b", "é", "x.md", "X.MD", "notes.Md", "output", "references", "CONTEXT.md", "{{X}}.md"}
	texts := []string{"", "# Note\n", "Hello {{NAME}}, {{ x }} and {{y}}\n", "a {{ b\n}} c\r\n{{z}}\r\n", "{{a}}{{b}}{{c}}\n\nx {{d}}", strings.Repeat("line\n", MaxContextLines+r.IntN(2)), "no newline {{end}}"}
	var folders []string
	addTree := func(root string, depth int) {
		var walk func(dir string, depth int)
		walk = func(dir string, depth int) {
			for k := r.IntN(4); k > 0; k-- {
				p := path.Join(dir, pick(odd))
				switch {
				case depth > 0 && chance(0.3):
					walk(p, depth-1)
				case chance(0.1):
					setDir(m, p)
					folders = append(folders, p)
				case chance(0.07):
					m[p] = &fstest.MapFile{Data: []byte(pick([]string{"../a", "/etc", "x.md", "."})), Mode: fs.ModeSymlink | 0o777}
				case chance(0.03):
					m[p] = &fstest.MapFile{Mode: fs.ModeNamedPipe}
				default:
					setFile(m, p, pick(texts))
				}
			}
		}
		walk(root, depth)
	}
	// The root.
	for _, name := range []string{"CLAUDE.md", "AGENTS.md"} {
		if chance(0.6) {
			setFile(m, name, pick(texts))
		} else if chance(0.1) {
			setFile(m, name+"/x", "x")
		}
	}
	switch {
	case chance(0.85):
		setFile(m, "CONTEXT.md", pick(texts))
	case chance(0.3):
		setDir(m, "CONTEXT.md")
	}
	addTree(".", 2)
	addTree("_config", 1)
	if chance(0.3) {
		setDir(m, "shared")
	}
	// Stages.
	var stages []string
	switch {
	case chance(0.9):
		names := []string{"01-research", "02-draft", "02_draft", "03-publish", "01-Other", "research", "3-x", "10-final", "05-a.b", "04-x_y", "a-b", "01-research-x"}
		for k := r.IntN(5); k > 0; k-- {
			s := "stages/" + pick(names)
			if slices.Contains(stages, s) {
				continue
			}
			stages = append(stages, s)
			switch {
			case chance(0.7):
				setFile(m, s+"/output/.gitkeep", "")
			case chance(0.4):
				setDir(m, s+"/output")
			case chance(0.3):
				setFile(m, s+"/output", "x")
			}
			switch {
			case chance(0.7):
				addTree(s+"/references", 2)
				setFile(m, s+"/references/rules.md", pick(texts))
			case chance(0.2):
				setFile(m, s+"/references", "x")
			}
			if chance(0.3) {
				addTree(s, 1)
			}
		}
		if chance(0.2) {
			setFile(m, "stages/README.md", "# Stages\n")
		}
		if len(stages) == 0 {
			setDir(m, "stages")
		}
	case chance(0.5):
		setFile(m, "stages", "x")
	}
	// Contracts last, naming entries that exist (and some that do not).
	var listed []string
	_ = fs.WalkDir(m, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != "." {
			listed = append(listed, p)
			if d.IsDir() && chance(0.5) {
				listed = append(listed, p+"/")
			}
		}
		return nil
	})
	for _, s := range stages {
		if chance(0.1) {
			continue
		}
		if chance(0.05) {
			m[s+"/CONTEXT.md"] = &fstest.MapFile{Data: []byte("x"), Mode: fs.ModeSymlink | 0o777}
			continue
		}
		setFile(m, s+"/CONTEXT.md", randomContract(r, s, stages, listed))
	}
	return m
}

// randomContract writes a stage contract for the stage folder s.
func randomContract(r *rand.Rand, s string, stages, listed []string) string {
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	chance := func(p float64) bool { return r.Float64() < p }
	var b strings.Builder
	switch {
	case chance(0.4):
		b.WriteString("---\nmcp:\n  tools:\n    - vault_file_info\n    - vault_file_read\n---\n")
	case chance(0.2):
		b.WriteString(pick([]string{
			"---\nmcp: {tools: [vault_file_info]}\n---\n",
			"---\nmcp:\n  tools:\n    - vault_file_delete\n---\n",
			"---\nmcp:\n  tools:\n    - vault_file_info\n    - vault_file_info\n---\n",
			"---\nmcp:\n  tools:\n    - true\n---\n",
			"---\nmcp:\n  tools:\n",
		}))
	}
	b.WriteString("# Stage\n\nDo {{THING}} well.\n\n")
	path := func() string {
		switch {
		case chance(0.5) && len(listed) > 0:
			p := pick(listed)
			switch {
			case chance(0.3) && strings.HasPrefix(p, s+"/"):
				return strings.TrimPrefix(p, s+"/")
			case chance(0.3):
				return "../" + strings.TrimPrefix(p, "stages/")
			case chance(0.2):
				return "./" + p
			}
			return p
		case chance(0.3) && len(stages) > 0:
			return "../" + strings.TrimPrefix(pick(stages), "stages/") + "/output/"
		}
		return pick([]string{"references/rules.md", "_config/voice.md", "../../x", "/etc/passwd", "./references/", ".", "..", "../", "a-b/x.md", "a/x.md", "{{x}}/y.md", "[prose]", "output/", "x//y", "a/../a-b", "https://x/y", "—", "`a` and `b`"})
	}
	headings := []string{"Inputs", "Process", "Outputs"}
	if chance(0.1) {
		headings[0], headings[2] = headings[2], headings[0]
	}
	if chance(0.1) {
		headings = headings[:2]
	}
	for _, h := range headings {
		fmt.Fprintf(&b, "## %s\n\n", h)
		switch h {
		case "Inputs":
			b.WriteString(pick([]string{"| Source | File/Location | Why |\n|---|---|---|\n", "| Path | Why |\n| :-- | --: |\n", "| Where | Why |\n|---|---|\n"}))
			for k := r.IntN(5); k > 0; k-- {
				fmt.Fprintf(&b, "| src | `%s` | why |\n", path())
			}
			b.WriteString("\n")
		case "Outputs":
			b.WriteString("| Artifact | Location | Format |\n|---|---|---|\n")
			for k := r.IntN(3); k > 0; k-- {
				fmt.Fprintf(&b, "| out | %s | md |\n", path())
			}
		default:
			b.WriteString("1. Work.\n\n")
		}
	}
	if chance(0.05) {
		b.WriteString(strings.Repeat("\n", MaxContextLines))
	}
	out := b.String()
	if chance(0.1) {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out
}

// TestEntriesRandomTrees compares ValidateEntries and ValidateTools on a
// few hundred random trees, every fifth also on disk (with real symlinks
// and FIFOs where the OS has them), and each tree's findings with the
// digest in testdata/random.golden (-update rewrites it; with -short the
// first 60 trees are compared).
func TestEntriesRandomTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(20261129, 7))
	n := 300
	if testing.Short() {
		n = 60
	}
	findings := 0
	digests := make([]string, n)
	for i := range n {
		m := randomTree(r)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			got, err := checkSame(t, m, KnownTools())
			if err != nil {
				t.Fatal(err)
			}
			findings += len(got)
			sum := sha256.Sum256([]byte(dump(got)))
			digests[i] = fmt.Sprintf("tree %d: %d findings, sha256 %x\n", i, len(got), sum[:8])
			if i%5 == 0 {
				if disk := diskFS(t, m); disk != nil {
					if dgot, err := checkSame(t, disk, KnownTools()); err != nil || !reflect.DeepEqual(dgot, got) {
						t.Fatalf("on disk: %v\n%s\non a MapFS:\n%s", err, dump(dgot), dump(got))
					}
				}
			}
		})
	}
	if findings < n {
		t.Errorf("%d findings in %d trees: the trees are too tame", findings, n)
	}
	got := strings.Join(digests, "")
	if testing.Short() && !*update {
		want, err := os.ReadFile(filepath.Join("testdata", "random.golden"))
		if err != nil || !strings.HasPrefix(string(want), got) {
			t.Fatalf("the first %d trees' findings differ from testdata/random.golden (%v)", n, err)
		}
		return
	}
	golden(t, "random.golden", got)
}

// listingTypes maps a fuzz listing's type letters to type bits.
var listingTypes = map[byte]fs.FileMode{
	'f': 0, 'd': fs.ModeDir, 'l': fs.ModeSymlink, 'p': fs.ModeNamedPipe,
	's': fs.ModeSocket, 'c': fs.ModeDevice | fs.ModeCharDevice, 'i': fs.ModeIrregular,
}

// listingTexts are the contents a fuzz listing's files can have.
var listingTexts = []string{"", "# Workspace\n", research, draft, "{{X}}\n", "# Rules\n", strings.Repeat("x\n", MaxContextLines+1)}

// encodeListing encodes a listing of m for FuzzValidateEntries: a line per
// entry, a type letter, a digit for the content, then the path.
func encodeListing(tb testing.TB, m fstest.MapFS) string {
	var b strings.Builder
	for _, e := range walkListing(tb, m) {
		t := byte('f')
		for k, v := range listingTypes {
			if v == e.Type {
				t = k
			}
		}
		c := 0
		if f := m[e.Path]; f != nil {
			c = max(slices.Index(listingTexts, string(f.Data)), 0)
		}
		fmt.Fprintf(&b, "%c%d%s\n", t, c, e.Path)
	}
	return b.String()
}

// FuzzValidateEntries feeds arbitrary listings to ValidateEntries: it never
// panics; it refuses with a listing error exactly the listings that are no
// walk of a tree; and on one that is, it agrees with ValidateTools on a
// MapFS holding those entries.
func FuzzValidateEntries(f *testing.F) {
	m := baseFS()
	f.Add(encodeListing(f, m))
	setFile(m, "a-b", "x")
	setFile(m, "a/x.md", "{{X}}\n")
	setDir(m, "a.b")
	m["_config/link"] = &fstest.MapFile{Mode: fs.ModeSymlink}
	m["p"] = &fstest.MapFile{Mode: fs.ModeNamedPipe}
	delete(m, c2)
	f.Add(encodeListing(f, m))
	f.Add("f0b\nf0a\n")
	f.Add("d0a\nf0a/b\nf0a-b\n")
	f.Add("d0a\nf0a-b\nf0a/b\n")
	f.Add("f0a\nf0a/b\n")
	f.Add("d0a\nd0a/\n")
	f.Add("f0/x\n")
	f.Add("d0.\n")
	f.Add("d0stages\nd0stages/01-x\nf3stages/01-x/CONTEXT.md\nd0stages/01-x/output\n")
	f.Fuzz(func(t *testing.T, listing string) {
		var entries []Entry
		m := fstest.MapFS{}
		valid := true // every path valid and unique: m can hold the tree
		for _, line := range strings.Split(listing, "\n") {
			if len(line) < 2 {
				continue
			}
			typ, ok := listingTypes[line[0]]
			if !ok {
				typ = fs.FileMode(line[0]) << 24 // arbitrary bits
			}
			p := line[2:]
			entries = append(entries, Entry{p, typ})
			if !fs.ValidPath(p) || p == "." || m[p] != nil {
				valid = false
				continue
			}
			f := &fstest.MapFile{Mode: typ}
			if typ == 0 {
				f.Data = []byte(listingTexts[int(line[1])%len(listingTexts)])
			}
			m[p] = f
		}
		got, err := ValidateEntries(m, entries, KnownTools())
		if slices.ContainsFunc(entries, func(e Entry) bool { return !utf8.ValidString(e.Path) }) {
			return // a MapFS cannot hold the tree: fs.ValidPath wants UTF-8
		}
		if err != nil && !strings.HasPrefix(err.Error(), "icm: listing entry ") {
			t.Fatalf("ValidateEntries: %v (not a listing error)", err)
		}
		if err != nil && got != nil {
			t.Fatalf("findings %v with error %v", got, err)
		}
		isWalk := false
		if valid {
			var walk []Entry
			werr := fs.WalkDir(m, ".", func(p string, d fs.DirEntry, err error) error {
				if err == nil && p != "." {
					walk = append(walk, Entry{p, d.Type()})
				}
				return err
			})
			// Type bits only: the others (permissions) mean nothing here.
			isWalk = werr == nil && slices.EqualFunc(walk, entries, func(a, b Entry) bool {
				return a.Path == b.Path && a.Type == b.Type&fs.ModeType
			})
		}
		if isWalk != (err == nil) {
			t.Fatalf("listing is a walk: %v; ValidateEntries error: %v", isWalk, err)
		}
		if !isWalk {
			return
		}
		if tools, err := ValidateTools(m, KnownTools()); err != nil || !reflect.DeepEqual(tools, got) {
			t.Fatalf("ValidateTools = %v\n%s\nValidateEntries:\n%s", err, dump(tools), dump(got))
		}
	})
}

// contentSeeds are FuzzValidateContent's seeds (and TestGoldenContent's
// cases).
func contentSeeds() []string {
	return append(slices.Clone(policySeeds),
		"## Inputs\n| File |\n|-|\n| `../../x` |\n## Process\n## Outputs\n| Location |\n|-|\n| /etc |\n",
		"```\n## Inputs\n```\n## Inputs\n~~~~\n## Process\n~~~\n## Outputs ##\n{{x}}\n",
		"## Inputs\r\n\r\n| Source | `File` \\| x | LOCATİON |\r\n|---|---|---|\r\n| a | `x` | ``a`b`` `c` |\r\n| b \\| c | d\\\\| e |\r\n",
		"## Inputs\n\n| Path |\n|---|\n| ../01-research/output/ and 01-research/output |\n| ./../02-draft/./references// |\n",
		"{{a}} {{b}}\r\n{{c\r}}\n}}{{d}}{{\n",
	)
}

// contentRun is one tree FuzzValidateContent validates.
type contentRun struct {
	fsys  fstest.MapFS
	known []string
}

func (r contentRun) validate() ([]Finding, error) { return ValidateTools(r.fsys, r.known) }

// contentRuns puts content in a stage contract and a note (all tools
// known), then also in the root and the first stage contract (two known).
func contentRuns(content string) []contentRun {
	m := baseFS()
	setFile(m, c2, content)
	setFile(m, "shared/note.md", content)
	m2 := maps.Clone(m)
	setFile(m2, "CONTEXT.md", content)
	setFile(m2, c1, content)
	return []contentRun{{m, KnownTools()}, {m2, narrowKnown}}
}

// FuzzValidateContent puts arbitrary text in a stage contract, the root
// contract and a note: ValidateTools never panics and ValidateEntries on a
// walk agrees with it (the seeds' findings are golden: TestGoldenContent).
func FuzzValidateContent(f *testing.F) {
	for _, s := range contentSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		for _, run := range contentRuns(content) {
			checkSame(t, run.fsys, run.known)
		}
	})
}

// helperSeeds are FuzzHelpers' seeds (and TestGoldenHelpers' cases).
func helperSeeds() []string {
	seeds := []string{
		"| a | `b` | c\\|d |", "|x|", "`a` `b`", "``a`b``", "\\|", "a\\", "| File/Location |", "LOCATİON", "file", " Fi_le* ",
		"../01-research/output/", "01-research/output-x", "x\n01-research/output", "01-research/output.md",
		"a\r\nb\n\nc", "\n", "x\r", "../../a/./b//", ".", "..",
	}
	seeds = append(seeds, policySeeds...)
	return append(seeds,
		"---\nmcp:\n  tools:\n    - vault_file_info\n    - vault_file_read\n---\n",
		"---\r\nmcp:\r\n  tools:\r\n    - vault_file_info\r\n---\r\n")
}

// FuzzHelpers checks the allocation-light Markdown helpers' invariants
// (their outputs on the seeds are golden: TestGoldenHelpers), join against
// path.Join, and the canonical policy reader against the YAML one.
func FuzzHelpers(f *testing.F) {
	for _, s := range helperSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var cells []string
		for _, row := range strings.Split(s, "\n") {
			cells = append(cells, splitCells(nil, row)...)
		}
		if i := locationColumn(cells); i < -1 || i >= len(cells) {
			t.Fatalf("locationColumn(%q) = %d: out of range", cells, i)
		}
		for _, c := range append(cells, s) {
			cellPaths(c, func(string) {}) // never panics
		}
		lines := splitLines([]byte(s))
		if countLines([]byte(s)) != len(lines) {
			t.Fatalf("splitLines(%q): %d lines, countLines %d", s, len(lines), countLines([]byte(s)))
		}
		for i, l := range lines {
			if l.start > l.end || l.end > len(s) || !strings.HasPrefix(s[l.start:], l.text) || i > 0 && l.start <= lines[i-1].start {
				t.Fatalf("splitLines(%q)[%d] = %+v: not a line of the text, in order", s, i, l)
			}
		}
		for _, prev := range []string{"01-research", "02_draft"} {
			if mentionsOutput(s, prev) && !strings.Contains(s, prev+"/output") {
				t.Fatalf("mentionsOutput(%q, %q) without %s/output in the text", s, prev, prev)
			}
		}
		for _, base := range []string{"", "stages/02-draft"} {
			if strings.HasPrefix(s, "/") {
				break // resolve never joins an absolute path
			}
			c, up := join(base, s)
			want := cmp.Or(path.Join(base, s), ".") // resolve never joins ""
			got := c.String()
			if got == "" {
				got = "."
			}
			if wantUp := want == ".." || strings.HasPrefix(want, "../"); up != wantUp || !up && got != want {
				t.Fatalf("join(%q, %q) = %q, %v; path.Join = %q", base, s, got, up, want)
			}
		}
		for _, known := range [][]string{KnownTools(), narrowKnown} {
			fast, err := parsePolicy([]byte(s), splitLines([]byte(s)), known, policyFast)
			slow, serr := parsePolicy([]byte(s), splitLines([]byte(s)), known, policyYAML)
			if !reflect.DeepEqual(fast, slow) || errString(err) != errString(serr) {
				t.Fatalf("parsePolicy(%q): canonical %v, %v; YAML %v, %v", s, fast, err, slow, serr)
			}
			check, err := parsePolicy([]byte(s), splitLines([]byte(s)), known, policyCheck)
			if check != nil && !reflect.DeepEqual(check, slow) || errString(err) != errString(serr) {
				t.Fatalf("parsePolicy(%q) checking: %v, %v; YAML %v, %v", s, check, err, slow, serr)
			}
		}
	})
}
