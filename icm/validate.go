package icm

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Severity of a finding.
type Severity string

// Severities. An error fails walk-test (exit 3); a warning is reported only.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Rule ids, one per rule of the ICM profile; see the package doc.
const (
	// RuleRootFiles (error, rule 1): the root has CONTEXT.md, and CLAUDE.md
	// or AGENTS.md, as regular files within MaxMarkdownBytes.
	RuleRootFiles = "root-files"
	// RuleStages (error, rule 2): stages/ exists with at least one stage,
	// every folder in it matches the stage pattern, numbers are unique.
	RuleStages = "stages"
	// RuleStageFiles (error, rule 3): a stage has CONTEXT.md (a regular file
	// within MaxMarkdownBytes) and an output/ folder.
	RuleStageFiles = "stage-files"
	// RuleStageHeadings (error, rule 4): a stage CONTEXT.md has "## Inputs",
	// "## Process" and "## Outputs", each once, in that order.
	RuleStageHeadings = "stage-headings"
	// RuleInputsResolve (error, rule 5): a concrete Inputs path resolves to
	// an existing file or folder inside the workspace.
	RuleInputsResolve = "inputs-resolve"
	// RulePolicy (error, rule 6): a stage CONTEXT.md's frontmatter, where
	// present, is a valid policy (see ParsePolicy).
	RulePolicy = "policy"
	// RuleFileType (error, rule 7): no symlink, device, FIFO, socket or other
	// irregular entry anywhere; no Inputs path or Outputs location that
	// points outside the tree.
	RuleFileType = "file-type"
	// RuleContextLength (warning): a CONTEXT.md over MaxContextLines lines.
	RuleContextLength = "context-length"
	// RuleReferences (warning): a stage without a references/ folder.
	RuleReferences = "references"
	// RuleGitkeep (warning): an empty folder (one without even a .gitkeep).
	RuleGitkeep = "gitkeep"
	// RulePlaceholder (warning): a {{...}} placeholder left in a .md file.
	RulePlaceholder = "placeholder"
	// RuleHandoff (warning): a stage whose Inputs section does not mention
	// the previous stage's NN-slug/output.
	RuleHandoff = "handoff"
)

// RuleInfo describes one rule for documentation and tooling.
type RuleInfo struct {
	ID       string
	Severity Severity
	Summary  string
}

// Rules returns every rule, errors first, in profile order.
func Rules() []RuleInfo {
	return []RuleInfo{
		{RuleRootFiles, SeverityError, "root has CONTEXT.md, and CLAUDE.md or AGENTS.md"},
		{RuleStages, SeverityError, "stages/ has at least one stage; names match NN-slug; numbers unique"},
		{RuleStageFiles, SeverityError, "every stage has CONTEXT.md and output/"},
		{RuleStageHeadings, SeverityError, "stage CONTEXT.md has Inputs, Process, Outputs headings, in order"},
		{RuleInputsResolve, SeverityError, "concrete Inputs paths resolve inside the workspace"},
		{RulePolicy, SeverityError, "frontmatter, where present, is a valid policy"},
		{RuleFileType, SeverityError, "no symlink, device, FIFO or socket; no path outside the tree"},
		{RuleContextLength, SeverityWarning, fmt.Sprintf("CONTEXT.md over %d lines", MaxContextLines)},
		{RuleReferences, SeverityWarning, "stage without references/"},
		{RuleGitkeep, SeverityWarning, "empty folder without .gitkeep"},
		{RulePlaceholder, SeverityWarning, "{{PLACEHOLDER}} left after setup"},
		{RuleHandoff, SeverityWarning, "stage N+1 not reading stage N's output"},
	}
}

// Finding is one rule result.
type Finding struct {
	// Rule is one of the Rule constants.
	Rule string `json:"rule"`
	// Severity is SeverityError or SeverityWarning.
	Severity Severity `json:"severity"`
	// Path is the slash path relative to the workspace root, "" for the root.
	Path string `json:"path"`
	// Line is the 1-based line in the file at Path, or 0 if none.
	Line int `json:"line"`
	// Message explains the finding and, where useful, the fix.
	Message string `json:"message"`
}

// String formats the finding as "path:line: severity rule: message", with
// "." for the root and the line left out when it is 0.
func (f Finding) String() string {
	p := f.Path
	if p == "" {
		p = "."
	}
	if f.Line > 0 {
		p = fmt.Sprintf("%s:%d", p, f.Line)
	}
	return fmt.Sprintf("%s: %s %s: %s", p, f.Severity, f.Rule, f.Message)
}

