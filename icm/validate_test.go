package icm

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

const research = `---
mcp:
  tools:
    - vault_file_info
    - vault_file_read
---
# 01 Research

Collect sourced findings for the question.

## Inputs

| Source | File/Location | Section/Scope | Why |
|---|---|---|---|
| Operator | [the question] | all | what to research |
| Rules | ` + "`references/rules.md`" + ` | all | how to research |
| Voice | ` + "`_config/voice.md`" + ` | Audience | who it is for |

## Process

1. Read the rules.
2. Write the findings.

## Outputs

| Artifact | Location | Format |
|---|---|---|
| Findings | ` + "`output/research.md`" + ` | Markdown |
`

const draft = `---
mcp:
  tools: [vault_file_read, vault_workspace_commit]
---
# 02 Draft

Turn the findings into a draft.

## Inputs

| Source | File/Location | Section/Scope | Why |
|---|---|---|---|
| Research | ` + "`../01-research/output/`" + ` | all | the handoff |
| Rules | ` + "`references/rules.md`" + ` | all | how to draft |

## Process

1. Draft.

## Outputs

| Artifact | Location | Format |
|---|---|---|
| Draft | ` + "`output/draft.md`" + ` | Markdown |
`

// baseFS returns a small workspace that draws no finding.
func baseFS() fstest.MapFS {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: 0o644} }
	return fstest.MapFS{
		"CLAUDE.md":                              file("# Workspace\n"),
		"AGENTS.md":                              file("# Workspace\n"),
		"CONTEXT.md":                             file("# Routing\n\n## Task Routing\n\n| Task | Stage |\n|---|---|\n| research | stages/01-research |\n"),
		"_config/voice.md":                       file("# Voice\n\n## Audience\n\nEngineers.\n"),
		"stages/01-research/CONTEXT.md":          file(research),
		"stages/01-research/references/rules.md": file("# Rules\n"),
		"stages/01-research/output/.gitkeep":     file(""),
		"stages/02-draft/CONTEXT.md":             file(draft),
		"stages/02-draft/references/rules.md":    file("# Rules\n"),
		"stages/02-draft/output/.gitkeep":        file(""),
	}
}

func setFile(m fstest.MapFS, p, s string) { m[p] = &fstest.MapFile{Data: []byte(s), Mode: 0o644} }

func setDir(m fstest.MapFS, p string) { m[p] = &fstest.MapFile{Mode: fs.ModeDir | 0o755} }

// drop removes p and everything under it.
func drop(m fstest.MapFS, p string) {
	for k := range m {
		if k == p || strings.HasPrefix(k, p+"/") {
			delete(m, k)
		}
	}
}

// edit replaces old by new in the file at p, failing when old is absent.
func edit(t *testing.T, m fstest.MapFS, p, old, new string) {
	t.Helper()
	s := string(m[p].Data)
	if !strings.Contains(s, old) {
		t.Fatalf("%s has no %q", p, old)
	}
	setFile(m, p, strings.Replace(s, old, new, 1))
}

// want is an expected finding: rule, path and line (messages are checked
// to be non-empty only).
type want struct {
	rule string
	path string
	line int
}

func (w want) String() string { return fmt.Sprintf("%s %s:%d", w.rule, w.path, w.line) }

const (
	r1 = "stages/01-research"
	r2 = "stages/02-draft"
	c1 = r1 + "/CONTEXT.md"
	c2 = r2 + "/CONTEXT.md"
)

// validateCase is a case of TestValidate: a change to baseFS and the
// findings it draws. TestEntriesMatchTools runs the same cases.
type validateCase struct {
	name   string
	mutate func(t *testing.T, m fstest.MapFS)
	want   []want
}

