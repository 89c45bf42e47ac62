package hook

import (
	"fmt"
	"path"
	"strings"

	"github.com/thalix/tv/engine"
)

// Git tree modes tv never stores.
const (
	modeSymlink engine.FileMode = 0o120000
	modeGitlink engine.FileMode = 0o160000
)

// change judges one version step of a ref: tree from → to (from zero for
// a new ref). Only trees whose ids differ are read, so a one-file change
// to a large workspace reads the trees along that file's path. ws is the
// workspace id whose write grants apply ("" for a template, whose creator
// needs manage on the vault instead).
func (c *checker) change(ref, ws string, from, to engine.Hash) error {
	if from == to {
		return nil
	}
	before := len(c.rs.list)
	d := &diff{c: c, ref: ref}
	if err := d.dir("", from, to); err != nil {
		return err
	}
	if len(c.rs.list) > before {
		return nil // unsafe entries: no ICM or rank judgement on them
	}
	if ws != "" {
		if err := c.writeRanks(ref, ws, d); err != nil {
			return err
		}
	}
	if from.IsZero() || d.affectsICM {
		return c.validateICM(ref, to)
	}
	return nil
}

// removedDir is a folder a change deletes (or turns into a file).
type removedDir struct {
	path string
	tree engine.Hash
}

// diff walks the trees that differ between two versions.
type diff struct {
	c   *checker
	ref string

	changed     []string     // files added or modified
	removed     []string     // files deleted (or turned into folders)
	removedDirs []removedDir // folders deleted (or turned into files)
	files       int          // files added or modified
	bytes       int64        // their bytes
	affectsICM  bool         // a change the ICM error rules can see
}

func (d *diff) refuse(format string, args ...any) {
	d.c.rs.add(CodeRefused, d.ref, format, args...)
}

// full reports that so many problems were found that walking on is moot.
func (d *diff) full() bool { return len(d.c.rs.list) > 2*MaxRefusalLines }

// dir compares folder p: tree a (zero when the folder is new) against b.
func (d *diff) dir(p string, a, b engine.Hash) error {
	if err := d.c.ctx.Err(); err != nil {
		return err
	}
	newEntries, ok, err := d.readTree(p, b)
	if !ok || err != nil {
		return err
	}
	var oldEntries []engine.TreeEntry
	if !a.IsZero() {
		if oldEntries, err = d.c.o.tree(a); err != nil {
			return fmt.Errorf("read the current tree of %s: %w", d.ref, err)
		}
	}
	if sameNames(oldEntries, newEntries) {
		return d.sameNames(p, oldEntries, newEntries)
	}
	old := make(map[string]engine.TreeEntry, len(oldEntries))
	for _, e := range oldEntries {
		old[e.Name] = e
	}
	names := make([]string, 0, len(newEntries))
	seen := make(map[string]bool, len(newEntries))
	for _, e := range newEntries {
		full := path.Join(p, e.Name)
		if seen[e.Name] {
			d.refuse("%q is listed twice in its folder", full)
			continue
		}
		seen[e.Name] = true
		names = append(names, e.Name)
		prev, had := old[e.Name]
		if had && prev == e {
			continue
		}
		if err := d.entry(full, prev, had, e); err != nil || d.full() {
			return err
		}
	}
	if err := engine.CheckSiblingNames(names); err != nil {
		d.refuse("in folder %q: %s", "/"+p, refusedText(err))
	}
	for _, e := range oldEntries {
		if !seen[e.Name] {
			d.remove(path.Join(p, e.Name), e)
		}
	}
	return nil
}

// sameNames reports whether a folder keeps its names, in the same order:
// only contents or modes change (the common case: files edited).
func sameNames(old, new []engine.TreeEntry) bool {
	if len(old) != len(new) || len(old) == 0 {
		return false
	}
	for i := range old {
		if old[i].Name != new[i].Name {
			return false
		}
	}
	return true
}

// sameNames compares folder p whose names are the current version's:
// nothing is added or removed, and the names were judged when they came
// (listed twice, equal when case is folded), so only the changed entries
// are, pairwise, without building the folder's name sets.
func (d *diff) sameNames(p string, oldEntries, newEntries []engine.TreeEntry) error {
	for i, e := range newEntries {
		if oldEntries[i] == e {
			continue
		}
		if err := d.entry(path.Join(p, e.Name), oldEntries[i], true, e); err != nil || d.full() {
			return err
		}
	}
	return nil
}

// readTree reads tree id of folder p, refusing a missing or oversized one.
func (d *diff) readTree(p string, id engine.Hash) ([]engine.TreeEntry, bool, error) {
	entries, err := d.c.o.tree(id)
	if err != nil {
		if problem := objectProblem(err); problem != "" {
			d.refuse("folder %q: %s", "/"+p, problem)
			return nil, false, nil
		}
		return nil, false, err
	}
	return entries, true, nil
}