// HasErrors reports whether any finding is an error.
func HasErrors(findings []Finding) bool {
	return slices.ContainsFunc(findings, func(f Finding) bool { return f.Severity == SeverityError })
}

// stagePattern is the pattern a stage folder name matches.
var stagePattern = regexp.MustCompile(`^\d{2}[-_][a-z0-9][a-z0-9_-]*$`)

// IsStageName reports whether name is a valid stage folder name: two
// digits, '-' or '_', then a lowercase slug of letters, digits, '-' and '_'
// (^\d{2}[-_][a-z0-9][a-z0-9_-]*$), as in 01-research or 02_draft.
func IsStageName(name string) bool { return stagePattern.MatchString(name) }

// Validate checks the tree in fsys, rooted at the workspace root, against
// every rule of the ICM profile, with the stage policies checked against
// KnownTools. See ValidateTools.
func Validate(fsys fs.FS) ([]Finding, error) {
	return ValidateTools(fsys, KnownTools())
}

// ValidateTools is Validate with the tool names a stage policy may name.
//
// fsys is walked with fs.WalkDir; entry types come from DirEntry.Type(), so
// the caller must provide an FS that reports symlinks, devices, FIFOs and
// sockets as such and never follows them. Only entries the walk reported as
// regular files are opened: every .md file, each read up to
// MaxMarkdownBytes. The findings are sorted by path, line, rule, message.
// The error is non-nil only for a failure to walk or read fsys.
func ValidateTools(fsys fs.FS, known []string) ([]Finding, error) {
	v := &validator{
		fsys:     fsys,
		known:    known,
		kinds:    map[string]entryKind{},
		children: map[string][]string{},
		md:       map[string]*mdFile{},
	}
	if err := v.walk(); err != nil {
		return nil, err
	}
	if err := v.checkRoot(); err != nil {
		return nil, err
	}
	if err := v.checkStages(); err != nil {
		return nil, err
	}
	if err := v.checkMarkdown(); err != nil {
		return nil, err
	}
	v.checkEmptyFolders()
	slices.SortFunc(v.findings, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return v.findings, nil
}

// entryKind classifies a walked entry.
type entryKind int

const (
	kindFile entryKind = iota + 1
	kindDir
	kindOther
)

// mdFile is a Markdown file read up to MaxMarkdownBytes.
type mdFile struct {
	data      []byte
	truncated bool
}

type validator struct {
	fsys     fs.FS
	known    []string
	kinds    map[string]entryKind // by slash path; "" is the root
	children map[string][]string  // folder path -> entry names
	order    []string             // walk order
	md       map[string]*mdFile   // cache of files read
	findings []Finding
}

func (v *validator) add(rule string, sev Severity, p string, line int, format string, args ...any) {
	v.findings = append(v.findings, Finding{Rule: rule, Severity: sev, Path: p, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) errorf(rule, p string, line int, format string, args ...any) {
	v.add(rule, SeverityError, p, line, format, args...)
}

func (v *validator) warnf(rule, p string, line int, format string, args ...any) {
	v.add(rule, SeverityWarning, p, line, format, args...)
}

// walk records every entry and reports irregular ones (rule 7).
func (v *validator) walk() error {
	return fs.WalkDir(v.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("icm: walk %s: %w", p, err)
		}
		rel := p
		if p == "." {
			rel = ""
		} else {
			parent := path.Dir(p)
			if parent == "." {
				parent = ""
			}
			v.children[parent] = append(v.children[parent], d.Name())
		}
		v.order = append(v.order, rel)
		switch t := d.Type(); {
		case d.IsDir():
			v.kinds[rel] = kindDir
			if _, ok := v.children[rel]; !ok {
				v.children[rel] = nil
			}
		case t.IsRegular():
			v.kinds[rel] = kindFile
		default:
			v.kinds[rel] = kindOther
			v.errorf(RuleFileType, rel, 0, "%s is a %s; a workspace holds only regular files and folders", d.Name(), TypeName(t))
		}
		return nil
	})
}

// TypeName names a non-regular file type for messages: symlink,
// character device, device, FIFO, socket or irregular file.
func TypeName(t fs.FileMode) string {
	switch {
	case t&fs.ModeSymlink != 0:
		return "symlink"
	case t&fs.ModeCharDevice != 0:
		return "character device"
	case t&fs.ModeDevice != 0:
		return "device"
	case t&fs.ModeNamedPipe != 0:
		return "FIFO"
	case t&fs.ModeSocket != 0:
		return "socket"
	default:
		return "irregular file"
	}
}

// read returns the Markdown file at p, read once up to MaxMarkdownBytes.
func (v *validator) read(p string) (*mdFile, error) {
	if f, ok := v.md[p]; ok {
		return f, nil
	}
	f, err := v.fsys.Open(p)
	if err != nil {
		return nil, fmt.Errorf("icm: open %s: %w", p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("icm: stat %s: %w", p, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("icm: %s is no longer a regular file", p)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxMarkdownBytes+1))
	if err != nil {
		return nil, fmt.Errorf("icm: read %s: %w", p, err)
	}
	m := &mdFile{data: data}
	if len(data) > MaxMarkdownBytes {
		m.data, m.truncated = data[:MaxMarkdownBytes], true
	}
	v.md[p] = m
	return m, nil
}

// readContract reads a contract file, reporting one over MaxMarkdownBytes
// under rule and returning nil for it.
func (v *validator) readContract(rule, p string) (*mdFile, error) {
	m, err := v.read(p)
	if err != nil {
		return nil, err
	}
	if m.truncated {
		v.errorf(rule, p, 0, "%s is over MaxMarkdownBytes (%d bytes) and was not checked; a contract routes, it does not hold content", path.Base(p), MaxMarkdownBytes)
		return nil, nil
	}
	return m, nil
}

// checkRoot applies rule 1.
func (v *validator) checkRoot() error {
	switch v.kinds["CONTEXT.md"] {
	case kindFile:
		if _, err := v.readContract(RuleRootFiles, "CONTEXT.md"); err != nil {
			return err
		}
	case 0:
		v.errorf(RuleRootFiles, "", 0, "the workspace root has no CONTEXT.md (root routing: a \"## Task Routing\" table of stages)")
	default:
		v.errorf(RuleRootFiles, "CONTEXT.md", 0, "CONTEXT.md must be a regular file")
	}
	identity := false
	for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
		switch v.kinds[name] {
		case kindFile:
			identity = true
			if _, err := v.readContract(RuleRootFiles, name); err != nil {
				return err
			}
		case kindDir, kindOther:
			v.errorf(RuleRootFiles, name, 0, "%s must be a regular file", name)
		}
	}
	if !identity {
		v.errorf(RuleRootFiles, "", 0, "the workspace root has neither CLAUDE.md nor AGENTS.md (root identity: folder map, routing, what to load)")
	}
	return nil
}

// stage is one valid stage folder.
type stage struct {
	name string // "01-research"
	dir  string // "stages/01-research"
	// inputs is the text of the Inputs section and its heading line
	// (1-based), when the contract was parsed and has one.
	inputs     string
	inputsLine int
}

// checkStages applies rules 2 to 6 and the references and handoff warnings.
func (v *validator) checkStages() error {
	switch v.kinds["stages"] {
	case kindDir:
	case 0:
		v.errorf(RuleStages, "", 0, "the workspace root has no stages/ folder")
		return nil
	default:
		v.errorf(RuleStages, "stages", 0, "stages must be a folder")
		return nil
	}
	var stages []*stage
	numbers := map[string]string{}
	names := slices.Sorted(slices.Values(v.children["stages"]))
	for _, name := range names {
		dir := "stages/" + name
		if v.kinds[dir] != kindDir {
			continue // plain files in stages/ are allowed; irregular ones are rule 7
		}
		if !IsStageName(name) {
			hint := ""
			if IsStageName(strings.ToLower(name)) {
				hint = " (the slug is lowercase)"
			}
			v.errorf(RuleStages, dir, 0, "stage folder %q does not match NN-slug or NN_slug%s", name, hint)
			continue
		}
		if first, dup := numbers[name[:2]]; dup {
			v.errorf(RuleStages, dir, 0, "stage number %s is already used by stages/%s; stage numbers must be unique", name[:2], first)
		} else {
			numbers[name[:2]] = name
		}
		stages = append(stages, &stage{name: name, dir: dir})
	}
	if len(stages) == 0 {
		v.errorf(RuleStages, "stages", 0, "stages/ has no stage folder (NN-slug, e.g. 01-research)")
		return nil
	}
	for _, s := range stages {
		if err := v.checkStage(s); err != nil {
			return err
		}
	}
	for i := 1; i < len(stages); i++ {
		prev, cur := stages[i-1], stages[i]
		if cur.inputsLine == 0 {
			continue // no parsed Inputs section: rule 3 or 4 already failed
		}
		if !mentionsOutput(cur.inputs, prev.name) {
			v.warnf(RuleHandoff, cur.dir+"/CONTEXT.md", cur.inputsLine, "Inputs do not read the previous stage's output; add a row for ../%s/output/", prev.name)
		}
	}
	return nil
}

// mentionsOutput reports whether text names prev's output folder as a
// path component sequence "<prev>/output".
func mentionsOutput(text, prev string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_.-])` + regexp.QuoteMeta(prev) + `/output($|[^A-Za-z0-9_.-])`)
	return re.MatchString(text)
}

// checkStage applies rules 3 to 6 and the references warning to one stage.
func (v *validator) checkStage(s *stage) error {
	ctx := s.dir + "/CONTEXT.md"
	var contract *mdFile
	switch v.kinds[ctx] {
	case kindFile:
		var err error
		if contract, err = v.readContract(RuleStageFiles, ctx); err != nil {
			return err
		}
	case 0:
		v.errorf(RuleStageFiles, s.dir, 0, "stage has no CONTEXT.md (its contract: Inputs, Process, Outputs)")
	default:
		v.errorf(RuleStageFiles, ctx, 0, "CONTEXT.md must be a regular file")
	}
	switch v.kinds[s.dir+"/output"] {
	case kindDir:
	case 0:
		v.errorf(RuleStageFiles, s.dir, 0, "stage has no output/ folder (keep a .gitkeep in it while empty)")
	default:
		v.errorf(RuleStageFiles, s.dir+"/output", 0, "output must be a folder")
	}
	if v.kinds[s.dir+"/references"] != kindDir {
		v.warnf(RuleReferences, s.dir, 0, "stage has no references/ folder for its stage-local rules")
	}
	if contract == nil {
		return nil
	}
	if _, err := ParsePolicy(contract.data, v.known); err != nil {
		var pe *PolicyError
		if !errors.As(err, &pe) {
			return fmt.Errorf("icm: %s: %w", ctx, err)
		}
		v.errorf(RulePolicy, ctx, pe.Line, "%s", pe.Error())
	}
	doc := parseMarkdown(contract.data)
	v.checkHeadings(ctx, doc)
	if head, from, to, ok := section(doc, "Inputs"); ok {
		var b strings.Builder
		for _, l := range doc[from:to] {
			if !l.skip {
				b.WriteString(l.text)
				b.WriteByte('\n')
			}
		}
		s.inputs, s.inputsLine = b.String(), head+1
		v.checkInputs(s, ctx, doc, from, to)
	}
	if _, from, to, ok := section(doc, "Outputs"); ok {
		v.checkOutputs(s, ctx, doc, from, to)
	}
	return nil
}

// requiredHeadings are the level-2 headings of a stage contract, in order.
var requiredHeadings = []string{"Inputs", "Process", "Outputs"}

// checkHeadings applies rule 4.
func (v *validator) checkHeadings(ctx string, doc []mdLine) {
	lastName, lastLine := "", 0
	for _, name := range requiredHeadings {
		var lines []int
		other := 0
		for i, l := range doc {
			if l.level > 0 && strings.EqualFold(l.heading, name) {
				if l.level == 2 {
					lines = append(lines, i+1)
				} else if other == 0 {
					other = i + 1
				}
			}
		}
		if len(lines) == 0 {
			if other > 0 {
				v.errorf(RuleStageHeadings, ctx, other, "%q must be a level-2 heading: \"## %s\"", strings.TrimSpace(doc[other-1].text), name)
			} else {
				v.errorf(RuleStageHeadings, ctx, 0, "missing heading \"## %s\"; a stage contract has ## Inputs, ## Process, ## Outputs in that order", name)
			}
			continue
		}
		for _, dup := range lines[1:] {
			v.errorf(RuleStageHeadings, ctx, dup, "second \"## %s\" heading (first at line %d)", name, lines[0])
		}
		if lines[0] < lastLine {
			v.errorf(RuleStageHeadings, ctx, lines[0], "\"## %s\" must come after \"## %s\" (line %d); want Inputs, Process, Outputs in that order", name, lastName, lastLine)
			continue
		}
		lastName, lastLine = name, lines[0]
	}
}

// checkInputs applies rules 5 and 7 to the Inputs tables of a contract.
func (v *validator) checkInputs(s *stage, ctx string, doc []mdLine, from, to int) {
	for _, t := range tables(doc, from, to) {
		col := locationColumn(t.header)
		if col < 0 {
			continue
		}
		for _, r := range t.rows {
			if col >= len(r.cells) {
				continue
			}
			for _, p := range cellPaths(r.cells[col]) {
				if !isConcrete(p) {
					continue
				}
				found, escapes, tried := v.resolve(s.dir, p)
				switch {
				case escapes:
					v.errorf(RuleFileType, ctx, r.line+1, "Inputs path %s points outside the workspace", quoteShort(p))
				case !found && strings.HasSuffix(p, "/"):
					v.errorf(RuleInputsResolve, ctx, r.line+1, "Inputs path %s is not a folder inside the workspace (tried %s)", quoteShort(p), strings.Join(tried, ", "))
				case !found:
					v.errorf(RuleInputsResolve, ctx, r.line+1, "Inputs path %s does not resolve inside the workspace (tried %s)", quoteShort(p), strings.Join(tried, ", "))
				}
			}
		}
	}
}

// checkOutputs applies rule 7 to the Outputs tables of a contract: a
// location may not exist yet, but it may not point outside the tree.
func (v *validator) checkOutputs(s *stage, ctx string, doc []mdLine, from, to int) {
	for _, t := range tables(doc, from, to) {
		col := locationColumn(t.header)
		if col < 0 {
			continue
		}
		for _, r := range t.rows {
			if col >= len(r.cells) {
				continue
			}
			for _, p := range cellPaths(r.cells[col]) {
				if !isConcrete(p) {
					continue
				}
				if _, escapes, _ := v.resolve(s.dir, p); escapes {
					v.errorf(RuleFileType, ctx, r.line+1, "Outputs location %s points outside the workspace", quoteShort(p))
				}
			}
		}
	}
}

// resolve resolves an Inputs path p of the stage in dir (see the package
// doc). It returns whether a candidate names an existing entry of the right
// kind, whether every candidate climbs above the root, and the candidates
// tried (for messages).
func (v *validator) resolve(dir, p string) (found, escapes bool, tried []string) {
	if strings.HasPrefix(p, "/") {
		return false, true, nil
	}
	wantDir := strings.HasSuffix(p, "/")
	bases := []string{dir, ""}
	if p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		bases = bases[:1]
	}
	escapes = true
	for _, base := range bases {
		c := path.Join(base, p)
		if c == ".." || strings.HasPrefix(c, "../") {
			continue
		}
		escapes = false
		if c == "." {
			c = ""
		}
		shown := c
		if shown == "" {
			shown = "."
		}
		if wantDir {
			shown += "/"
		}
		tried = append(tried, shown)
		switch v.kinds[c] {
		case kindDir:
			return true, false, tried
		case kindFile:
			if !wantDir {
				return true, false, tried
			}
		}
	}
	return false, escapes, tried
}

// checkMarkdown applies the placeholder and context-length warnings to
// every .md file.
func (v *validator) checkMarkdown() error {
	for _, p := range v.order {
		if v.kinds[p] != kindFile || !strings.EqualFold(path.Ext(p), ".md") {
			continue
		}
		m, err := v.read(p)
		if err != nil {
			return err
		}
		lines := splitLines(m.data)
		for i, l := range lines {
			all := placeholderRE.FindAllString(l.text, -1)
			if len(all) == 0 {
				continue
			}
			more := ""
			if len(all) > 1 {
				more = fmt.Sprintf(" (and %d more on this line)", len(all)-1)
			}
			v.warnf(RulePlaceholder, p, i+1, "placeholder %s left after setup%s", quoteShort(all[0]), more)
		}
		if path.Base(p) != "CONTEXT.md" {
			continue
		}
		switch {
		case m.truncated && !v.isContract(p):
			v.warnf(RuleContextLength, p, 0, "CONTEXT.md is over MaxMarkdownBytes (%d bytes); keep it under %d lines", MaxMarkdownBytes, MaxContextLines)
		case !m.truncated && len(lines) > MaxContextLines:
			v.warnf(RuleContextLength, p, MaxContextLines+1, "CONTEXT.md has %d lines, over MaxContextLines (%d); a contract routes, move content into references/", len(lines), MaxContextLines)
		}
	}
	return nil
}

// isContract reports whether p is a CONTEXT.md whose size is checked by
// rule 1 or 3 (the root one or a valid stage's).
func (v *validator) isContract(p string) bool {
	if p == "CONTEXT.md" {
		return true
	}
	dir, _ := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	return path.Dir(dir) == "stages" && IsStageName(path.Base(dir))
}

// checkEmptyFolders applies the gitkeep warning.
func (v *validator) checkEmptyFolders() {
	for _, p := range v.order {
		if p != "" && v.kinds[p] == kindDir && len(v.children[p]) == 0 {
			v.warnf(RuleGitkeep, p, 0, "empty folder; add a .gitkeep so that it survives a commit")
		}
	}
}
