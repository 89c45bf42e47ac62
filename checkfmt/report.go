package checkfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/thalix/tv/icm"
)

// ErrFormat is wrapped by Write's error for an unknown format.
var ErrFormat = errors.New("unknown report format")

// Formats lists the format names Write knows, the default first.
var Formats = []string{"text", "json", "sarif", "github", "junit"}

// Rule describes a rule findings may name (SARIF lists them).
type Rule struct {
	ID       string
	Severity icm.Severity
	Summary  string
}

// Report is the outcome of one check.
type Report struct {
	// Source says what was checked: "disk", "index" or "rev REV".
	Source string `json:"source"`
	// Root is the checked folder's slash path relative to the repository
	// (or current) folder the CI reads paths from; "" or "." is that folder
	// itself. Finding paths are prefixed with it.
	Root     string        `json:"root"`
	Files    int           `json:"files"`
	Ignored  int           `json:"ignored"`
	Strict   bool          `json:"strict"`
	Valid    bool          `json:"valid"`
	Findings []icm.Finding `json:"findings"`
	// Rules describes every rule id a finding may carry.
	Rules []Rule `json:"-"`
}

// Failed reports whether the check fails: an error, or with Strict any
// finding.
func (r *Report) Failed() bool {
	return !r.Valid || r.Strict && len(r.Findings) > 0
}

// Count returns the number of findings of severity s.
func (r *Report) Count(s icm.Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// file is a finding's file as the CI sees it: Root joined with the
// finding's path (the root folder itself for a finding on the tree).
func (r *Report) file(f icm.Finding) string {
	root := r.Root
	if root == "" {
		root = "."
	}
	return path.Join(root, f.Path)
}

// failing reports whether finding f fails the check.
func (r *Report) failing(f icm.Finding) bool {
	return f.Severity == icm.SeverityError || r.Strict
}

// Write writes r to w in format (one of Formats).
func Write(w io.Writer, format string, r *Report) error {
	switch format {
	case "text", "":
		return writeText(w, r)
	case "json":
		doc := *r
		doc.Findings = nonNil(r.Findings)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(doc)
	case "sarif":
		return writeSARIF(w, r)
	case "github":
		return writeGitHub(w, r)
	case "junit":
		return writeJUnit(w, r)
	}
	return fmt.Errorf("%w %q: use one of %s", ErrFormat, format, strings.Join(Formats, ", "))
}

func writeText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "checked %s (%s): %d files", r.file(icm.Finding{}), r.Source, r.Files)
	if r.Ignored > 0 {
		fmt.Fprintf(&b, ", %d ignored by .gitignore", r.Ignored)
	}
	b.WriteString("\n")
	if len(r.Findings) > 0 {
		fmt.Fprintf(&b, "ICM findings: %d errors, %d warnings\n", r.Count(icm.SeverityError), r.Count(icm.SeverityWarning))
		for _, f := range r.Findings {
			loc := r.file(f)
			if f.Line > 0 {
				loc = fmt.Sprintf("%s:%d", loc, f.Line)
			}
			fmt.Fprintf(&b, "  %-7s %-15s %s: %s\n", f.Severity, f.Rule, loc, f.Message)
		}
	}
	switch {
	case !r.Valid:
		b.WriteString("INVALID: fix the errors above\n")
	case r.Failed():
		b.WriteString("FAILED: --strict fails on warnings\n")
	default:
		b.WriteString("valid\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeGitHub writes one workflow command per finding, then a notice
// with the totals.
func writeGitHub(w io.Writer, r *Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		cmd := "warning"
		if r.failing(f) {
			cmd = "error"
		}
		props := "file=" + escapeProperty(r.file(f))
		if f.Line > 0 {
			props += fmt.Sprintf(",line=%d", f.Line)
		}
		props += ",title=" + escapeProperty("tv check: "+f.Rule)
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, props, escapeData(f.Message))
	}
	verdict := "valid"
	if r.Failed() {
		verdict = "failed"
	}
	fmt.Fprintf(&b, "::notice title=tv check::%s: %d files, %d errors, %d warnings\n", verdict, r.Files, r.Count(icm.SeverityError), r.Count(icm.SeverityWarning))
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeData escapes a workflow command's message as the Actions toolkit
// does.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ruleIndex returns the index of id in rules, or -1.
func ruleIndex(rules []Rule, id string) int {
	return slices.IndexFunc(rules, func(r Rule) bool { return r.ID == id })
}
