package icm

// This file keeps the map-based validator that ValidateEntries replaced,
// with the Markdown helpers it used, verbatim but renamed, as a test
// oracle and as the "before" of BenchmarkValidateEntries. Do not change
// its behaviour: the equivalence tests compare ValidateTools and
// ValidateEntries against it. It shares with the package only what did
// not change: ParsePolicy, IsStageName, TypeName, quoteShort and the
// Rule, Severity and Finding declarations.

import (
	"bytes"
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

// oldValidateTools is ValidateTools as it was before ValidateEntries.
//
// fsys is walked with fs.WalkDir; entry types come from DirEntry.Type(), so
// the caller must provide an FS that reports symlinks, devices, FIFOs and
// sockets as such and never follows them. Only entries the walk reported as
// regular files are opened: every .md file, each read up to
// MaxMarkdownBytes. The findings are sorted by path, line, rule, message.
// The error is non-nil only for a failure to walk or read fsys.
func oldValidateTools(fsys fs.FS, known []string) ([]Finding, error) {
	v := &oldValidator{
		fsys:     fsys,
		known:    known,
		kinds:    map[string]oldKind{},
		children: map[string][]string{},
		md:       map[string]*oldMdFile{},
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

// oldKind classifies a walked entry.
type oldKind int

const (
	oldKindFile oldKind = iota + 1
	oldKindDir
	oldKindOther
)

// oldMdFile is a Markdown file read up to MaxMarkdownBytes.
type oldMdFile struct {
	data      []byte
	truncated bool
}

type oldValidator struct {
	fsys     fs.FS
	known    []string
	kinds    map[string]oldKind    // by slash path; "" is the root
	children map[string][]string   // folder path -> entry names
	order    []string              // walk order
	md       map[string]*oldMdFile // cache of files read
	findings []Finding
}

func (v *oldValidator) add(rule string, sev Severity, p string, line int, format string, args ...any) {
	v.findings = append(v.findings, Finding{Rule: rule, Severity: sev, Path: p, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (v *oldValidator) errorf(rule, p string, line int, format string, args ...any) {
	v.add(rule, SeverityError, p, line, format, args...)
}

func (v *oldValidator) warnf(rule, p string, line int, format string, args ...any) {
	v.add(rule, SeverityWarning, p, line, format, args...)
}

// walk records every entry and reports irregular ones (rule 7).
func (v *oldValidator) walk() error {
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
			v.kinds[rel] = oldKindDir
			if _, ok := v.children[rel]; !ok {
				v.children[rel] = nil
			}
		case t.IsRegular():
			v.kinds[rel] = oldKindFile
		default:
			v.kinds[rel] = oldKindOther
			v.errorf(RuleFileType, rel, 0, "%s is a %s; a workspace holds only regular files and folders", d.Name(), TypeName(t))
		}
		return nil
	})
}

// read returns the Markdown file at p, read once up to MaxMarkdownBytes.
func (v *oldValidator) read(p string) (*oldMdFile, error) {
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
	m := &oldMdFile{data: data}
	if len(data) > MaxMarkdownBytes {
		m.data, m.truncated = data[:MaxMarkdownBytes], true
	}
	v.md[p] = m
	return m, nil
}

// readContract reads a contract file, reporting one over MaxMarkdownBytes
// under rule and returning nil for it.
func (v *oldValidator) readContract(rule, p string) (*oldMdFile, error) {
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
func (v *oldValidator) checkRoot() error {
	switch v.kinds["CONTEXT.md"] {
	case oldKindFile:
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
		case oldKindFile:
			identity = true
			if _, err := v.readContract(RuleRootFiles, name); err != nil {
				return err
			}
		case oldKindDir, oldKindOther:
			v.errorf(RuleRootFiles, name, 0, "%s must be a regular file", name)
		}
	}
	if !identity {
		v.errorf(RuleRootFiles, "", 0, "the workspace root has neither CLAUDE.md nor AGENTS.md (root identity: folder map, routing, what to load)")
	}
	return nil
}

// stage is one valid stage folder.
type oldStage struct {
	name string // "01-research"
	dir  string // "stages/01-research"
	// inputs is the text of the Inputs oldSection and its heading line
	// (1-based), when the contract was parsed and has one.
	inputs     string
	inputsLine int
}

// checkStages applies rules 2 to 6 and the references and handoff warnings.
func (v *oldValidator) checkStages() error {
	switch v.kinds["stages"] {
	case oldKindDir:
	case 0:
		v.errorf(RuleStages, "", 0, "the workspace root has no stages/ folder")
		return nil
	default:
		v.errorf(RuleStages, "stages", 0, "stages must be a folder")
		return nil
	}
	var stages []*oldStage
	numbers := map[string]string{}
	names := slices.Sorted(slices.Values(v.children["stages"]))
	for _, name := range names {
		dir := "stages/" + name
		if v.kinds[dir] != oldKindDir {
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
		stages = append(stages, &oldStage{name: name, dir: dir})
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
			continue // no parsed Inputs oldSection: rule 3 or 4 already failed
		}
		if !oldMentionsOutput(cur.inputs, prev.name) {
			v.warnf(RuleHandoff, cur.dir+"/CONTEXT.md", cur.inputsLine, "Inputs do not read the previous stage's output; add a row for ../%s/output/", prev.name)
		}
	}
	return nil
}

// oldMentionsOutput reports whether text names prev's output folder as a
// path component sequence "<prev>/output".
func oldMentionsOutput(text, prev string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_.-])` + regexp.QuoteMeta(prev) + `/output($|[^A-Za-z0-9_.-])`)
	return re.MatchString(text)
}

// checkStage applies rules 3 to 6 and the references warning to one stage.
func (v *oldValidator) checkStage(s *oldStage) error {
	ctx := s.dir + "/CONTEXT.md"
	var contract *oldMdFile
	switch v.kinds[ctx] {
	case oldKindFile:
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
	case oldKindDir:
	case 0:
		v.errorf(RuleStageFiles, s.dir, 0, "stage has no output/ folder (keep a .gitkeep in it while empty)")
	default:
		v.errorf(RuleStageFiles, s.dir+"/output", 0, "output must be a folder")
	}
	if v.kinds[s.dir+"/references"] != oldKindDir {
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
	doc := oldParseMarkdown(contract.data)
	v.checkHeadings(ctx, doc)
	if head, from, to, ok := oldSection(doc, "Inputs"); ok {
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
	if _, from, to, ok := oldSection(doc, "Outputs"); ok {
		v.checkOutputs(s, ctx, doc, from, to)
	}
	return nil
}

// checkHeadings applies rule 4.
func (v *oldValidator) checkHeadings(ctx string, doc []oldMdLine) {
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

// checkInputs applies rules 5 and 7 to the Inputs oldTables of a contract.
func (v *oldValidator) checkInputs(s *oldStage, ctx string, doc []oldMdLine, from, to int) {
	for _, t := range oldTables(doc, from, to) {
		col := oldLocationColumn(t.header)
		if col < 0 {
			continue
		}
		for _, r := range t.rows {
			if col >= len(r.cells) {
				continue
			}
			for _, p := range oldCellPaths(r.cells[col]) {
				if !oldIsConcrete(p) {
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

// checkOutputs applies rule 7 to the Outputs oldTables of a contract: a
// location may not exist yet, but it may not point outside the tree.
func (v *oldValidator) checkOutputs(s *oldStage, ctx string, doc []oldMdLine, from, to int) {
	for _, t := range oldTables(doc, from, to) {
		col := oldLocationColumn(t.header)
		if col < 0 {
			continue
		}
		for _, r := range t.rows {
			if col >= len(r.cells) {
				continue
			}
			for _, p := range oldCellPaths(r.cells[col]) {
				if !oldIsConcrete(p) {
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
func (v *oldValidator) resolve(dir, p string) (found, escapes bool, tried []string) {
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
		case oldKindDir:
			return true, false, tried
		case oldKindFile:
			if !wantDir {
				return true, false, tried
			}
		}
	}
	return false, escapes, tried
}

// checkMarkdown applies the placeholder and context-length warnings to
// every .md file.
func (v *oldValidator) checkMarkdown() error {
	for _, p := range v.order {
		if v.kinds[p] != oldKindFile || !strings.EqualFold(path.Ext(p), ".md") {
			continue
		}
		m, err := v.read(p)
		if err != nil {
			return err
		}
		lines := oldSplitLines(m.data)
		for i, l := range lines {
			all := oldPlaceholderRE.FindAllString(l.text, -1)
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
func (v *oldValidator) isContract(p string) bool {
	if p == "CONTEXT.md" {
		return true
	}
	dir, _ := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	return path.Dir(dir) == "stages" && IsStageName(path.Base(dir))
}

// checkEmptyFolders applies the gitkeep warning.
func (v *oldValidator) checkEmptyFolders() {
	for _, p := range v.order {
		if p != "" && v.kinds[p] == oldKindDir && len(v.children[p]) == 0 {
			v.warnf(RuleGitkeep, p, 0, "empty folder; add a .gitkeep so that it survives a commit")
		}
	}
}

// The Markdown helpers as they were, renamed.

// oldLineSpan is one line of a file: its text without the line terminator
// ("\n" or "\r\n"), and the byte offsets of its start and of the start of
// the next line.
type oldLineSpan struct {
	text       string
	start, end int
}

// oldSplitLines splits data into lines. A final line without a terminator
// counts; the empty string after a final terminator does not.
func oldSplitLines(data []byte) []oldLineSpan {
	var out []oldLineSpan
	for start := 0; start < len(data); {
		i := bytes.IndexByte(data[start:], '\n')
		end := len(data)
		text := data[start:]
		if i >= 0 {
			end = start + i + 1
			text = data[start : start+i]
		}
		text = bytes.TrimSuffix(text, []byte("\r"))
		out = append(out, oldLineSpan{text: string(text), start: start, end: end})
		start = end
	}
	return out
}

// oldMdLine is one line of a Markdown document as the validator sees it.
type oldMdLine struct {
	text    string
	skip    bool   // inside a fenced code block, a oldFence line, or frontmatter
	level   int    // ATX heading level 1-6, or 0
	heading string // heading text, when level > 0
}

// oldParseMarkdown classifies the lines of a Markdown document: frontmatter
// (a leading "---" block, when terminated) and fenced code blocks are
// skipped; ATX headings are recognised.
func oldParseMarkdown(data []byte) []oldMdLine {
	spans := oldSplitLines(data)
	out := make([]oldMdLine, len(spans))
	for i, s := range spans {
		out[i].text = s.text
	}
	start := 0
	if len(spans) > 0 && spans[0].text == "---" {
		for i := 1; i < len(spans); i++ {
			if spans[i].text == "---" {
				for j := 0; j <= i; j++ {
					out[j].skip = true
				}
				start = i + 1
				break
			}
		}
	}
	var fenceChar byte
	fenceLen := 0
	for i := start; i < len(out); i++ {
		t := out[i].text
		if fenceLen > 0 {
			out[i].skip = true
			if c, n, rest := oldFence(t); c == fenceChar && n >= fenceLen && strings.TrimSpace(rest) == "" {
				fenceLen = 0
			}
			continue
		}
		if c, n, _ := oldFence(t); n > 0 {
			fenceChar, fenceLen = c, n
			out[i].skip = true
			continue
		}
		out[i].level, out[i].heading = oldAtxHeading(t)
	}
	return out
}

// oldFence reports a code oldFence opening or closing line: up to three spaces,
// then three or more '`' or '~'. It returns the oldFence character, the run
// length (0 when the line is no oldFence) and the rest of the line.
func oldFence(t string) (byte, int, string) {
	t = oldTrimIndent(t)
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return 0, 0, ""
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, ""
	}
	if c == '`' && strings.Contains(t[n:], "`") {
		return 0, 0, "" // a backtick oldFence's info string holds no backtick
	}
	return c, n, t[n:]
}

// oldTrimIndent removes up to three leading spaces; a line indented further
// is an indented code block and is returned unchanged.
func oldTrimIndent(t string) string {
	for i := 0; i < 3 && strings.HasPrefix(t, " "); i++ {
		t = t[1:]
	}
	if strings.HasPrefix(t, " ") {
		return "    "
	}
	return t
}

// oldAtxHeading parses an ATX heading ("## Inputs ##"): it returns the level
// and the trimmed text, or 0 when the line is no heading.
func oldAtxHeading(t string) (int, string) {
	t = oldTrimIndent(t)
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, ""
	}
	rest := t[n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, ""
	}
	rest = strings.TrimSpace(rest)
	// A closing sequence of '#' counts only after a blank (or alone).
	if trimmed := strings.TrimRight(rest, "#"); trimmed != rest {
		if trimmed == "" {
			rest = ""
		} else if last := trimmed[len(trimmed)-1]; last == ' ' || last == '\t' {
			rest = strings.TrimSpace(trimmed)
		}
	}
	return n, rest
}