// entry judges one new or changed entry e at path full (prev is what was
// there before, when had).
func (d *diff) entry(full string, prev engine.TreeEntry, had bool, e engine.TreeEntry) error {
	err := engine.CheckPath(full)
	if err == nil && e.Mode == engine.ModeDir {
		err = engine.CheckName(e.Name, true) // the rules for folder names
	}
	if err != nil {
		d.refuse("%s", refusedText(err))
		return nil
	}
	wasDir := had && prev.Mode == engine.ModeDir
	if !wasDir || e.Mode != engine.ModeDir {
		d.touch(full) // a folder on both sides is judged by what changed inside
	}
	switch e.Mode {
	case engine.ModeDir:
		from := engine.ZeroHash
		if wasDir {
			from = prev.ID
		} else if had {
			d.remove(full, prev)
		}
		return d.dir(full, from, e.ID)
	case engine.ModeFile, engine.ModeExecutable:
		if wasDir {
			d.remove(full, prev)
		}
		return d.file(full, e)
	case modeSymlink:
		d.refuse("%q is a symlink; a workspace holds only regular files and folders", full)
	case modeGitlink:
		d.refuse("%q is a gitlink (a submodule); a workspace holds only regular files and folders", full)
	default:
		d.refuse("%q has git mode %o; a workspace holds only regular files (100644, 100755) and folders", full, e.Mode)
	}
	return nil
}

// file records a new or changed file, within the size limits.
func (d *diff) file(full string, e engine.TreeEntry) error {
	size, err := d.c.o.blobSize(e.ID)
	if err != nil {
		if problem := objectProblem(err); problem != "" {
			d.refuse("file %q: %s", full, problem)
			return nil
		}
		return err
	}
	if size > engine.MaxFileBytes {
		d.refuse("file %q is %d bytes, over the %d-byte (%d MiB) file limit", full, size, engine.MaxFileBytes, engine.MaxFileBytes>>20)
		return nil
	}
	d.files++
	d.bytes += size
	d.changed = append(d.changed, full)
	switch {
	case d.files == engine.MaxImportFiles+1:
		d.refuse("more than %d new or changed files in one version, over the import limit", engine.MaxImportFiles)
	case d.bytes > engine.MaxImportBytes && d.bytes-size <= engine.MaxImportBytes:
		d.refuse("more than %d bytes (%d GiB) of new or changed files in one version, over the import limit", int64(engine.MaxImportBytes), engine.MaxImportBytes>>30)
	}
	return nil
}

// remove records an entry the change deletes.
func (d *diff) remove(full string, e engine.TreeEntry) {
	d.affectsICM = true // an Inputs path may have pointed at it
	if e.Mode == engine.ModeDir {
		d.removedDirs = append(d.removedDirs, removedDir{full, e.ID})
		return
	}
	d.removed = append(d.removed, full)
}

// touch notes a change the ICM error rules can see: an entry of the root,
// of stages/ or of a stage folder (contracts, stage and output folders).
// Changes deeper down (and content changes of files there) are invisible
// to every error rule; deletions anywhere are handled by remove.
func (d *diff) touch(full string) {
	depth := strings.Count(full, "/") + 1
	if depth == 1 || (strings.HasPrefix(full, "stages/") && depth <= 3) {
		d.affectsICM = true
	}
}

// writeRanks checks that the pusher has write on every path the change
// touches, by the grants as the engine evaluates them.
func (c *checker) writeRanks(ref, ws string, d *diff) error {
	check := func(p string) {
		if have := c.access.Rank(c.user, ws, p); have < engine.RankWrite {
			c.denied(ref, engine.RankWrite, have, ws+":"+p, "")
		}
	}
	for _, p := range d.changed {
		check(p)
	}
	for _, p := range d.removed {
		check(p)
	}
	for _, rd := range d.removedDirs {
		if c.access.Rank(c.user, ws, rd.path) >= engine.RankWrite {
			continue
		}
		if !c.access.HasGrantsInside(c.user, ws, rd.path) {
			check(rd.path)
			continue
		}
		// Grants deeper down may cover every file: judge them one by one.
		files, err := c.listFiles(rd.path, rd.tree)
		if err != nil {
			return err
		}
		for _, f := range files {
			check(f)
		}
	}
	return nil
}

// listFiles lists the files below folder p (tree id) of the current version.
func (c *checker) listFiles(p string, id engine.Hash) ([]string, error) {
	entries, err := c.o.tree(id)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		full := path.Join(p, e.Name)
		if e.Mode != engine.ModeDir {
			out = append(out, full)
			continue
		}
		sub, err := c.listFiles(full, e.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}
