package tvcmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
)

// planDoc is the --json document of walk-test: each list bounded to
// engine.MaxPlanEntries, counts exact.
type planDoc struct {
	WorkspaceID   string            `json:"workspace_id"`
	WorkspaceName string            `json:"workspace_name"`
	Baseline      engine.Hash       `json:"baseline"`
	Valid         bool              `json:"valid"`
	Changed       bool              `json:"changed"`
	Counts        map[string]int    `json:"counts"`
	Added         []engine.PlanFile `json:"added"`
	Modified      []engine.PlanFile `json:"modified"`
	Deleted       []engine.PlanFile `json:"deleted"`
	AddedDirs     []string          `json:"added_folders"`
	DeletedDirs   []string          `json:"deleted_folders"`
	Truncated     bool              `json:"truncated"`
	Findings      []findingDoc      `json:"findings"`
	Ignored       int               `json:"ignored"`
	// Behind is null when the checkout is at the workspace's head.
	Behind *engine.Behind `json:"behind,omitempty"`
}

func newPlanDoc(p *engine.Plan) planDoc {
	truncated := false
	files := func(l []engine.PlanFile) []engine.PlanFile {
		if len(l) > engine.MaxPlanEntries {
			truncated = true
			return l[:engine.MaxPlanEntries]
		}
		return nonNil(l)
	}
	dirs := func(l []string) []string {
		if len(l) > engine.MaxPlanEntries {
			truncated = true
			return l[:engine.MaxPlanEntries]
		}
		return nonNil(l)
	}
	findings := p.Findings
	if len(findings) > engine.MaxFindingsShown {
		findings, truncated = findings[:engine.MaxFindingsShown], true
	}
	var behind *engine.Behind
	if p.Behind != nil {
		b := *p.Behind
		if len(b.Files) > engine.MaxPlanEntries {
			b.Files, truncated = b.Files[:engine.MaxPlanEntries], true
		}
		if len(b.Conflicts) > engine.MaxPlanEntries {
			b.Conflicts, truncated = b.Conflicts[:engine.MaxPlanEntries], true
		}
		behind = &b
	}
	return planDoc{
		Behind: behind, WorkspaceID: p.WorkspaceID, WorkspaceName: p.WorkspaceName, Baseline: p.Baseline,
		Valid: p.Valid, Changed: p.Changed(),
		Counts: map[string]int{
			"added": len(p.Added), "modified": len(p.Modified), "deleted": len(p.Deleted),
			"added_folders": len(p.AddedDirs), "deleted_folders": len(p.DeletedDirs),
			"errors": countSeverity(p.Findings, icm.SeverityError), "warnings": countSeverity(p.Findings, icm.SeverityWarning),
			"behind_files": behindFiles(p),
		},
		Added: files(p.Added), Modified: files(p.Modified), Deleted: files(p.Deleted),
		AddedDirs: dirs(p.AddedDirs), DeletedDirs: dirs(p.DeletedDirs),
		Truncated: truncated, Findings: findingDocs(findings), Ignored: p.Ignored,
	}
}

func behindFiles(p *engine.Plan) int {
	if p.Behind == nil {
		return 0
	}
	return len(p.Behind.Files)
}

func countSeverity(fs []icm.Finding, s icm.Severity) int {
	n := 0
	for _, f := range fs {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// printPlan prints the human change plan.
func printPlan(w io.Writer, p *engine.Plan) {
	fmt.Fprintf(w, "workspace %s (%s), baseline %s\n", p.WorkspaceName, p.WorkspaceID, p.Baseline.Short())
	if !p.Changed() {
		fmt.Fprintln(w, "no changes")
	} else {
		fmt.Fprintf(w, "%d added, %d modified, %d deleted; %d folders added, %d deleted\n",
			len(p.Added), len(p.Modified), len(p.Deleted), len(p.AddedDirs), len(p.DeletedDirs))
	}
	printBehind(w, p)
	section := func(title string, n int, line func(i int) string) {
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "%s:\n", title)
		for i := 0; i < n && i < engine.MaxPlanEntries; i++ {
			fmt.Fprintf(w, "  %s\n", line(i))
		}
		if n > engine.MaxPlanEntries {
			fmt.Fprintf(w, "  … and %d more\n", n-engine.MaxPlanEntries)
		}
	}
	if p.Ignored > 0 {
		fmt.Fprintf(w, "%d ignored by .gitignore (neither planned nor committed)\n", p.Ignored)
	}
	section("added folders", len(p.AddedDirs), func(i int) string { return p.AddedDirs[i] + "/" })
	section("deleted folders", len(p.DeletedDirs), func(i int) string { return p.DeletedDirs[i] + "/" })
	section("added", len(p.Added), func(i int) string { return fmt.Sprintf("+ %s (%d bytes)", p.Added[i].Path, p.Added[i].Size) })
	section("modified", len(p.Modified), func(i int) string {
		f := p.Modified[i]
		return fmt.Sprintf("~ %s (%d -> %d bytes)", f.Path, f.OldSize, f.Size)
	})
	section("deleted", len(p.Deleted), func(i int) string { return fmt.Sprintf("- %s (%d bytes)", p.Deleted[i].Path, p.Deleted[i].OldSize) })
	errs, warns := countSeverity(p.Findings, icm.SeverityError), countSeverity(p.Findings, icm.SeverityWarning)
	if len(p.Findings) > 0 {
		fmt.Fprintf(w, "ICM findings: %s, %s\n", plural(errs, "error"), plural(warns, "warning"))
		printFindings(w, p.Findings)
	}
	if p.Valid {
		fmt.Fprintln(w, "valid")
	} else {
		fmt.Fprintln(w, "INVALID: fix the errors above; commit refuses an invalid tree")
	}
}

// printBehind says how far the checkout is behind its workspace's head.
func printBehind(w io.Writer, p *engine.Plan) {
	b := p.Behind
	switch {
	case b == nil:
		return
	case b.Deleted:
		fmt.Fprintf(w, "the workspace %s no longer exists in this vault: this checkout cannot be updated or committed\n", p.WorkspaceID)
		return
	}
	more := ""
	if b.More {
		more = "more than "
	}
	fmt.Fprintf(w, "behind: the workspace is at %s, %s%d version(s) past this checkout's baseline; %d file(s) here are not at the head's version\n",
		b.Head.Short(), more, b.Versions, len(b.Files))
	for i, f := range b.Files {
		if i == engine.MaxPlanEntries {
			fmt.Fprintf(w, "  … and %d more\n", len(b.Files)-i)
			break
		}
		fmt.Fprintf(w, "  < %s\n", f)
	}
	fmt.Fprintf(w, "run `tv workspace update %s` to bring them in\n", p.Dir)
}

func asInvalid(err error) (*engine.InvalidTreeError, bool) {
	var inv *engine.InvalidTreeError
	ok := errors.As(err, &inv)
	return inv, ok
}

// invalidDoc is an invalid tree whose JSON error document also carries
// the command's report under key (walk-test's plan, check's report;
// text mode printed them).
type invalidDoc struct {
	*engine.InvalidTreeError
	key string
	doc any
}

// Unwrap makes errors.As find the InvalidTreeError (and its findings).
func (e invalidDoc) Unwrap() error { return e.InvalidTreeError }

// Silent is an error whose report was already printed (walk-test's plan,
// tv mcp doctor's report): it only sets the exit code.
type Silent struct{ Err error }

func (s Silent) Error() string { return s.Err.Error() }
func (s Silent) Unwrap() error { return s.Err }
