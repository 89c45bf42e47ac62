package icm

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thalix/tv/starter"
)

// update rewrites the golden files under testdata/ with what the code
// finds now: `go test ./icm -run Golden -update`, then review the diff.
// They froze the map-based validator's findings when ValidateEntries
// replaced it (the old validator was the tests' oracle until then).
var update = flag.Bool("update", false, "rewrite icm's golden files under testdata/")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run `go test ./icm -run Golden -update` to write it", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\ngot  %s\nwant %s\n(if the change is meant, run `go test ./icm -run Golden -update` and review the diff)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: got %d lines, want %d (if the change is meant, run `go test ./icm -run Golden -update` and review the diff)", path, len(gl), len(wl))
	}
}

// findingsText is the golden form of a validation's result.
func findingsText(got []Finding, err error) string {
	if err != nil {
		return "  error: " + err.Error() + "\n"
	}
	if len(got) == 0 {
		return "  (no findings)\n"
	}
	return dump(got)
}

// knownLabel names a known-tools list in golden files.
func knownLabel(known []string) string {
	if len(known) == len(narrowKnown) {
		return "narrow"
	}
	return "all tools"
}

// TestGoldenFindings: every TestValidate case, with all tools known and
// with two, and the starter, give the findings of
// testdata/findings.golden; on a MapFS and on disk ValidateEntries agrees
// with ValidateTools (checkSame).
func TestGoldenFindings(t *testing.T) {
	var b strings.Builder
	for _, tc := range validateCases() {
		m := baseFS()
		tc.mutate(t, m)
		disk := diskFS(t, m)
		for _, known := range [][]string{KnownTools(), narrowKnown} {
			got, err := checkSame(t, m, known)
			fmt.Fprintf(&b, "== %s (%s)\n%s", tc.name, knownLabel(known), findingsText(got, err))
			if disk != nil { // may lack what the OS cannot make (devices)
				checkSame(t, disk, known)
			}
		}
	}
	for _, known := range [][]string{KnownTools(), narrowKnown} {
		got, err := checkSame(t, starter.FS(), known)
		fmt.Fprintf(&b, "== starter (%s)\n%s", knownLabel(known), findingsText(got, err))
	}
	golden(t, "findings.golden", b.String())
}

// TestGoldenContent: the content seeds of FuzzValidateContent give the
// findings of testdata/content.golden.
func TestGoldenContent(t *testing.T) {
	var b strings.Builder
	for i, s := range contentSeeds() {
		for j, run := range contentRuns(s) {
			got, err := run.validate()
			fmt.Fprintf(&b, "== seed %d run %d %.60q\n%s", i, j, s, findingsText(got, err))
		}
	}
	golden(t, "content.golden", b.String())
}

// TestGoldenHelpers: the Markdown helpers on FuzzHelpers' seeds give
// testdata/helpers.golden.
func TestGoldenHelpers(t *testing.T) {
	var b strings.Builder
	for _, s := range helperSeeds() {
		fmt.Fprintf(&b, "== %q\n", s)
		var cells []string
		for _, row := range strings.Split(s, "\n") {
			got := splitCells(nil, row)
			fmt.Fprintf(&b, "  splitCells(%q) = %q\n", row, got)
			cells = append(cells, got...)
		}
		fmt.Fprintf(&b, "  locationColumn = %d\n", locationColumn(cells))
		for _, c := range append(cells, s) {
			var got []string
			cellPaths(c, func(p string) { got = append(got, p) })
			fmt.Fprintf(&b, "  cellPaths(%q) = %q\n", c, got)
		}
		for _, l := range splitLines([]byte(s)) {
			fmt.Fprintf(&b, "  line %d-%d %q\n", l.start, l.end, l.text)
		}
		for _, prev := range []string{"01-research", "02_draft"} {
			fmt.Fprintf(&b, "  mentionsOutput(%q) = %v\n", prev, mentionsOutput(s, prev))
		}
	}
	golden(t, "helpers.golden", b.String())
}
