package tvcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/thalix/tv/checkfmt"
	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitwork"
	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/ignore"
	"github.com/urfave/cli/v3"
)

func (a *app) checkCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "validate a folder as an ICM workspace (walk-test's rules; no vault, writes nothing)",
		UsageText: "tv check [DIR] [--staged | --rev REV] [--strict] [--format text|json|sarif|github|junit] [--json]\n\n" +
			"DIR defaults to the tv checkout holding the current folder, else the current folder.\n" +
			"In a git work tree it checks what git would commit (.gitignore, .git/info/exclude,\n" +
			"core.excludesFile); --staged checks the index, --rev REV a committed tree.\n" +
			"Exit 0 valid, 3 invalid (with --strict: any finding).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "staged", Usage: "check the git index (what the next commit records) instead of the disk"},
			&cli.StringFlag{Name: "rev", Usage: "check the tree of a git commit, tag or tree instead of the disk"},
			&cli.BoolFlag{Name: "strict", Usage: "fail on warnings too"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "report format: " + strings.Join(checkfmt.Formats, ", ")},
		},
		Action: a.action(a.runCheck),
	}
}

func (a *app) runCheck(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() > 1 {
		return usagef("tv check takes at most one argument: DIR (got %d)", cmd.Args().Len())
	}
	format := cmd.String("format")
	if a.json {
		format = "json"
	}
	if !contains(checkfmt.Formats, format) {
		return usagef("--format %q: use one of %s", format, strings.Join(checkfmt.Formats, ", "))
	}
	if cmd.Bool("staged") && cmd.IsSet("rev") {
		return usagef("--staged and --rev both name what to check; give one")
	}
	dir := cmd.Args().First()
	if dir == "" {
		found, err := a.implicitCheckout(false)
		if err != nil {
			return err
		}
		dir = found
	}
	rep, err := checkSource(ctx, dir, cmd.Bool("staged"), cmd.String("rev"), a.io.Getenv)
	if err != nil {
		return err
	}
	rep.Strict = cmd.Bool("strict")
	rep.Rules = checkRules()
	if a.json {
		return a.checkJSON(rep)
	}
	if err := checkfmt.Write(a.io.Stdout, format, rep); err != nil {
		return err
	}
	if rep.Failed() {
		return Silent{&engine.InvalidTreeError{Findings: rep.Findings}}
	}
	return nil
}

// checkSource checks dir on disk, or its part of the index or of a
// committed tree, and reports with paths relative to the repository's
// root (or to dir outside git).
func checkSource(ctx context.Context, dir string, staged bool, rev string, getenv func(string) string) (*checkfmt.Report, error) {
	if err := engine.RequireFolder(dir); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	repo, repoErr := gitwork.Find(abs)
	if (staged || rev != "") && repoErr != nil {
		return nil, fmt.Errorf("%w (--staged and --rev read a git repository)", repoErr)
	}
	prefix := ""
	if repo != nil {
		rel, err := filepath.Rel(repo.Top, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("%w: %s is outside the work tree %s", engine.ErrRefused, dir, repo.Top)
		}
		if rel != "." {
			prefix = filepath.ToSlash(rel)
		}
	}
	rep := &checkfmt.Report{Source: "disk", Root: prefix}
	if repo == nil {
		rep.Root = filepath.ToSlash(filepath.Clean(dir))
	}
	var res *engine.CheckResult
	switch {
	case staged:
		rep.Source = "index"
		files, err := repo.Index(ctx)
		if err != nil {
			return nil, err
		}
		res, err = checkStored(ctx, repo, files, prefix)
		if err != nil {
			return nil, err
		}
	case rev != "":
		rep.Source = "rev " + rev
		files, _, err := repo.Tree(ctx, rev)
		if err != nil {
			return nil, err
		}
		res, err = checkStored(ctx, repo, files, prefix)
		if err != nil {
			return nil, err
		}
	default:
		m, err := ignoreMatcher(ctx, abs, repo, getenv)
		if err != nil {
			return nil, err
		}
		if res, err = engine.CheckDir(ctx, dir, engine.CheckOptions{Ignore: m, Prefix: prefix}); err != nil {
			return nil, err
		}
	}
	rep.Files, rep.Ignored, rep.Findings, rep.Valid = res.Files, res.Ignored, res.Findings, res.Valid
	return rep, nil
}

// ignoreMatcher is git's view of what it would not commit in dir: the
// rules of the work tree holding it (global excludes included), or, out
// of git, the folder's own .gitignore files as walk-test applies them.
func ignoreMatcher(ctx context.Context, dir string, repo *gitwork.Repo, getenv func(string) string) (*ignore.Matcher, error) {
	opts := ignore.Options{GitIgnore: true}
	top := dir
	if repo != nil {
		top = repo.Top
		global, err := gitwork.GlobalExcludes(ctx, top, getenv)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", engine.ErrRefused, err)
		}
		opts.GlobalExcludes = global
	}
	root, err := os.OpenRoot(top)
	if err != nil {
		return nil, err
	}
	m, err := ignore.NewMatcher(root, opts)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("%w: %v", engine.ErrRefused, err)
	}
	return m, nil
}

// checkStored checks the files of an index or tree listing that lie
// under prefix, reading their Markdown through git.
func checkStored(ctx context.Context, repo *gitwork.Repo, files []gitwork.File, prefix string) (*engine.CheckResult, error) {
	var mine []gitwork.File
	for _, f := range files {
		switch {
		case prefix == "":
			mine = append(mine, f)
		case strings.HasPrefix(f.Path, prefix+"/"):
			f.Path = f.Path[len(prefix)+1:]
			mine = append(mine, f)
		}
	}
	blobs, err := repo.OpenBlobs(ctx, mine)
	if err != nil {
		return nil, err
	}
	defer blobs.Close()
	tree := make([]engine.TreeFile, len(mine))
	for i, f := range mine {
		tree[i] = engine.TreeFile{Path: f.Path, Type: f.Type(), Size: f.Size}
	}
	return engine.CheckFiles(ctx, blobs.FS(), tree)
}

// checkRules lists every rule a check finding may name.
func checkRules() []checkfmt.Rule {
	var rules []checkfmt.Rule
	for _, r := range icm.Rules() {
		rules = append(rules, checkfmt.Rule{ID: r.ID, Severity: r.Severity, Summary: r.Summary})
	}
	return append(rules, checkfmt.Rule{ID: engine.RulePathRules, Severity: icm.SeverityError, Summary: "paths follow the safe-input rules (import's); file and byte limits"})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkJSON prints check's --json document in tv's JSON style; a failed
// check is the invalid-tree error document, with the report.
func (a *app) checkJSON(rep *checkfmt.Report) error {
	doc := map[string]any{"source": rep.Source, "files": rep.Files, "ignored": rep.Ignored, "strict": rep.Strict,
		"valid": rep.Valid, "findings": findingDocs(rep.Findings)}
	setIf(doc, "root", rep.Root)
	if rep.Failed() {
		return invalidDoc{InvalidTreeError: &engine.InvalidTreeError{Findings: rep.Findings}, key: "report", doc: doc}
	}
	return writeJSON(a.io.Stdout, doc)
}
