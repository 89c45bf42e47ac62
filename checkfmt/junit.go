package checkfmt

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/thalix/tv/icm"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes one test suite whose test cases are the findings
// (failing ones carry a <failure>); a tree without findings is one
// passing case, so the report is never empty.
func writeJUnit(w io.Writer, r *Report) error {
	s := junitSuite{Name: "tv check " + r.file(icm.Finding{})}
	for _, f := range r.Findings {
		loc := r.file(f)
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, f.Line)
		}
		c := junitCase{Name: fmt.Sprintf("%s %s: %s", f.Severity, f.Rule, loc), Classname: "tv.check." + f.Rule, File: r.file(f), Line: f.Line}
		if r.failing(f) {
			c.Failure = &junitFailure{Message: f.Message, Type: f.Rule, Text: loc + ": " + f.Message}
			s.Failures++
		} else {
			c.SystemOut = loc + ": " + f.Message
		}
		s.Cases = append(s.Cases, c)
	}
	if len(s.Cases) == 0 {
		s.Cases = []junitCase{{Name: fmt.Sprintf("ICM validation (%d files)", r.Files), Classname: "tv.check"}}
	}
	s.Tests = len(s.Cases)
	doc := junitSuites{Name: "tv check", Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
