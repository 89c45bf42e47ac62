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
	var ops []Op[[]byte]
	x, y := 0, 0
	for _, m := range ms {
		for ; x < m.A; x++ {
			ops = append(ops, Op[[]byte]{'-', la[x]})
		}
		for ; y < m.B; y++ {
			ops = append(ops, Op[[]byte]{'+', lb[y]})
		}
		if m.A < len(la) {
			ops = append(ops, Op[[]byte]{' ', la[x]})
			x, y = x+1, y+1
		}
	}
	return Group(ops, context, func(i int) string { return section(la, i) })
}

// Op is one line of a line diff, in diff order: Kind is ' ' (a line of
// both texts), '-' (of the old text only) or '+' (of the new one only);
// Line is the line with its newline, if it had one.
type Op[L string | []byte] struct {
	Kind byte
	Line L
}

// Group cuts a line diff into unified diff hunks, with context unchanged
// lines around each change (hunks closer than twice that are joined). It
// numbers each hunk's lines and writes them as a unified diff shows them
// (NoNewline after a line without one). section, when not nil, gives the
// heading of a hunk whose first line is line i (0-based) of the old text.
// Every unified diff tv prints is cut by Group, whatever line diff made
// its ops.
func Group[L string | []byte](ops []Op[L], context int, section func(i int) string) []Hunk {
	var hunks []Hunk
	at, x, y := 0, 0, 0 // ops[:at] hold x lines of the old text and y of the new
	for i := 0; i < len(ops); {
		if ops[i].Kind == ' ' {
			i++
			continue
		}
		start := max(0, i-context)
		for start < i && ops[start].Kind != ' ' {
			start++
		}
		// Extend over changes closer than 2*context unchanged lines.
		end := i
		for end < len(ops) {
			if ops[end].Kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].Kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, run)
				break
			}
			end = run
		}
		for ; at < start; at++ {
			x, y = advance(ops[at].Kind, x, y)
		}
		h := Hunk{OldStart: x + 1, NewStart: y + 1}
		if section != nil {
			h.Section = section(x)
		}
		for _, o := range ops[start:end] {
			h.OldLines, h.NewLines = advance(o.Kind, h.OldLines, h.NewLines)
			line, newline := o.Line, len(o.Line) > 0 && o.Line[len(o.Line)-1] == '\n'
			if newline {
				line = line[:len(line)-1]
			}
			h.Lines = append(h.Lines, string(o.Kind)+string(line))
			if !newline {
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

// advance counts a line of kind k into the old (x) and new (y) texts.
func advance(k byte, x, y int) (int, int) {
	if k != '+' {
		x++
	}
	if k != '-' {
		y++
	}
	return x, y
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