func validateCases() []validateCase {
	return []validateCase{
		{"base", func(*testing.T, fstest.MapFS) {}, nil},

		// rule 1: root-files
		{"root CONTEXT.md missing", func(_ *testing.T, m fstest.MapFS) { delete(m, "CONTEXT.md") },
			[]want{{RuleRootFiles, "", 0}}},
		{"root CONTEXT.md is a folder", func(_ *testing.T, m fstest.MapFS) {
			delete(m, "CONTEXT.md")
			setFile(m, "CONTEXT.md/x.txt", "x")
		}, []want{{RuleRootFiles, "CONTEXT.md", 0}}},
		{"neither CLAUDE.md nor AGENTS.md", func(_ *testing.T, m fstest.MapFS) {
			delete(m, "CLAUDE.md")
			delete(m, "AGENTS.md")
		}, []want{{RuleRootFiles, "", 0}}},
		{"CLAUDE.md only passes", func(_ *testing.T, m fstest.MapFS) { delete(m, "AGENTS.md") }, nil},
		{"AGENTS.md only passes", func(_ *testing.T, m fstest.MapFS) { delete(m, "CLAUDE.md") }, nil},
		{"root contract over MaxMarkdownBytes", func(_ *testing.T, m fstest.MapFS) {
			setFile(m, "AGENTS.md", strings.Repeat("x", MaxMarkdownBytes+1))
		}, []want{{RuleRootFiles, "AGENTS.md", 0}}},
		{"root contract at MaxMarkdownBytes passes", func(_ *testing.T, m fstest.MapFS) {
			setFile(m, "AGENTS.md", strings.Repeat("x", MaxMarkdownBytes))
		}, nil},

		// rule 2: stages
		{"no stages folder", func(_ *testing.T, m fstest.MapFS) { drop(m, "stages") },
			[]want{{RuleStages, "", 0}}},
		{"stages is a file", func(_ *testing.T, m fstest.MapFS) {
			drop(m, "stages")
			setFile(m, "stages", "x")
		}, []want{{RuleStages, "stages", 0}}},
		{"stages folder without stages", func(_ *testing.T, m fstest.MapFS) {
			drop(m, "stages")
			setFile(m, "stages/README.md", "# Stages\n")
		}, []want{{RuleStages, "stages", 0}}},
		{"bad stage name", func(_ *testing.T, m fstest.MapFS) {
			setFile(m, "stages/research/CONTEXT.md", "# x\n")
		}, []want{{RuleStages, "stages/research", 0}}},
		{"uppercase stage slug", func(_ *testing.T, m fstest.MapFS) {
			setFile(m, "stages/03-Publish/CONTEXT.md", "# x\n")
		}, []want{{RuleStages, "stages/03-Publish", 0}}},
		{"one-digit stage number", func(_ *testing.T, m fstest.MapFS) {
			setFile(m, "stages/3-publish/CONTEXT.md", "# x\n")
		}, []want{{RuleStages, "stages/3-publish", 0}}},
		{"duplicate stage number", func(t *testing.T, m fstest.MapFS) {
			for k, f := range m {
				if strings.HasPrefix(k, r2+"/") {
					m["stages/01_draft/"+strings.TrimPrefix(k, r2+"/")] = f
				}
			}
			drop(m, r2)
			edit(t, m, "stages/01_draft/CONTEXT.md", "../01-research/output/", "../01-research/output/")
		}, []want{{RuleStages, "stages/01_draft", 0}}},
		{"NN_slug and files in stages pass", func(t *testing.T, m fstest.MapFS) {
			for k, f := range m {
				if strings.HasPrefix(k, r2+"/") {
					m["stages/02_draft/"+strings.TrimPrefix(k, r2+"/")] = f
				}
			}
			drop(m, r2)
			setFile(m, "stages/README.md", "# Stages\n")
		}, nil},

		// rule 3: stage-files
		{"stage without CONTEXT.md", func(_ *testing.T, m fstest.MapFS) { delete(m, c2) },
			[]want{{RuleStageFiles, r2, 0}}},
		{"stage without output", func(_ *testing.T, m fstest.MapFS) { drop(m, r2+"/output") },
			[]want{{RuleStageFiles, r2, 0}}},
		{"stage output is a file", func(_ *testing.T, m fstest.MapFS) {
			drop(m, r2+"/output")
			setFile(m, r2+"/output", "x")
		}, []want{{RuleStageFiles, r2 + "/output", 0}}},
		{"stage CONTEXT.md is a folder", func(_ *testing.T, m fstest.MapFS) {
			delete(m, c2)
			setFile(m, c2+"/x.txt", "x")
		}, []want{{RuleStageFiles, c2, 0}}},
		{"stage CONTEXT.md over MaxMarkdownBytes", func(_ *testing.T, m fstest.MapFS) {
			setFile(m, c2, strings.Repeat("x", MaxMarkdownBytes+1))
		}, []want{{RuleStageFiles, c2, 0}}},
		{"output with a file and no gitkeep passes", func(_ *testing.T, m fstest.MapFS) {
			delete(m, r1+"/output/.gitkeep")
			setFile(m, r1+"/output/research.md", "# Findings\n")
		}, nil},

		// rule 4: stage-headings
		{"missing Process", func(t *testing.T, m fstest.MapFS) { edit(t, m, c2, "## Process\n", "## Steps\n") },
			[]want{{RuleStageHeadings, c2, 0}}},
		{"Outputs before Process", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c2, "## Process\n\n1. Draft.\n", "")
			edit(t, m, c2, "| Draft | `output/draft.md` | Markdown |\n", "| Draft | `output/draft.md` | Markdown |\n\n## Process\n\n1. Draft.\n")
		}, []want{{RuleStageHeadings, c2, 17}}},
		{"Inputs as level 3", func(t *testing.T, m fstest.MapFS) { edit(t, m, c2, "## Inputs", "### Inputs") },
			[]want{{RuleStageHeadings, c2, 9}}},
		{"duplicate Inputs", func(t *testing.T, m fstest.MapFS) { edit(t, m, c2, "## Process", "## Inputs\n\n## Process") },
			[]want{{RuleStageHeadings, c2, 16}}},
		{"heading in code fence does not count", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c2, "## Process\n", "```\n## Process\n```\n")
		}, []want{{RuleStageHeadings, c2, 0}}},
		{"headings case-insensitive with closing hashes pass", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c2, "## Inputs", "## INPUTS ##")
			edit(t, m, c2, "## Process", "##   process")
		}, nil},
		{"optional sections pass", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c2, "## Outputs", "## Checkpoints\n\nAsk the operator.\n\n## Audit\n\n- sources cited\n\n## Outputs")
		}, nil},

		// rule 5: inputs-resolve
		{"missing root-relative input", func(t *testing.T, m fstest.MapFS) { edit(t, m, c1, "_config/voice.md", "_config/tone.md") },
			[]want{{RuleInputsResolve, c1, 17}}},
		{"missing stage-relative input", func(t *testing.T, m fstest.MapFS) { edit(t, m, c2, "references/rules.md", "references/style.md") },
			[]want{{RuleInputsResolve, c2, 14}}},
		{"dot-relative is stage-relative only", func(t *testing.T, m fstest.MapFS) { edit(t, m, c1, "`_config/voice.md`", "`./_config/voice.md`") },
			[]want{{RuleInputsResolve, c1, 17}}},
		{"trailing slash must be a folder", func(t *testing.T, m fstest.MapFS) { edit(t, m, c1, "`_config/voice.md`", "`_config/voice.md/`") },
			[]want{{RuleInputsResolve, c1, 17}}},
		{"prose cell is a path", func(t *testing.T, m fstest.MapFS) { edit(t, m, c1, "[the question]", "the question") },
			[]want{{RuleInputsResolve, c1, 15}}},
		{"second of two code spans missing", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c1, "`references/rules.md`", "`references/rules.md`, `references/more.md`")
		}, []want{{RuleInputsResolve, c1, 16}}},
		{"inputs that resolve pass (the template row is a placeholder)", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c1, "| Operator | [the question] | all | what to research |",
				"| Operator | [the question] | all | what to research |\n"+
					"| Template | `{{client}}/brief.md` and *.md | all | not concrete |\n"+
					"| Web | https://example.com/x | all | a URL |\n"+
					"| None | — | | |\n"+
					"| Root | `CLAUDE.md` | all | identity |\n"+
					"| Folder | `_config` | all | no slash: file or folder |\n"+
					"| Folder | `_config/` | all | a folder |\n"+
					"| Up | `../01-research/references/rules.md` | all | via the stage |\n"+
					"| Root path | `stages/02-draft/output/` | all | root-relative |\n"+
					"| Escaped | `a\\|b` | all | escaped pipe |")
			setFile(m, "a|b", "x")
			setFile(m, r1+"/notes.md", "# Inputs\n\n| Source | File/Location |\n|---|---|\n| x | `missing.md` |\n")
		}, []want{{RulePlaceholder, c1, 16}}},
		{"table without location column is not checked", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c1, "| Source | File/Location | Section/Scope | Why |", "| Source | Where | Section/Scope | Why |")
			edit(t, m, c1, "`_config/voice.md`", "`_config/tone.md`")
		}, nil},

		// rule 6: policy
		{"invalid policy", func(t *testing.T, m fstest.MapFS) { edit(t, m, c2, "vault_file_read, ", "vault_file_delete, ") },
			[]want{{RulePolicy, c2, 3}}},
		{"unterminated policy", func(t *testing.T, m fstest.MapFS) {
			setFile(m, c2, strings.Replace(string(m[c2].Data), "---\n# 02", "# 02", 1))
		}, []want{{RulePolicy, c2, 1}}},
		{"policy validated with the known tools", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c2, "vault_file_read, ", "vault_workspace_walk_test, ")
		}, nil},
		{"no frontmatter passes", func(t *testing.T, m fstest.MapFS) {
			setFile(m, c2, strings.SplitN(string(m[c2].Data), "---\n", 3)[2])
		}, nil},
		{"frontmatter outside stages is not a policy", func(_ *testing.T, m fstest.MapFS) {
			setFile(m, "skills/summarise/SKILL.md", "---\nname: summarise\ndescription: Summarise a source.\n---\n# Summarise\n")
		}, nil},

		// rule 7: file-type
		{"symlink", func(_ *testing.T, m fstest.MapFS) {
			m["_config/link.md"] = &fstest.MapFile{Data: []byte("/etc/passwd"), Mode: fs.ModeSymlink | 0o777}
		}, []want{{RuleFileType, "_config/link.md", 0}}},
		{"symlinked stage CONTEXT.md", func(_ *testing.T, m fstest.MapFS) {
			m[c2] = &fstest.MapFile{Data: []byte("../01-research/CONTEXT.md"), Mode: fs.ModeSymlink | 0o777}
		}, []want{{RuleFileType, c2, 0}, {RuleStageFiles, c2, 0}}},
		{"device FIFO socket", func(_ *testing.T, m fstest.MapFS) {
			m["dev"] = &fstest.MapFile{Mode: fs.ModeDevice | fs.ModeCharDevice}
			m["fifo"] = &fstest.MapFile{Mode: fs.ModeNamedPipe}
			m["sock"] = &fstest.MapFile{Mode: fs.ModeSocket}
			m["blk"] = &fstest.MapFile{Mode: fs.ModeDevice}
			m["irr"] = &fstest.MapFile{Mode: fs.ModeIrregular}
		}, []want{{RuleFileType, "blk", 0}, {RuleFileType, "dev", 0}, {RuleFileType, "fifo", 0}, {RuleFileType, "irr", 0}, {RuleFileType, "sock", 0}}},
		{"input escaping the root", func(t *testing.T, m fstest.MapFS) { edit(t, m, c2, "`../01-research/output/`", "`../../../etc/`") },
			[]want{{RuleFileType, c2, 13}, {RuleHandoff, c2, 9}}},
		{"absolute input", func(t *testing.T, m fstest.MapFS) { edit(t, m, c2, "`references/rules.md`", "`/etc/passwd`") },
			[]want{{RuleFileType, c2, 14}}},
		{"input escaping root-relatively only", func(t *testing.T, m fstest.MapFS) {
			// stage-relative stays inside (and misses); root-relative escapes.
			edit(t, m, c2, "`references/rules.md`", "`references/../../x.md`")
		}, []want{{RuleInputsResolve, c2, 14}}},
		{"output location escaping the root", func(t *testing.T, m fstest.MapFS) { edit(t, m, c2, "`output/draft.md`", "`../../../draft.md`") },
			[]want{{RuleFileType, c2, 24}}},
		{"output location not existing yet passes", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c2, "`output/draft.md`", "`output/final/draft.md`")
		}, nil},

		// warning: context-length
		{"CONTEXT.md over MaxContextLines", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c1, "2. Write the findings.\n", "2. Write the findings.\n"+strings.Repeat("\n", MaxContextLines))
		}, []want{{RuleContextLength, c1, MaxContextLines + 1}}},
		{"root CONTEXT.md over MaxContextLines", func(t *testing.T, m fstest.MapFS) {
			setFile(m, "CONTEXT.md", strings.Repeat("line\n", MaxContextLines+1))
		}, []want{{RuleContextLength, "CONTEXT.md", MaxContextLines + 1}}},
		{"other CONTEXT.md over MaxMarkdownBytes", func(t *testing.T, m fstest.MapFS) {
			setFile(m, "_config/CONTEXT.md", strings.Repeat("x", MaxMarkdownBytes+1))
		}, []want{{RuleContextLength, "_config/CONTEXT.md", 0}}},
		{"CONTEXT.md of exactly MaxContextLines passes", func(t *testing.T, m fstest.MapFS) {
			setFile(m, "CONTEXT.md", strings.Repeat("line\n", MaxContextLines))
		}, nil},

		// warning: references
		{"stage without references", func(t *testing.T, m fstest.MapFS) {
			drop(m, r2+"/references")
			edit(t, m, c2, "| Rules | `references/rules.md` | all | how to draft |\n", "")
		}, []want{{RuleReferences, r2, 0}}},
		{"references as a file", func(_ *testing.T, m fstest.MapFS) {
			drop(m, r1+"/references")
			setFile(m, r1+"/references", "x")
		}, []want{{RuleInputsResolve, c1, 16}, {RuleReferences, r1, 0}}},

		// warning: gitkeep
		{"empty folder", func(_ *testing.T, m fstest.MapFS) { setDir(m, "shared") },
			[]want{{RuleGitkeep, "shared", 0}}},
		{"empty output folder", func(_ *testing.T, m fstest.MapFS) {
			delete(m, r2+"/output/.gitkeep")
			setDir(m, r2+"/output")
		}, []want{{RuleGitkeep, r2 + "/output", 0}}},
		{"folder with gitkeep passes", func(_ *testing.T, m fstest.MapFS) { setFile(m, "shared/.gitkeep", "") }, nil},

		// warning: placeholder
		{"placeholders in any md", func(t *testing.T, m fstest.MapFS) {
			setFile(m, "_config/voice.md", "# Voice\n\nWe write for {{AUDIENCE}} about {{ topic }}.\n")
			edit(t, m, c1, "Collect sourced findings", "Collect {{N}} sourced findings")
			edit(t, m, c2, "| all | the handoff |", "| all | the handoff |\n| Brief | `{{client}}/brief.md` | all | not concrete |")
		}, []want{{RulePlaceholder, "_config/voice.md", 3}, {RulePlaceholder, c1, 9}, {RulePlaceholder, c2, 14}}},
		{"placeholder in non-md file passes", func(_ *testing.T, m fstest.MapFS) {
			setFile(m, "shared/template.txt", "Hello {{NAME}}\n")
			setFile(m, "shared/open.md", "a { b } and {{ not closed\n")
		}, nil},

		// warning: handoff
		{"stage not reading the previous output", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c2, "`../01-research/output/`", "`../01-research/references/`")
		}, []want{{RuleHandoff, c2, 9}}},
		{"handoff named root-relatively passes", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, c2, "`../01-research/output/`", "`stages/01-research/output/`")
		}, nil},
		{"handoff across a gap", func(t *testing.T, m fstest.MapFS) {
			setFile(m, "stages/05-publish/CONTEXT.md", "# 05\n\n## Inputs\n\n| Source | File/Location |\n|---|---|\n| Draft | `../01-research/output/` |\n\n## Process\n\n1. Publish.\n\n## Outputs\n\nnone\n")
			setFile(m, "stages/05-publish/output/.gitkeep", "")
			setFile(m, "stages/05-publish/references/x.md", "# x\n")
		}, []want{{RuleHandoff, "stages/05-publish/CONTEXT.md", 3}}},
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range validateCases() {
		t.Run(tc.name, func(t *testing.T) {
			m := baseFS()
			tc.mutate(t, m)
			got, err := Validate(m)
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			var gotW []want
			for _, f := range got {
				gotW = append(gotW, want{f.Rule, f.Path, f.Line})
				if f.Message == "" {
					t.Errorf("finding %v has no message", f)
				}
				if f.Severity != severityOf(f.Rule) {
					t.Errorf("finding %v has severity %q, want %q", f, f.Severity, severityOf(f.Rule))
				}
			}
			wantW := slices.Clone(tc.want)
			slices.SortFunc(wantW, func(a, b want) int { return strings.Compare(a.String(), b.String()) })
			slices.SortFunc(gotW, func(a, b want) int { return strings.Compare(a.String(), b.String()) })
			if !slices.Equal(gotW, wantW) {
				t.Errorf("findings:\n%s\nwant %v", dump(got), wantW)
			}
			if !slices.IsSortedFunc(got, func(a, b Finding) int {
				if a.Path != b.Path {
					return strings.Compare(a.Path, b.Path)
				}
				if a.Line != b.Line {
					return a.Line - b.Line
				}
				return strings.Compare(a.Rule, b.Rule)
			}) {
				t.Errorf("findings not sorted:\n%s", dump(got))
			}
			wantErr := slices.ContainsFunc(tc.want, func(w want) bool { return severityOf(w.rule) == SeverityError })
			if HasErrors(got) != wantErr {
				t.Errorf("HasErrors = %v, want %v", HasErrors(got), wantErr)
			}
		})
	}
}

