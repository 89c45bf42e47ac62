package hook

import (
	"fmt"
	"io"
	"strings"
)

// Code is the class of a refusal. A tv client maps it to its exit code.
type Code string

// The refusal codes and the tv exit code each maps to.
const (
	CodeInvalidTree Code = "invalid-tree"      // exit 3: the tree breaks an ICM error rule
	CodeConflict    Code = "conflict"          // exit 4: not a descendant, exists, name taken
	CodePermission  Code = "permission-denied" // exit 5: rank or identity missing
	CodeRefused     Code = "input-refused"     // exit 7: unsafe path, malformed, over a limit
	CodeNotTvRef    Code = "not-a-tv-ref"      // exit 7: a ref outside tv's namespaces
)

// Refusal is one problem of a push, printed as one line
// "tv: <code>: <message>".
type Refusal struct {
	Code    Code
	Ref     string // the ref it concerns; "" for the whole push
	Message string
}

// String renders the refusal line (without the newline). Line breaks in
// the message become spaces so one problem is always one line.
func (r Refusal) String() string {
	msg := r.Message
	if r.Ref != "" {
		msg = r.Ref + ": " + msg
	}
	msg = strings.Map(func(c rune) rune {
		if c == '\n' || c == '\r' {
			return ' '
		}
		return c
	}, msg)
	return fmt.Sprintf("tv: %s: %s", r.Code, msg)
}

// refusals collects the problems of one push.
type refusals struct{ list []Refusal }

func (rs *refusals) add(code Code, ref, format string, args ...any) {
	rs.list = append(rs.list, Refusal{Code: code, Ref: ref, Message: fmt.Sprintf(format, args...)})
}

// print writes one line per refusal, at most MaxRefusalLines of them.
func (rs *refusals) print(w io.Writer) {
	for i, r := range rs.list {
		if i == MaxRefusalLines {
			fmt.Fprintf(w, "tv: %s: and %d more problems (only the first %d are shown)\n", rs.list[i].Code, len(rs.list)-i, MaxRefusalLines)
			return
		}
		fmt.Fprintln(w, r.String())
	}
}
