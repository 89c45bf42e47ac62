package textmerge

import (
	"bytes"
	"fmt"
)

// Hunk is one region of a unified diff. Starts are 1-based line numbers
// (0 with a count of 0 for an empty side, as diff writes them). Each line
// begins with ' ', '-' or '+' and has no newline; a line that had none in
// its text is followed by NoNewline.
type Hunk struct {
	OldStart int `json:"old_start"`
	OldLines int `json:"old_lines"`
	NewStart int `json:"new_start"`
	NewLines int `json:"new_lines"`
	// Section is the line git prints after the header: the nearest line
	// above the hunk that starts with a letter, '_' or '$' (git's default
	// "function" heading), cut to MaxSectionBytes.
	Section string   `json:"section,omitempty"`
	Lines   []string `json:"lines"`
}

// MaxSectionBytes bounds a hunk's Section, as git bounds it.
const MaxSectionBytes = 80

// NoNewline is the line a unified diff writes after a line that ends its
// text without a newline.
const NoNewline = `\ No newline at end of file`

// DefaultContext is how many unchanged lines surround a change in a hunk.
const DefaultContext = 3

// Hunks returns the unified diff hunks turning text a into text b, with
// context unchanged lines around each change (hunks closer than twice
// that are joined).
func Hunks(a, b []byte, context int) []Hunk {
	la, lb := Lines(a), Lines(b)
	ms := append(Matches(la, lb), Match{len(la), len(lb)}) // a sentinel end
	// ops: each line of either text, in diff order.
	type op struct {
		kind byte
		line []byte
		a, b int // 0-based index in a and b before this line
	}
	var ops []op
	x, y := 0, 0
	for _, m := range ms {
		for ; x < m.A; x++ {
			ops = append(ops, op{'-', la[x], x, y})
		}
		for ; y < m.B; y++ {
			ops = append(ops, op{'+', lb[y], x, y})
		}
		if m.A < len(la) {
			ops = append(ops, op{' ', la[x], x, y})
			x, y = x+1, y+1
		}
	}
	var hunks []Hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-context)
		for start < i && ops[start].kind != ' ' {
			start++
		}
		// Extend over changes closer than 2*context unchanged lines.
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, run)
				break
			}
			end = run
		}
		h := Hunk{OldStart: ops[start].a + 1, NewStart: ops[start].b + 1, Section: section(la, ops[start].a)}
		for _, o := range ops[start:end] {
			switch o.kind {
			case ' ':
				h.OldLines++
				h.NewLines++
			case '-':
				h.OldLines++
			case '+':
				h.NewLines++
			}
			h.Lines = append(h.Lines, string(o.kind)+string(bytes.TrimSuffix(o.line, []byte("\n"))))
			if !bytes.HasSuffix(o.line, []byte("\n")) {
				h.Lines = append(h.Lines, NoNewline)
			}
		}
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		hunks = append(hunks, h)
		i = end
	}
	return hunks
}

// section finds the heading for a hunk starting at line i of a.
func section(a [][]byte, i int) string {
	for i--; i >= 0; i-- {
		l := a[i]
		if len(l) == 0 {
			continue
		}
		if c := l[0]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' {
			l = bytes.TrimRight(l, " \t\r\n")
			return string(l[:min(len(l), MaxSectionBytes)])
		}
	}
	return ""
}

// Header is the hunk's "@@ -a,b +c,d @@ section" line.
func (h Hunk) Header() string {
	s := fmt.Sprintf("@@ -%s +%s @@", span(h.OldStart, h.OldLines), span(h.NewStart, h.NewLines))
	if h.Section != "" {
		s += " " + h.Section
	}
	return s
}

func span(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
