package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/thalix/tv/icm"
)

// RulePathRules is the finding rule for a checkout path that breaks the
// safe-input rules (the same rules import applies): a commit would store a
// path that no checkout could write back.
const RulePathRules = "path-rules"

// pathFindings checks the checkout's files against the safe-input rules
// and limits: every added path, case-fold collisions across all files, and
// the file and byte totals.
func (p *Plan) pathFindings() []icm.Finding {
	added := make([]string, len(p.Added))
	for i, f := range p.Added {
		added[i] = f.Path
	}
	var all []string
	// Only an added path can make a new case-fold collision: every other
	// path is in the manifest, which came from a checked version.
	if len(p.Added) > 0 {
		all = make([]string, len(p.disk.files))
		for i, f := range p.disk.files {
			all[i] = f.path
		}
	}
	return pathRuleFindings(added, all, len(p.disk.files), p.disk.bytes)
}

// mayFoldCollide reports whether two different prefixes (folders or
// files) of sorted paths might fold to one key (FoldKey), which is when
// pathRuleFindings has to look for collisions one by one. A prefix that is
// its own key (nearly every name of a tree: note-0001.md) collides only
// with one that is not, so only those few are kept, by key: a collision
// needs two of them with one key, or one whose key is itself a prefix of
// some path. (Keeping every prefix, as foldSet does, was 640 KB of fresh
// memory for a 10k-file tree on every tv check.)
func mayFoldCollide(paths []string) bool {
	odd := map[string]string{} // key -> a prefix that is not its own key
	prev := ""
	ownPrev := 0 // how many leading bytes of prev are folders that are their own key
	for _, p := range paths {
		shared := sharedFolders(prev, p)
		// A key is made name by name (FoldKey keeps the '/'), so a prefix
		// is its own key when its folder is and its last name is: only a
		// name with an upper-case letter or a non-ASCII byte is folded.
		own := min(shared, ownPrev)
		start := shared
		for i := shared; i <= len(p); i++ {
			if i < len(p) && p[i] != '/' {
				continue
			}
			prefix, name := p[:i], p[start:i]
			start = i + 1
			if own != len(prefix)-len(name) || !ownKeyASCII(name) {
				if key := FoldKey(prefix); key != prefix {
					if q, ok := odd[key]; ok && q != prefix {
						return true
					}
					odd[key] = prefix
					continue
				}
			}
			if i < len(p) { // a folder that is its own key
				own = i + 1
			}
		}
		prev, ownPrev = p, own
	}
	for key := range odd {
		if isPrefixOf(paths, key) {
			return true
		}
	}
	return false
}

// ownKeyASCII reports whether name is its own FoldKey because it is
// ASCII without an upper-case letter (false says only: not known so).
func ownKeyASCII(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// isPrefixOf reports whether prefix is one of sorted paths or a folder
// of one.
func isPrefixOf(paths []string, prefix string) bool {
	if _, found := slices.BinarySearch(paths, prefix); found {
		return true
	}
	i, _ := slices.BinarySearch(paths, prefix+"/")
	return i < len(paths) && strings.HasPrefix(paths[i], prefix+"/")
}

// pathRuleFindings checks the new paths against the safe-input rules,
// all the tree's file paths (nil when no path is new) for case-fold
// collisions, and the totals: files and bytes.
func pathRuleFindings(added, all []string, files int, total int64) []icm.Finding {
	var out []icm.Finding
	add := func(path, msg string) {
		out = append(out, icm.Finding{Rule: RulePathRules, Severity: icm.SeverityError, Path: path, Message: msg})
	}
	// Paths come grouped by folder: the folders a path shares with the
	// last accepted one are not checked again.
	good := ""
	for _, path := range added {
		if err := checkPathFrom(path, sharedFolders(good, path)); err != nil {
			add(path, ruleText(err))
			continue
		}
		good = path
	}
	if len(added) > 0 {
		paths := all // a scan lists them sorted, nearly always
		if !slices.IsSorted(paths) {
			paths = slices.Clone(all)
			slices.Sort(paths)
		}
		if mayFoldCollide(paths) {
			fold := make(foldSet, len(paths)+len(paths)/4)
			good = ""
			for _, path := range paths {
				if err := fold.addFrom(path, sharedFolders(good, path)); err != nil {
					add(path, ruleText(err))
					continue
				}
				good = path
			}
		}
	}
	if n := files; n > MaxImportFiles {
		add("", fmt.Sprintf("%d files, over the %d-file limit", n, MaxImportFiles))
	}
	if total > MaxImportBytes {
		add("", fmt.Sprintf("%d bytes in total, over the %d-byte (%d GiB) limit", total, int64(MaxImportBytes), MaxImportBytes>>30))
	}
	return out
}

// ruleText is a refusal's message without its kind prefix.
func ruleText(err error) string {
	return strings.TrimPrefix(err.Error(), ErrRefused.Error()+": ")
}

// sortFindings orders findings by path, line and rule, as icm does.
func sortFindings(fs []icm.Finding) []icm.Finding {
	slices.SortStableFunc(fs, func(a, b icm.Finding) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), strings.Compare(a.Rule, b.Rule))
	})
	return fs
}
