package vaultmcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/mcptools/mcpkit"
)

func walkTestSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "vault_workspace_walk_test",
		Title: "Walk-test a checkout",
		Description: "Scans a checkout of the scoped workspace (checkout_dir, absolute) against its manifest without following symlinks, validates its ICM tree, and returns the exact change plan a commit would make and the findings, as `tv workspace walk-test` does. " +
			"Writes nothing to the vault. A checkout of another workspace or vault is refused. " +
			fmt.Sprintf("Counts are exact; each list holds at most %d entries (engine.MaxPlanEntries) and %d findings (MaxFindingsShown), fewer when the %d-byte result cap binds (truncated).", engine.MaxPlanEntries, MaxFindingsShown, MaxStructuredBytes),
		Input: mcpkit.Object(mcpkit.Schema{
			"checkout_dir": mcpkit.Str("absolute path of a checkout of the scoped workspace"),
		}, "checkout_dir"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"valid":    mcpkit.Bool("no ICM finding of severity error: a commit may proceed"),
			"changed":  mcpkit.Bool("the checkout differs from its baseline"),
			"baseline": mcpkit.Str("the version the checkout is based on"),
			"counts": mcpkit.OpenObject(mcpkit.Schema{
				"added":           mcpkit.Int("files added"),
				"modified":        mcpkit.Int("files modified"),
				"deleted":         mcpkit.Int("files deleted"),
				"added_folders":   mcpkit.Int("folders added"),
				"deleted_folders": mcpkit.Int("folders deleted"),
				"findings":        mcpkit.Int("ICM findings"),
			}, "added", "modified", "deleted", "added_folders", "deleted_folders", "findings"),
			"added":           mcpkit.Array(planFileSchema(), "files added"),
			"modified":        mcpkit.Array(planFileSchema(), "files modified"),
			"deleted":         mcpkit.Array(planFileSchema(), "files deleted"),
			"added_folders":   mcpkit.Array(mcpkit.Str(""), "folders added"),
			"deleted_folders": mcpkit.Array(mcpkit.Str(""), "folders deleted"),
			"findings":        mcpkit.Array(findingSchema(), "ICM findings, errors first"),
			"truncated":       mcpkit.Bool("some list holds fewer entries than its count"),
		}, "valid", "changed", "baseline", "counts", "added", "modified", "deleted", "added_folders", "deleted_folders", "findings", "truncated"),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

func planFileSchema() mcpkit.Schema {
	return mcpkit.OpenObject(mcpkit.Schema{
		"path":     mcpkit.Str("workspace-relative path"),
		"size":     mcpkit.Int("bytes now (0 when deleted)"),
		"old_size": mcpkit.Int("bytes at the baseline"),
		"mode":     mcpkit.Str("git file mode"),
	}, "path", "size")
}

func findingSchema() mcpkit.Schema {
	return mcpkit.OpenObject(mcpkit.Schema{
		"rule":     mcpkit.Str("ICM rule"),
		"severity": mcpkit.Str("error or warning"),
		"path":     mcpkit.Str("workspace-relative path"),
		"line":     mcpkit.Int("line, 0 when none"),
		"message":  mcpkit.Str("what is wrong and how to fix it"),
	}, "rule", "severity", "path", "line", "message")
}

type walkTestArgs struct {
	CheckoutDir string `json:"checkout_dir"`
}

type planCounts struct {
	Added          int `json:"added"`
	Modified       int `json:"modified"`
	Deleted        int `json:"deleted"`
	AddedFolders   int `json:"added_folders"`
	DeletedFolders int `json:"deleted_folders"`
	Findings       int `json:"findings"`
}

type walkTestData struct {
	Valid          bool              `json:"valid"`
	Changed        bool              `json:"changed"`
	Baseline       string            `json:"baseline"`
	Counts         planCounts        `json:"counts"`
	Added          []engine.PlanFile `json:"added"`
	Modified       []engine.PlanFile `json:"modified"`
	Deleted        []engine.PlanFile `json:"deleted"`
	AddedFolders   []string          `json:"added_folders"`
	DeletedFolders []string          `json:"deleted_folders"`
	Findings       []icm.Finding     `json:"findings"`
	Truncated      bool              `json:"truncated"`
}

func (s *Server) walkTest(ctx context.Context, raw json.RawMessage) (*Repository, any, error) {
	var a walkTestArgs
	if err := decode(raw, &a); err != nil {
		return nil, nil, err
	}
	dir, err := s.scopedCheckout(a.CheckoutDir)
	if err != nil {
		return nil, nil, err
	}
	p, err := s.eng.WalkTest(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	findings := errorsFirst(p.Findings)
	counts := planCounts{len(p.Added), len(p.Modified), len(p.Deleted), len(p.AddedDirs), len(p.DeletedDirs), len(findings)}
	build := func(n int) any {
		d := walkTestData{Valid: p.Valid, Changed: p.Changed(), Baseline: p.Baseline.String(), Counts: counts,
			Added: head(p.Added, n, engine.MaxPlanEntries), Modified: head(p.Modified, n, engine.MaxPlanEntries), Deleted: head(p.Deleted, n, engine.MaxPlanEntries),
			AddedFolders: head(p.AddedDirs, n, engine.MaxPlanEntries), DeletedFolders: head(p.DeletedDirs, n, engine.MaxPlanEntries),
			Findings: head(findings, n, MaxFindingsShown)}
		d.Truncated = len(d.Added) < counts.Added || len(d.Modified) < counts.Modified || len(d.Deleted) < counts.Deleted ||
			len(d.AddedFolders) < counts.AddedFolders || len(d.DeletedFolders) < counts.DeletedFolders || len(d.Findings) < counts.Findings
		return d
	}
	return s.ws, build(fitCount(engine.MaxPlanEntries, s.ws, build)), nil
}

// head returns at most min(n, max) first entries of l, never nil.
func head[T any](l []T, n, max int) []T {
	n = min(n, max, len(l))
	out := make([]T, n)
	copy(out, l)
	return out
}

// errorsFirst orders findings by severity (errors first), keeping order.
func errorsFirst(fs []icm.Finding) []icm.Finding {
	out := make([]icm.Finding, 0, len(fs))
	for _, f := range fs {
		if f.Severity == icm.SeverityError {
			out = append(out, f)
		}
	}
	for _, f := range fs {
		if f.Severity != icm.SeverityError {
			out = append(out, f)
		}
	}
	return out
}