func severityOf(rule string) Severity {
	for _, r := range Rules() {
		if r.ID == rule {
			return r.Severity
		}
	}
	return "unknown rule " + Severity(rule)
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}

func TestValidateMessages(t *testing.T) {
	m := baseFS()
	setFile(m, "CONTEXT.md", strings.Repeat("x\n", MaxContextLines+1))
	edit(t, m, c2, "vault_file_read, ", "vault_file_delete, ")
	got, err := Validate(m)
	if err != nil {
		t.Fatal(err)
	}
	text := dump(got)
	for _, s := range []string{
		"CONTEXT.md:81: warning context-length: CONTEXT.md has 81 lines, over MaxContextLines (80)",
		c2 + ":3: error policy: invalid stage policy (unknown-tool) at line 3: unknown tool \"vault_file_delete\"",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("findings lack %q:\n%s", s, text)
		}
	}
	if s := (Finding{Rule: RuleStages, Severity: SeverityError, Message: "m"}).String(); s != ".: error stages: m" {
		t.Errorf("root finding String = %q", s)
	}
}

func TestValidateToolsKnownList(t *testing.T) {
	m := baseFS()
	got, err := ValidateTools(m, []string{"vault_file_info"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Rule != RulePolicy || got[1].Rule != RulePolicy {
		t.Fatalf("findings:\n%s", dump(got))
	}
}

func TestRules(t *testing.T) {
	rules := Rules()
	if len(rules) != 12 {
		t.Fatalf("%d rules, want 7 errors and 5 warnings", len(rules))
	}
	seen := map[string]bool{}
	for i, r := range rules {
		if seen[r.ID] || r.Summary == "" {
			t.Errorf("rule %v duplicated or undocumented", r)
		}
		seen[r.ID] = true
		if wantErr := i < 7; (r.Severity == SeverityError) != wantErr {
			t.Errorf("rule %s severity %s", r.ID, r.Severity)
		}
	}
}

// errFS fails to open one file.
type errFS struct {
	fstest.MapFS
	bad string
}

func (e errFS) Open(name string) (fs.File, error) {
	if name == e.bad {
		return nil, errors.New("disk on fire")
	}
	return e.MapFS.Open(name)
}

func (e errFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == e.bad {
		return nil, errors.New("disk on fire")
	}
	return e.MapFS.ReadDir(name)
}

func TestValidateReadError(t *testing.T) {
	_, err := Validate(errFS{baseFS(), c1})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Validate = %v, want the read error", err)
	}
	_, err = Validate(errFS{baseFS(), "stages"})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Validate = %v, want the walk error", err)
	}
}
