package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/thalix/tv/atomicfile"
	"github.com/thalix/tv/gitwork"
)

// excludeHeader opens the lines a checkout adds to .git/info/exclude.
const excludeHeader = "# tv checkout: tv's own files (added by tv workspace checkout)"

// excludeOwnFiles adds tv's own files of checkout dir (the manifest, its
// log, the stat cache and their temporary files) to the info/exclude of
// the git work tree holding dir, when there is one, so that `git status`
// stays clean. It adds them once: lines already there are not added
// again, and a tracked .gitignore is never touched.
func excludeOwnFiles(dir string) error {
	repo, err := gitwork.Find(dir)
	if errors.Is(err, gitwork.ErrNotRepository) {
		return nil
	}
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(repo.Top, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil
	}
	prefix := "/"
	if rel != "." {
		prefix += escapeGlob(filepath.ToSlash(rel)) + "/"
	}
	want := []string{prefix + ".thalix-workspace.*", prefix + "..thalix-workspace.*"}
	path := repo.InfoExclude()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(old), "\n") {
		have[strings.TrimRight(line, "\r")] = true
	}
	var add []string
	for _, w := range want {
		if !have[w] {
			add = append(add, w)
		}
	}
	if len(add) == 0 {
		return nil
	}
	var b bytes.Buffer
	b.Write(old)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		b.WriteByte('\n')
	}
	if !have[excludeHeader] {
		b.WriteString(excludeHeader + "\n")
	}
	b.WriteString(strings.Join(add, "\n") + "\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("add tv's files to %s: %w", path, err)
	}
	return nil
}

// escapeGlob escapes the gitignore glob characters of a literal path.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\!#`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
