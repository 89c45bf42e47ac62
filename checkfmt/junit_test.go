package checkfmt

import (
	"bytes"
	"encoding/xml"
	"io"
	"testing"

	"github.com/thalix/tv/icm"
)

// The JUnit document as encoding/xml reads and writes it: the reference
// junitXML's output is compared with.
type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name     string    `xml:"name,attr"`
	Tests    int       `xml:"tests,attr"`
	Failures int       `xml:"failures,attr"`
	Errors   int       `xml:"errors,attr"`
	Cases    []xmlCase `xml:"testcase"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr"`
	File      string      `xml:"file,attr,omitempty"`
	Line      int         `xml:"line,attr,omitempty"`
	Failure   *xmlFailure `xml:"failure,omitempty"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type xmlFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// encodingXML is suite s as encoding/xml's Encoder writes it with a
// two-space indent (what writeJUnit wrote before junitXML).
func encodingXML(t testing.TB, s junitSuite) string {
	xs := xmlSuite{Name: s.Name, Tests: s.Tests, Failures: s.Failures}
	for _, c := range s.Cases {
		xc := xmlCase{Name: c.Name, Classname: c.Classname, File: c.File, Line: c.Line, SystemOut: c.SystemOut}
		if f := c.Failure; f != nil {
			xc.Failure = &xmlFailure{Message: f.Message, Type: f.Type, Text: f.Text}
		}
		xs.Cases = append(xs.Cases, xc)
	}
	var b bytes.Buffer
	io.WriteString(&b, xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(xmlSuites{Name: "tv check", Tests: s.Tests, Failures: s.Failures, Suites: []xmlSuite{xs}}); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	return b.String()
}

// TestJUnitMatchesEncodingXML: junitXML writes, byte for byte, what
// encoding/xml writes for the same suite.
func TestJUnitMatchesEncodingXML(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *Report
	}{
		{"default", sample(false)},
		{"strict", sample(true)},
		{"clean", &Report{Source: "disk", Files: 4, Valid: true}},
		{"markup", &Report{Source: "disk", Root: `a&b<"c">'d'`, Findings: []icm.Finding{
			{Rule: icm.RulePlaceholder, Severity: icm.SeverityWarning, Path: "x\ty\r.md", Line: 2, Message: "bad \x00\x1f\xff\ufffe byte \U0001F600 ]]> &amp;"},
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeJUnit(&b, tc.r); err != nil {
				t.Fatal(err)
			}
			if want := encodingXML(t, junitSuiteOf(tc.r)); b.String() != want {
				t.Fatalf("junitXML wrote\n%s\nencoding/xml writes\n%s", b.String(), want)
			}
		})
	}
}

// FuzzJUnitMatchesEncodingXML: for any finding's path, message and line,
// junitXML writes what encoding/xml writes.
func FuzzJUnitMatchesEncodingXML(f *testing.F) {
	f.Add("stages/01-a/CONTEXT.md", `heading "x" <y> & 'z'`, 7, true)
	f.Add("a\tb", "\x00\xff\n\r", 0, false)
	f.Fuzz(func(t *testing.T, path, msg string, line int, failing bool) {
		c := junitCase{Name: path, Classname: "tv.check." + msg, File: path, Line: line}
		if failing {
			c.Failure = &junitFailure{Message: msg, Type: path, Text: path + ": " + msg}
		} else {
			c.SystemOut = msg
		}
		s := junitSuite{Name: msg, Tests: 2, Failures: 1, Cases: []junitCase{c, {Name: path, Classname: "tv.check"}}}
		if got, want := junitXML(s), encodingXML(t, s); got != want {
			t.Fatalf("junitXML wrote\n%q\nencoding/xml writes\n%q", got, want)
		}
	})
}