// oldSection returns the index range [from, to) of the lines after the first
// level-2 heading named name (case-insensitive) up to the next heading of
// level 1 or 2, and the heading's index; ok is false when there is none.
func oldSection(doc []oldMdLine, name string) (head, from, to int, ok bool) {
	for i, l := range doc {
		if l.level == 2 && strings.EqualFold(l.heading, name) {
			j := i + 1
			for j < len(doc) && !(doc[j].level >= 1 && doc[j].level <= 2) {
				j++
			}
			return i, i + 1, j, true
		}
	}
	return 0, 0, 0, false
}

// oldTableRow is one body row of a Markdown oldTable.
type oldTableRow struct {
	line  int // index into the document
	cells []string
}

// oldTable is a GFM pipe oldTable: its header cells and body rows.
type oldTable struct {
	header []string
	rows   []oldTableRow
}

var oldDelimRowRE = regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$`)

// oldTables finds the pipe oldTables among doc[from:to]: a header line holding a
// '|', a delimiter row, then rows up to a blank line, a line without '|'
// or a skipped line.
func oldTables(doc []oldMdLine, from, to int) []oldTable {
	var out []oldTable
	for i := from; i+1 < to; i++ {
		h, d := doc[i], doc[i+1]
		if h.skip || d.skip || h.level > 0 || !strings.Contains(h.text, "|") || !oldDelimRowRE.MatchString(strings.TrimSpace(d.text)) {
			continue
		}
		t := oldTable{header: oldSplitCells(h.text)}
		j := i + 2
		for ; j < to; j++ {
			l := doc[j]
			if l.skip || l.level > 0 || strings.TrimSpace(l.text) == "" || !strings.Contains(l.text, "|") {
				break
			}
			t.rows = append(t.rows, oldTableRow{line: j, cells: oldSplitCells(l.text)})
		}
		out = append(out, t)
		i = j - 1
	}
	return out
}

// oldSplitCells splits a oldTable row on unescaped '|', dropping the optional
// leading and trailing pipe, trimming cells and unescaping "\|".
func oldSplitCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// oldLocationColumn returns the index of a oldTable's File/Location column, or
// -1: a header containing "location", or exactly "file", "files", "path"
// or "file/path" (case-insensitive, ignoring blanks, '`', '*' and '_').
func oldLocationColumn(header []string) int {
	for i, h := range header {
		n := strings.ToLower(strings.Map(func(r rune) rune {
			switch r {
			case ' ', '\t', '`', '*', '_':
				return -1
			}
			return r
		}, h))
		if strings.Contains(n, "location") || n == "file" || n == "files" || n == "path" || n == "file/path" {
			return i
		}
	}
	return -1
}

