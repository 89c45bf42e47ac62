package checkfmt

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/jsonschema"
)

// sample is a report with an error on a line, a warning, a finding on the
// root and a message that needs escaping in every format.
func sample(strict bool) *Report {
	return &Report{
		Source: "disk", Root: "ws", Files: 12, Strict: strict,
		Findings: []icm.Finding{
			{Rule: icm.RuleRootFiles, Severity: icm.SeverityError, Message: "missing CONTEXT.md"},
			{Rule: icm.RuleStageHeadings, Severity: icm.SeverityError, Path: "stages/01-a/CONTEXT.md", Line: 7, Message: `heading "## Process" out of order: 50% <done>, a:b`},
			{Rule: icm.RulePlaceholder, Severity: icm.SeverityWarning, Path: "stages/01-a/references/x.md", Line: 3, Message: "placeholder {{NAME}}\nleft"},
		},
		Rules: []Rule{{icm.RuleRootFiles, icm.SeverityError, "root"}, {icm.RuleStageHeadings, icm.SeverityError, "headings"}, {icm.RulePlaceholder, icm.SeverityWarning, "placeholder"}},
	}
}

// TestSARIFSchema validates the SARIF output against the official SARIF
// 2.1.0 JSON schema (OASIS errata01, as the Go module
// github.com/owenrumney/go-sarif/v3 v3.3.1 ships it in
// pkg/report/v210/sarif/schema.go; copied to testdata).
func TestSARIFSchema(t *testing.T) {
	raw, err := os.ReadFile("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Compile(doc, &jsonschema.Options{URL: "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"})
	if err != nil {
		t.Fatalf("compile the SARIF schema: %v", err)
	}
	for _, tc := range []struct {
		name string
		r    *Report
	}{
		{"findings", sample(false)},
		{"strict", sample(true)},
		{"clean", &Report{Source: "index", Files: 3, Valid: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, "sarif", tc.r); err != nil {
				t.Fatal(err)
			}
			v, err := jsonschema.Unmarshal(b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(v); err != nil {
				t.Fatalf("SARIF output fails the schema: %v\n%s", err, b.String())
			}
			results := v.(map[string]any)["runs"].([]any)[0].(map[string]any)["results"].([]any)
			if len(results) != len(tc.r.Findings) {
				t.Fatalf("%d results for %d findings", len(results), len(tc.r.Findings))
			}
		})
	}
	// The schema does refuse a broken log, so the check above can fail.
	bad, _ := jsonschema.Unmarshal([]byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{}},"results":[]}]}`))
	if err := schema.Validate(bad); err == nil {
		t.Fatal("a run whose driver has no name passed the schema")
	}
}

func TestSARIFLocations(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "sarif", sample(false)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`"uri": "ws"`, `"uri": "ws/stages/01-a/CONTEXT.md"`, `"startLine": 7`, `"level": "warning"`, `"ruleIndex": 2`} {
		if !strings.Contains(out, want) {
			t.Errorf("SARIF lacks %s:\n%s", want, out)
		}
	}
}

func TestGitHub(t *testing.T) {
	for _, tc := range []struct {
		name   string
		strict bool
		want   []string
	}{
		{"default", false, []string{
			"::error file=ws,title=tv check%3A root-files::missing CONTEXT.md",
			`::error file=ws/stages/01-a/CONTEXT.md,line=7,title=tv check%3A stage-headings::heading "## Process" out of order: 50%25 <done>, a:b`,
			"::warning file=ws/stages/01-a/references/x.md,line=3,title=tv check%3A placeholder::placeholder {{NAME}}%0Aleft",
			"::notice title=tv check::failed: 12 files, 2 errors, 1 warnings",
		}},
		{"strict", true, []string{
			"::error file=ws/stages/01-a/references/x.md,line=3,title=tv check%3A placeholder::placeholder {{NAME}}%0Aleft",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, "github", sample(tc.strict)); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(b.String(), "\n")
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || l == w
				}
				if !found {
					t.Errorf("no line %q in\n%s", w, b.String())
				}
			}
		})
	}
	if got := escapeProperty("a,b:c%\n"); got != "a%2Cb%3Ac%25%0A" {
		t.Errorf("escapeProperty = %q", got)
	}
}

func TestJUnit(t *testing.T) {
	for _, tc := range []struct {
		name           string
		r              *Report
		tests, failing int
	}{
		{"default", sample(false), 3, 2},
		{"strict", sample(true), 3, 3},
		{"clean", &Report{Source: "disk", Files: 4, Valid: true}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, "junit", tc.r); err != nil {
				t.Fatal(err)
			}
			var doc xmlSuites
			if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("not XML: %v\n%s", err, b.String())
			}
			if doc.Tests != tc.tests || doc.Failures != tc.failing || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != tc.tests {
				t.Fatalf("tests=%d failures=%d, want %d and %d:\n%s", doc.Tests, doc.Failures, tc.tests, tc.failing, b.String())
			}
			n := 0
			for _, c := range doc.Suites[0].Cases {
				if c.Failure != nil {
					n++
				}
			}
			if n != tc.failing {
				t.Fatalf("%d <failure> elements, want %d", n, tc.failing)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	for _, f := range Formats {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, f, sample(false)); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "CONTEXT.md") {
				t.Fatalf("%s output names no file:\n%s", f, b.String())
			}
		})
	}
	if err := Write(&bytes.Buffer{}, "xml", sample(false)); !errors.Is(err, ErrFormat) {
		t.Fatalf("unknown format: %v", err)
	}
}
