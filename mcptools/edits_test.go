package mcptools

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestApplyEdits(t *testing.T) {
	const src = "alpha\nbeta\nalpha\ngamma\n"
	w := func(s string) json.RawMessage { return json.RawMessage(s) }
	cases := []struct {
		name    string
		edits   []Edit
		want    string
		wantErr string
	}{
		{"replace only", []Edit{{Op: OpReplace, Find: "beta", Text: "BETA"}}, "alpha\nBETA\nalpha\ngamma\n", ""},
		{"only ambiguous lists lines", []Edit{{Op: OpReplace, Find: "alpha", Text: "A"}}, "", "matches 2 times, at lines 1, 3"},
		{"only missing", []Edit{{Op: OpReplace, Find: "delta", Text: "D"}}, "", "not found"},
		{"first", []Edit{{Op: OpReplace, Find: "alpha", Text: "A", Which: w(`"first"`)}}, "A\nbeta\nalpha\ngamma\n", ""},
		{"last", []Edit{{Op: OpReplace, Find: "alpha", Text: "A", Which: w(`"last"`)}}, "alpha\nbeta\nA\ngamma\n", ""},
		{"index 1", []Edit{{Op: OpReplace, Find: "alpha", Text: "A", Which: w(`1`)}}, "alpha\nbeta\nA\ngamma\n", ""},
		{"index out of range", []Edit{{Op: OpReplace, Find: "alpha", Text: "A", Which: w(`2`)}}, "", "matches 2 time(s), at lines 1, 3"},
		{"negative index", []Edit{{Op: OpReplace, Find: "alpha", Text: "A", Which: w(`-1`)}}, "", "zero-based index"},
		{"bad which", []Edit{{Op: OpReplace, Find: "beta", Text: "A", Which: w(`"middle"`)}}, "", "zero-based index"},
		{"insert_before", []Edit{{Op: OpInsertBefore, Find: "gamma", Text: "pre-"}}, "alpha\nbeta\nalpha\npre-gamma\n", ""},
		{"insert_after", []Edit{{Op: OpInsertAfter, Find: "beta\n", Text: "inserted\n"}}, "alpha\nbeta\ninserted\nalpha\ngamma\n", ""},
		{"delete", []Edit{{Op: OpDelete, Find: "beta\n"}}, "alpha\nalpha\ngamma\n", ""},
		{"delete with text", []Edit{{Op: OpDelete, Find: "beta", Text: "x"}}, "", "delete takes no text"},
		{"replace empty text", []Edit{{Op: OpReplace, Find: "beta"}}, "", "non-empty text"},
		{"empty find", []Edit{{Op: OpReplace, Find: "", Text: "x"}}, "", "non-empty"},
		{"bad op", []Edit{{Op: "upsert", Find: "beta", Text: "x"}}, "", "not replace"},
		{"sequential", []Edit{{Op: OpReplace, Find: "beta", Text: "alpha2"}, {Op: OpReplace, Find: "alpha2", Text: "B"}}, "alpha\nB\nalpha\ngamma\n", ""},
		{"all or nothing", []Edit{{Op: OpReplace, Find: "beta", Text: "B"}, {Op: OpReplace, Find: "nope", Text: "x"}}, "", "edit 2 (replace)"},
		{"none", nil, "", "edits is empty"},
		{"too many", make([]Edit, MaxEdits+1), "", "at most 256"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ApplyEdits(src, c.edits)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				if got != src {
					t.Fatalf("content changed on error")
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// applyUnified applies a unified diff made by UnifiedDiff to old.
func applyUnified(t testing.TB, old, diff string) string {
	t.Helper()
	a := splitLines(old)
	var out []string
	ai := 0
	lines := strings.SplitAfter(diff, "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "@@ ") {
			f := strings.Fields(l)
			start, _ := strconv.Atoi(strings.Split(strings.TrimPrefix(f[1], "-"), ",")[0])
			n, _ := strconv.Atoi(strings.Split(f[1], ",")[1])
			if n == 0 {
				start++
			}
			for ai < start-1 {
				out = append(out, a[ai])
				ai++
			}
			continue
		}
		if strings.HasPrefix(l, `\ No newline`) {
			last := len(out) - 1
			if i > 0 && strings.HasPrefix(lines[i-1], "-") {
				continue
			}
			out[last] = strings.TrimSuffix(out[last], "\n")
			continue
		}
		body := l[1:]
		switch l[0] {
		case ' ':
			out = append(out, a[ai])
			ai++
		case '-':
			ai++
		case '+':
			out = append(out, body)
		}
	}
	out = append(out, a[ai:]...)
	return strings.Join(out, "")
}

func TestUnifiedDiff(t *testing.T) {
	old := strings.Repeat("line\n", 20) + "x\n" + strings.Repeat("line\n", 20) + "end"
	next := strings.Replace(old, "x\n", "y\nz\n", 1)
	next = strings.Replace(next, "end", "END", 1)
	d, trunc := UnifiedDiff("f.txt", old, next, MaxDiffBytes)
	if trunc || !strings.Contains(d, "-x\n+y\n+z\n") || strings.Count(d, "@@ ") != 2 {
		t.Fatalf("diff:\n%s", d)
	}
	if got := applyUnified(t, old, d); got != next {
		t.Fatalf("round trip: %q", got)
	}
	if d, trunc := UnifiedDiff("f", old, next, 40); !trunc || len(d) > 40 {
		t.Fatalf("not bounded: %v %d", trunc, len(d))
	}
}

func FuzzApplyEdits(f *testing.F) {
	f.Add("alpha\nbeta\nalpha\n", "replace", "alpha", "A", `"first"`)
	f.Add("a\nb\nc", "delete", "b\n", "", ``)
	f.Add("xxxx", "insert_after", "xx", "y", `1`)
	f.Add("", "insert_before", "q", "r", `"last"`)
	f.Fuzz(func(t *testing.T, content, op, find, text, which string) {
		edits := []Edit{{Op: op, Find: find, Text: text}}
		if which != "" {
			edits[0].Which = json.RawMessage(which)
		}
		got, err := ApplyEdits(content, edits)
		if err != nil {
			if got != content {
				t.Fatalf("content changed on error %v", err)
			}
			return
		}
		n := strings.Count(content, find)
		if n == 0 {
			t.Fatalf("applied with no match")
		}
		if (which == "" || which == `"only"`) && n != 1 && len(matches(content, find)) != 1 {
			t.Fatalf("which only applied with %d matches", n)
		}
		switch op {
		case OpDelete:
			if len(got) != len(content)-len(find) {
				t.Fatalf("delete length")
			}
		case OpReplace:
			if len(got) != len(content)-len(find)+len(text) {
				t.Fatalf("replace length")
			}
		default:
			if len(got) != len(content)+len(text) || !strings.Contains(got, find) {
				t.Fatalf("insert length")
			}
		}
		d, trunc := UnifiedDiff("f", content, got, 1<<30)
		if !trunc {
			if back := applyUnified(t, content, d); back != got {
				t.Fatalf("diff does not round-trip:\n%s", d)
			}
		}
	})
}
