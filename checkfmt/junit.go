package checkfmt

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/thalix/tv/icm"
)

// junitSuite is the one <testsuite> of a report: its test cases are the
// findings.
type junitSuite struct {
	Name     string
	Tests    int
	Failures int
	Cases    []junitCase
}

// junitCase is one <testcase>: a failing finding carries a <failure>, any
// other its text as <system-out>.
type junitCase struct {
	Name, Classname, File string
	Line                  int
	Failure               *junitFailure
	SystemOut             string
}

// junitFailure is a <failure> element.
type junitFailure struct {
	Message, Type, Text string
}

// writeJUnit writes the report as one JUnit test suite (junitSuiteOf).
func writeJUnit(w io.Writer, r *Report) error {
	_, err := io.WriteString(w, junitXML(junitSuiteOf(r)))
	return err
}

// junitSuiteOf is the report's test suite: its test cases are the
// findings (failing ones carry a <failure>); a tree without findings is
// one passing case, so the report is never empty.
func junitSuiteOf(r *Report) junitSuite {
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
	return s
}

// junitXML is the report's JUnit XML document, laid out as encoding/xml's
// Encoder with a two-space indent lays it out (TestJUnitMatchesEncodingXML):
// written here, not through that package, whose initialisation costs
// every tv process ~0.4 ms of start-up on the benchmark machine.
func junitXML(s junitSuite) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(&b, "<testsuites name=\"tv check\" tests=\"%d\" failures=\"%d\">\n", s.Tests, s.Failures)
	fmt.Fprintf(&b, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"0\">", xmlEscape(s.Name), s.Tests, s.Failures)
	for _, c := range s.Cases {
		fmt.Fprintf(&b, "\n    <testcase name=\"%s\" classname=\"%s\"", xmlEscape(c.Name), xmlEscape(c.Classname))
		if c.File != "" {
			fmt.Fprintf(&b, " file=\"%s\"", xmlEscape(c.File))
		}
		if c.Line != 0 {
			fmt.Fprintf(&b, " line=\"%d\"", c.Line)
		}
		b.WriteString(">")
		switch {
		case c.Failure != nil:
			fmt.Fprintf(&b, "\n      <failure message=\"%s\" type=\"%s\">%s</failure>\n    ", xmlEscape(c.Failure.Message), xmlEscape(c.Failure.Type), xmlEscape(c.Failure.Text))
		case c.SystemOut != "":
			fmt.Fprintf(&b, "\n      <system-out>%s</system-out>\n    ", xmlEscape(c.SystemOut))
		}
		b.WriteString("</testcase>")
	}
	b.WriteString("\n  </testsuite>\n</testsuites>\n")
	return b.String()
}

// xmlEscape escapes s for an XML attribute value or character data as
// encoding/xml's EscapeText does: the five markup characters and tab,
// newline and carriage return as character references, and a code point
// XML cannot hold (or a byte that is not UTF-8) as U+FFFD.
func xmlEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '"':
			b.WriteString("&#34;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\t':
			b.WriteString("&#x9;")
		case r == '\n':
			b.WriteString("&#xA;")
		case r == '\r':
			b.WriteString("&#xD;")
		case !xmlChar(r) || (r == utf8.RuneError && n == 1):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// xmlChar reports whether XML 1.0 allows code point r in a document.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
