package mcpkit

import (
	"fmt"
	"sort"
	"strings"
)

// ToolsMarkdown renders specs as the README's tool table: one row per
// tool in list order, with its arguments (required ones first, defaults
// and ranges shown), its annotations and its description.
func ToolsMarkdown(specs []Spec) string {
	var b strings.Builder
	b.WriteString("<!-- Generated from mcptools.Tools() by `go generate ./mcptools` (this table in README.md and mcptools/README.tools.md); do not edit. -->\n\n")
	b.WriteString("| tool | arguments | hints | behaviour |\n|---|---|---|---|\n")
	for _, s := range specs {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.Name, argsCell(s.Input), hintsCell(s), cell(s.Description))
	}
	return b.String()
}

func argsCell(in Schema) string {
	props, _ := in["properties"].(Schema)
	if len(props) == 0 {
		return "none"
	}
	req := map[string]bool{}
	if r, ok := in["required"].([]string); ok {
		for _, n := range r {
			req[n] = true
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if req[names[i]] != req[names[j]] {
			return req[names[i]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		p, _ := props[n].(Schema)
		s := "`" + n + "`"
		if req[n] {
			s = "**" + s + "**"
		}
		var notes []string
		if t, ok := p["type"].(string); ok {
			notes = append(notes, t)
		}
		if lo, ok := p["minimum"]; ok {
			if hi, ok := p["maximum"]; ok {
				notes = append(notes, fmt.Sprintf("%v–%v", lo, hi))
			} else {
				notes = append(notes, fmt.Sprintf("≥%v", lo))
			}
		}
		if lo, ok := p["minItems"]; ok {
			notes = append(notes, fmt.Sprintf("%v–%v items", lo, p["maxItems"]))
		} else if hi, ok := p["maxItems"]; ok {
			notes = append(notes, fmt.Sprintf("≤%v items", hi))
		}
		if hi, ok := p["maxLength"]; ok {
			notes = append(notes, fmt.Sprintf("≤%v chars", hi))
		}
		if d, ok := p["default"]; ok {
			notes = append(notes, fmt.Sprintf("default %v", d))
		}
		if len(notes) > 0 {
			s += " (" + strings.Join(notes, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "<br>")
}

func hintsCell(s Spec) string {
	a := s.Annotations
	h := []string{fmt.Sprintf("readOnly=%v", a.ReadOnly), fmt.Sprintf("destructive=%v", a.Destructive), fmt.Sprintf("idempotent=%v", a.Idempotent), fmt.Sprintf("openWorld=%v", a.OpenWorld)}
	if s.Gated {
		h = append(h, "branch-gated")
	}
	return strings.Join(h, "<br>")
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
