package icm

import (
	"errors"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var policySeeds = []string{
	"",
	"# no policy\n",
	research,
	draft,
	"---\nmcp:\n  tools:\n    - vault_file_info\n---\n",
	"---\nmcp: {tools: [vault_file_info, vault_file_read]}\n---\n",
	"---\r\nmcp:\r\n  tools: ['vault_workspace_commit']\r\n---\r\n",
	"\uFEFF---\nmcp:\n  tools: [vault_file_info]\n---\n",
	"---\na: &a [x]\nmcp:\n  tools: *a\n---\n",
	"---\nmcp:\n  <<: {tools: [vault_file_info]}\n---\n",
	"---\nmcp:\n  tools: [!!str vault_file_info, 1, true, ~, \"\"]\n---\n",
	"---\n%YAML 1.2\n---\n",
	"---\nmcp:\n  tools:\n    - |\n      vault_file_info\n---\n",
	"---\n? [a]\n: b\n---\n",
	"---\nmcp:\n  tools: [vault_file_info\n---\n",
}

// FuzzParsePolicy: ParsePolicy never panics; every error is a *PolicyError
// with a known reason and a line; an accepted policy names only known,
// unique tools within MaxPolicyTools and round-trips through Frontmatter.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range policySeeds {
		f.Add([]byte(s))
	}
	known := KnownTools()
	f.Fuzz(func(t *testing.T, content []byte) {
		p, err := ParsePolicy(content, known)
		if err != nil {
			if p != nil {
				t.Fatalf("policy %v returned with error %v", p, err)
			}
			var pe *PolicyError
			if !errors.As(err, &pe) || !errors.Is(err, ErrPolicy) {
				t.Fatalf("error %v (%T) is not a *PolicyError wrapping ErrPolicy", err, err)
			}
			if !slices.Contains(allReasons, pe.Reason) {
				t.Fatalf("unknown reason %q", pe.Reason)
			}
			if pe.Line < 1 || pe.Line > strings.Count(string(content), "\n")+1 {
				t.Fatalf("line %d out of range for %q", pe.Line, content)
			}
			return
		}
		if p == nil {
			if strings.HasPrefix(string(content), "---\n") || strings.HasPrefix(string(content), "---\r\n") || string(content) == "---" {
				t.Fatalf("frontmatter %q yielded no policy and no error", content)
			}
			return
		}
		if len(p.Tools) == 0 || len(p.Tools) > MaxPolicyTools {
			t.Fatalf("accepted %d tools", len(p.Tools))
		}
		seen := map[string]bool{}
		for _, tool := range p.Tools {
			if !slices.Contains(known, tool) || seen[tool] {
				t.Fatalf("accepted unknown or duplicate tool %q in %v", tool, p.Tools)
			}
			seen[tool] = true
		}
		again, err := ParsePolicy(p.Frontmatter(), known)
		if err != nil || !slices.Equal(again.Tools, p.Tools) {
			t.Fatalf("round trip: %v, %v; want %v", again, err, p.Tools)
		}
	})
}

// FuzzValidate runs arbitrary stage CONTEXT.md content through Validate:
// it never fails or panics, findings are sorted and well-formed, lines lie
// within the file, and a policy finding appears exactly when ParsePolicy
// rejects the content.
func FuzzValidate(f *testing.F) {
	for _, s := range policySeeds {
		f.Add(s)
	}
	f.Add("## Inputs\n| File |\n|-|\n| `../../x` |\n## Process\n## Outputs\n| Location |\n|-|\n| /etc |\n")
	f.Add("```\n## Inputs\n```\n## Inputs\n~~~~\n## Process\n~~~\n## Outputs ##\n{{x}}\n")
	f.Fuzz(func(t *testing.T, content string) {
		m := baseFS()
		setFile(m, c2, content)
		got, err := Validate(m)
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		lines := len(splitLines([]byte(content)))
		policyFinding := false
		for i, f := range got {
			if f.Message == "" || f.Severity != severityOf(f.Rule) || f.Line < 0 {
				t.Fatalf("bad finding %+v", f)
			}
			if f.Path == c2 && f.Line > lines {
				t.Fatalf("finding %v beyond the file's %d lines", f, lines)
			}
			if f.Path != c2 && f.Path != r2 && f.Rule != RuleHandoff {
				t.Fatalf("finding %v outside the fuzzed stage", f)
			}
			if i > 0 {
				a := got[i-1]
				if a.Path > f.Path || (a.Path == f.Path && (a.Line > f.Line || (a.Line == f.Line && a.Rule > f.Rule))) {
					t.Fatalf("findings out of order: %v then %v", a, f)
				}
			}
			policyFinding = policyFinding || f.Rule == RulePolicy
		}
		_, perr := ParsePolicy([]byte(content), KnownTools())
		if policyFinding != (perr != nil) && len(content) <= MaxMarkdownBytes {
			t.Fatalf("policy finding %v, ParsePolicy error %v", policyFinding, perr)
		}
	})
}

// FuzzInputsPath puts an arbitrary value in an Inputs File/Location cell:
// Validate accepts a concrete value only if it names an existing entry
// inside the workspace, by the stage-relative or root-relative rule.
func FuzzInputsPath(f *testing.F) {
	for _, s := range []string{
		"references/rules.md", "_config/voice.md", "../01-research/output/", "./references/",
		"../../../etc/passwd", "/etc/passwd", "references/../../x", ".", "..", "./", "_config/voice.md/",
		"stages/../CLAUDE.md", "CLAUDE.md/..", "a b", "~/x", `C:\x`, "references//rules.md",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if strings.ContainsAny(v, "|`\n\r\\") || v != strings.TrimSpace(v) {
			return // keep the cell a single, unescaped code span
		}
		m := baseFS()
		edit(t, m, c2, "| Rules | `references/rules.md` | all | how to draft |", "| Rules | `"+v+"` | all | fuzz |")
		got, err := Validate(m)
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		flagged := slices.ContainsFunc(got, func(f Finding) bool {
			return f.Path == c2 && f.Line == 14 && (f.Rule == RuleInputsResolve || f.Rule == RuleFileType)
		})
		if !isConcrete(v) {
			if flagged {
				t.Fatalf("non-concrete %q flagged", v)
			}
			return
		}
		if flagged {
			return
		}
		// Accepted: some candidate must exist inside the tree, of the right kind.
		var cands []string
		if strings.HasPrefix(v, "/") {
			t.Fatalf("absolute %q accepted", v)
		}
		cands = append(cands, path.Join(r2, v))
		if !strings.HasPrefix(v, "./") && !strings.HasPrefix(v, "../") && v != "." && v != ".." {
			cands = append(cands, path.Clean(v))
		}
		for _, c := range cands {
			if c == ".." || strings.HasPrefix(c, "../") {
				continue
			}
			st, err := fs.Stat(m, c)
			if err == nil && (st.IsDir() || !strings.HasSuffix(v, "/")) {
				return
			}
		}
		t.Fatalf("%q accepted but resolves to none of %v", v, cands)
	})
}

// stageShape is the pattern IsStageName implements.
var stageShape = regexp.MustCompile(`^\d{2}[-_][a-z0-9][a-z0-9_-]*$`)

func FuzzIsStageName(f *testing.F) {
	for _, s := range []string{"01-research", "02_draft", "1-x", "01--x", "01-X", "001-a", "01-a_b-c9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsStageName(s), stageShape.MatchString(s); got != want {
			t.Fatalf("IsStageName(%q) = %v, regexp says %v", s, got, want)
		}
	})
}