// oldCellPaths returns the path values of a oldTable cell: the contents of its
// code spans when it has any, else the whole cell with backticks removed,
// trimmed.
func oldCellPaths(cell string) []string {
	var spans []string
	for i := 0; i < len(cell); {
		if cell[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(cell) && cell[i+n] == '`' {
			n++
		}
		open := i + n
		closeAt := -1
		for k := open; k < len(cell); {
			if cell[k] != '`' {
				k++
				continue
			}
			m := 0
			for k+m < len(cell) && cell[k+m] == '`' {
				m++
			}
			if m == n {
				closeAt = k
				break
			}
			k += m
		}
		if closeAt < 0 {
			break
		}
		spans = append(spans, strings.TrimSpace(cell[open:closeAt]))
		i = closeAt + n
	}
	if len(spans) > 0 {
		return spans
	}
	return []string{strings.TrimSpace(strings.ReplaceAll(cell, "`", ""))}
}

// oldIsConcrete reports whether a path value must be checked: not empty, not
// only dashes, and free of "{{", "[", "*" and "://".
func oldIsConcrete(v string) bool {
	if strings.Trim(v, " -–—") == "" {
		return false
	}
	for _, s := range []string{"{{", "[", "*", "://"} {
		if strings.Contains(v, s) {
			return false
		}
	}
	return true
}

var oldPlaceholderRE = regexp.MustCompile(`\{\{[^{}\n]*\}\}`)
