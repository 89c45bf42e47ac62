package icm

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
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

// IsStageName reports whether name is a valid stage folder name: two
// digits, '-' or '_', then a lowercase slug of letters, digits, '-' and '_'
// (^\d{2}[-_][a-z0-9][a-z0-9_-]*$), as in 01-research or 02_draft.
func IsStageName(name string) bool {
	if len(name) < 4 || !isDigit(name[0]) || !isDigit(name[1]) || (name[2] != '-' && name[2] != '_') || name[3] == '-' || name[3] == '_' {
		return false
	}
	for i := 3; i < len(name); i++ {
		if c := name[i]; !isLowerAlnum(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isLowerAlnum(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' }

// Validate checks the tree in fsys, rooted at the workspace root, against
// every rule of the ICM profile, with the stage policies checked against
// KnownTools. See ValidateTools.
func Validate(fsys fs.FS) ([]Finding, error) {
	return ValidateTools(fsys, KnownTools())
}

// ValidateTools is Validate with the tool names a stage policy may name.
//
// fsys is walked once with fs.WalkDir into a listing that ValidateEntries
// then checks; entry types come from DirEntry.Type(), so the caller must
// provide an FS that reports symlinks, devices, FIFOs and sockets as such
// and never follows them. Only entries the walk reported as regular files
// are opened: every .md file, each read up to MaxMarkdownBytes. The
// findings are sorted by path, line, rule, message. The error is non-nil
// only for a failure to walk or read fsys.
func ValidateTools(fsys fs.FS, known []string) ([]Finding, error) {
	var (
		entries []Entry
		root    []Finding
	)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("icm: walk %s: %w", p, err)
		}
		t := d.Type()
		if d.IsDir() {
			t |= fs.ModeDir
		} else if t&fs.ModeDir != 0 {
			t = t&^fs.ModeDir | fs.ModeIrregular // says folder, but is not walked as one
		}
		if p == "." {
			if !t.IsDir() && !t.IsRegular() {
				root = append(root, irregular("", d.Name(), t))
			}
			return nil
		}
		entries = append(entries, Entry{Path: p, Type: t})
		return nil
	})
	if err != nil {
		return nil, err
	}
	v := validator{fsys: fsys, known: known, entries: entries, findings: slices.Clone(root)}
	findings, err := v.run()
	if _, ok := errors.AsType[*listingError](err); ok {
		// A ReadDir that does not sort its entries (its contract says it
		// does, but an fs.FS may not) walks out of order; the old map-based
		// validator accepted that, so sort and try once more.
		slices.SortStableFunc(entries, func(a, b Entry) int { return walkCmp(a.Path, b.Path) })
		entries = slices.CompactFunc(entries, func(a, b Entry) bool { return a.Path == b.Path })
		v = validator{fsys: fsys, known: known, entries: entries, findings: root}
		findings, err = v.run()
	}
	return findings, err
}

// irregular is the file-type finding for an entry that is neither a
// regular file nor a folder.
func irregular(p, name string, t fs.FileMode) Finding {
	return Finding{Rule: RuleFileType, Severity: SeverityError, Path: p,
		Message: fmt.Sprintf("%s is a %s; a workspace holds only regular files and folders", name, TypeName(t))}
}

// entryKind classifies a listed entry.
type entryKind int

const (
	kindFile entryKind = iota + 1
	kindDir
	kindOther
)

// kindOf classifies type bits.
func kindOf(t fs.FileMode) entryKind {
	switch {
	case t.IsDir():
		return kindDir
	case t.IsRegular():
		return kindFile
	default:
		return kindOther
	}
}

// mdFile is a Markdown file read up to MaxMarkdownBytes.
type mdFile struct {
	data      []byte
	truncated bool
}

// readMD is a Markdown file kept after reading: the contracts, which the
// placeholder and length checks read again.
type readMD struct {
	path string
	mdFile
}

type validator struct {
	fsys     fs.FS
	known    []string
	entries  []Entry   // the listing, in walk order
	markdown []int     // indexes of the regular .md files in entries
	contract []readMD  // contracts read so far
	scratch  []byte    // buffer for the other Markdown files
	cache    FactCache // may be nil
	findings []Finding
}

// run checks the listing and applies every rule.
func (v *validator) run() ([]Finding, error) {
	if err := v.scan(); err != nil {
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

func (v *validator) add(rule string, sev Severity, p string, line int, format string, args ...any) {
	v.findings = append(v.findings, Finding{Rule: rule, Severity: sev, Path: p, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) errorf(rule, p string, line int, format string, args ...any) {
	v.add(rule, SeverityError, p, line, format, args...)
}

func (v *validator) warnf(rule, p string, line int, format string, args ...any) {
	v.add(rule, SeverityWarning, p, line, format, args...)
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

// read returns the Markdown file at p, read up to MaxMarkdownBytes. A
// contract is read once and kept; any other file is read into the scratch
// buffer, valid until the next read.
func (v *validator) read(p string, keep bool) (mdFile, error) {
	for _, c := range v.contract {
		if c.path == p {
			return c.mdFile, nil
		}
	}
	var buf []byte
	if !keep {
		buf = v.scratch
	}
	m, err := readMarkdown(v.fsys, p, buf)
	if err != nil {
		return mdFile{}, err
	}
	if keep {
		if v.contract == nil {
			v.contract = make([]readMD, 0, 8) // the root's three, a few stages'
		}
		v.contract = append(v.contract, readMD{p, m})
	} else {
		v.scratch = m.data[:0]
	}
	return m, nil
}

// readMarkdown reads the regular file at p up to MaxMarkdownBytes into
// buf, growing it as needed.
func readMarkdown(fsys fs.FS, p string, buf []byte) (mdFile, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return mdFile{}, fmt.Errorf("icm: open %s: %w", p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return mdFile{}, fmt.Errorf("icm: stat %s: %w", p, err)
	}
	if !st.Mode().IsRegular() {
		return mdFile{}, fmt.Errorf("icm: %s is no longer a regular file", p)
	}
	const limit = MaxMarkdownBytes + 1 // one more byte tells a truncated file
	want, stop := limit, limit
	if s := st.Size(); s > 0 && s < limit {
		// The size the file had when opened: read that much and no read
		// more to see EOF (a file that grows meanwhile is read as it was;
		// whoever stores it reads it again, against its size).
		want, stop = int(s)+1, int(s)
	}
	if cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for len(buf) < stop {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF || n == 0 && err == nil {
			break
		}
		if err != nil {
			return mdFile{}, fmt.Errorf("icm: read %s: %w", p, err)
		}
	}
	if len(buf) > MaxMarkdownBytes {
		return mdFile{data: buf[:MaxMarkdownBytes], truncated: true}, nil
	}
	return mdFile{data: buf}, nil
}

// readContract reads a contract file, reporting one over MaxMarkdownBytes
// under rule and returning ok false for it.
func (v *validator) readContract(rule, p string) (m mdFile, ok bool, err error) {
	if m, err = v.read(p, true); err != nil {
		return mdFile{}, false, err
	}
	if m.truncated {
		v.errorf(rule, p, 0, "%s is over MaxMarkdownBytes (%d bytes) and was not checked; a contract routes, it does not hold content", path.Base(p), MaxMarkdownBytes)
		return mdFile{}, false, nil
	}
	return m, true, nil
}

// checkRoot applies rule 1.
func (v *validator) checkRoot() error {
	switch v.kind("CONTEXT.md") {
	case kindFile:
		if _, _, err := v.readContract(RuleRootFiles, "CONTEXT.md"); err != nil {
			return err
		}
	case 0:
		v.errorf(RuleRootFiles, "", 0, "the workspace root has no CONTEXT.md (root routing: a \"## Task Routing\" table of stages)")
	default:
		v.errorf(RuleRootFiles, "CONTEXT.md", 0, "CONTEXT.md must be a regular file")
	}
	identity := false
	for _, name := range [...]string{"AGENTS.md", "CLAUDE.md"} {
		switch v.kind(name) {
		case kindFile:
			identity = true
			if _, _, err := v.readContract(RuleRootFiles, name); err != nil {
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
	name  string // "01-research"
	dir   string // "stages/01-research"
	index int    // of dir in the listing
	// inputs is the text of the Inputs section and its heading line
	// (1-based), when the contract was parsed and has one.
	inputs     string
	inputsLine int
}

// checkStages applies rules 2 to 6 and the references and handoff warnings.
func (v *validator) checkStages() error {
	i := v.find("stages")
	switch {
	case i < 0:
		v.errorf(RuleStages, "", 0, "the workspace root has no stages/ folder")
		return nil
	case !v.entries[i].Type.IsDir():
		v.errorf(RuleStages, "stages", 0, "stages must be a folder")
		return nil
	}
	var stages []stage
	// The folder's entries, already sorted by name; a subtree is skipped.
	for j := i + 1; j < len(v.entries) && within(v.entries[j].Path, "stages"); j = v.next(j) {
		dir := v.entries[j].Path
		if !v.entries[j].Type.IsDir() {
			continue // plain files in stages/ are allowed; irregular ones are rule 7
		}
		name := dir[len("stages/"):]
		if !IsStageName(name) {
			hint := ""
			if IsStageName(strings.ToLower(name)) {
				hint = " (the slug is lowercase)"
			}
			v.errorf(RuleStages, dir, 0, "stage folder %q does not match NN-slug or NN_slug%s", name, hint)
			continue
		}
		if k := slices.IndexFunc(stages, func(s stage) bool { return s.name[:2] == name[:2] }); k >= 0 {
			v.errorf(RuleStages, dir, 0, "stage number %s is already used by stages/%s; stage numbers must be unique", name[:2], stages[k].name)
		}
		stages = append(stages, stage{name: name, dir: dir, index: j})
	}
	if len(stages) == 0 {
		v.errorf(RuleStages, "stages", 0, "stages/ has no stage folder (NN-slug, e.g. 01-research)")
		return nil
	}
	for k := range stages {
		if err := v.checkStage(&stages[k]); err != nil {
			return err
		}
	}
	for k := 1; k < len(stages); k++ {
		prev, cur := &stages[k-1], &stages[k]
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
// path component sequence "<prev>/output": an occurrence neither preceded
// nor followed by a letter, digit, '_', '.' or '-'.
func mentionsOutput(text, prev string) bool {
	const suffix = "/output"
	for i := 0; i <= len(text); {
		j := strings.Index(text[i:], prev)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(prev) + len(suffix)
		if strings.HasPrefix(text[j+len(prev):], suffix) &&
			(j == 0 || !isNameByte(text[j-1])) &&
			(end == len(text) || !isNameByte(text[end])) {
			return true
		}
		i = j + 1
	}
	return false
}

// isNameByte reports whether c is in [A-Za-z0-9_.-].
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// checkStage applies rules 3 to 6 and the references warning to one stage.
func (v *validator) checkStage(s *stage) error {
	ctx := ""
	var ctxKind, outKind, refKind entryKind
	out := ""
	for j := s.index + 1; j < len(v.entries) && within(v.entries[j].Path, s.dir); j = v.next(j) {
		e := v.entries[j]
		switch e.Path[len(s.dir)+1:] {
		case "CONTEXT.md":
			ctx, ctxKind = e.Path, kindOf(e.Type)
		case "output":
			out, outKind = e.Path, kindOf(e.Type)
		case "references":
			refKind = kindOf(e.Type)
		}
	}
	var contract mdFile
	ok := false
	switch ctxKind {
	case kindFile:
		var err error
		if contract, ok, err = v.readContract(RuleStageFiles, ctx); err != nil {
			return err
		}
	case 0:
		v.errorf(RuleStageFiles, s.dir, 0, "stage has no CONTEXT.md (its contract: Inputs, Process, Outputs)")
	default:
		v.errorf(RuleStageFiles, ctx, 0, "CONTEXT.md must be a regular file")
	}
	switch outKind {
	case kindDir:
	case 0:
		v.errorf(RuleStageFiles, s.dir, 0, "stage has no output/ folder (keep a .gitkeep in it while empty)")
	default:
		v.errorf(RuleStageFiles, out, 0, "output must be a folder")
	}
	if refKind != kindDir {
		v.warnf(RuleReferences, s.dir, 0, "stage has no references/ folder for its stage-local rules")
	}
	if !ok {
		return nil
	}
	lines := splitLines(contract.data)
	if _, err := parsePolicy(contract.data, lines, v.known, policyCheck); err != nil {
		pe, isPE := errors.AsType[*PolicyError](err)
		if !isPE {
			return fmt.Errorf("icm: %s: %w", ctx, err)
		}
		v.errorf(RulePolicy, ctx, pe.Line, "%s", pe.Error())
	}
	doc := parseLines(lines)
	v.checkHeadings(ctx, doc)
	if head, from, to, ok := section(doc, "Inputs"); ok {
		n := 0
		for _, l := range doc[from:to] {
			n += len(l.text) + 1
		}
		var b strings.Builder
		b.Grow(n)
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
		lines := make([]int, 0, 4)
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
	locations(doc, from, to, func(row int, p string) {
		if !isConcrete(p) {
			return
		}
		found, escapes := v.resolve(s.dir, p, nil)
		switch {
		case escapes:
			v.errorf(RuleFileType, ctx, row+1, "Inputs path %s points outside the workspace", quoteShort(p))
		case found:
		case strings.HasSuffix(p, "/"):
			v.errorf(RuleInputsResolve, ctx, row+1, "Inputs path %s is not a folder inside the workspace (tried %s)", quoteShort(p), v.tried(s.dir, p))
		default:
			v.errorf(RuleInputsResolve, ctx, row+1, "Inputs path %s does not resolve inside the workspace (tried %s)", quoteShort(p), v.tried(s.dir, p))
		}
	})
}

// tried lists the candidates resolve tried for p, for a message.
func (v *validator) tried(dir, p string) string {
	var tried []string
	v.resolve(dir, p, &tried)
	return strings.Join(tried, ", ")
}

// checkOutputs applies rule 7 to the Outputs tables of a contract: a
// location may not exist yet, but it may not point outside the tree.
func (v *validator) checkOutputs(s *stage, ctx string, doc []mdLine, from, to int) {
	locations(doc, from, to, func(row int, p string) {
		if !isConcrete(p) {
			return
		}
		if _, escapes := v.resolve(s.dir, p, nil); escapes {
			v.errorf(RuleFileType, ctx, row+1, "Outputs location %s points outside the workspace", quoteShort(p))
		}
	})
}

// resolve resolves an Inputs path p of the stage in dir (see the package
// doc). It returns whether a candidate names an existing entry of the right
// kind and whether every candidate climbs above the root; with tried
// non-nil it appends the candidates tried (for messages).
func (v *validator) resolve(dir, p string, tried *[]string) (found, escapes bool) {
	if strings.HasPrefix(p, "/") {
		return false, true
	}
	wantDir := strings.HasSuffix(p, "/")
	bases := [...]string{dir, ""}
	n := len(bases)
	if p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		n = 1
	}
	escapes = true
	for _, base := range bases[:n] {
		c, up := join(base, p)
		if up {
			continue
		}
		escapes = false
		if tried != nil {
			shown := c.String()
			if shown == "" {
				shown = "."
			}
			if wantDir {
				shown += "/"
			}
			*tried = append(*tried, shown)
		}
		switch v.kindAt(c) {
		case kindDir:
			return true, false
		case kindFile:
			if !wantDir {
				return true, false
			}
		}
	}
	return false, escapes
}

// joined is the slash path dir+"/"+rel, or whichever of the two is not
// empty ("" for the root): path.Join's result, kept in two parts so that
// it need not be built.
type joined struct{ dir, rel string }

func (j joined) String() string {
	switch {
	case j.dir == "":
		return j.rel
	case j.rel == "":
		return j.dir
	}
	return j.dir + "/" + j.rel
}

// join is path.Join(base, p) for a clean base ("" or a clean relative
// path) and a relative p, with "." as "", and up true when the result climbs above the
// root (is ".." or starts with "../"). It builds no string when p is some
// "." and ".." elements then plain names (the usual Inputs path), and
// calls path.Join for any other p.
func join(base, p string) (c joined, up bool) {
	dir, rest := base, strings.TrimSuffix(p, "/")
	for rest != "" {
		elem, tail, _ := strings.Cut(rest, "/")
		switch elem {
		case ".":
		case "..":
			if dir == "" {
				return joined{}, true
			}
			dir = dir[:max(strings.LastIndexByte(dir, '/'), 0)]
		default:
			if !plainNames(rest) {
				return slowJoin(base, p)
			}
			return joined{dir, rest}, false
		}
		rest = tail
	}
	return joined{dir: dir}, false
}

// plainNames reports whether p is names without "", "." or ".." elements.
func plainNames(p string) bool {
	for p != "" {
		elem, tail, found := strings.Cut(p, "/")
		if elem == "" || elem == "." || elem == ".." || found && tail == "" {
			return false
		}
		p = tail
	}
	return true
}

// slowJoin is join by path.Join.
func slowJoin(base, p string) (joined, bool) {
	c := path.Join(base, p)
	switch {
	case c == ".." || strings.HasPrefix(c, "../"):
		return joined{}, true
	case c == ".":
		return joined{}, false
	}
	return joined{dir: c}, false
}

// hasMarkdownExt reports whether p ends in ".md", case-insensitively.
func hasMarkdownExt(p string) bool {
	n := len(p)
	return n >= 3 && p[n-3] == '.' && p[n-2]|0x20 == 'm' && p[n-1]|0x20 == 'd'
}

// countLines counts the lines of data as splitLines does.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
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
