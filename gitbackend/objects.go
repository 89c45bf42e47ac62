package gitbackend

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thalix/tv/engine"
)

// Git object type names and pack type codes.
const (
	typeCommit = 1
	typeTree   = 2
	typeBlob   = 3
)

var typeNames = [...]string{typeCommit: "commit", typeTree: "tree", typeBlob: "blob"}

// objectHeader returns git's object header "<type> <size>\x00".
func objectHeader(typ int, size int64) []byte {
	b := make([]byte, 0, 32)
	b = append(b, typeNames[typ]...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, size, 10)
	return append(b, 0)
}

// hashObject returns the git object id of content of the given type.
func hashObject(typ int, content []byte) engine.Hash {
	h := sha1.New()
	h.Write(objectHeader(typ, int64(len(content))))
	h.Write(content)
	var id engine.Hash
	h.Sum(id[:0])
	return id
}

// treeModeString is the octal form git writes in tree objects.
func treeModeString(m engine.FileMode) string {
	return strconv.FormatUint(uint64(m), 8)
}

// validTreeName reports why name cannot be a tree entry name, or "".
// It refuses what `git fsck --strict` refuses (and engine.CheckName's
// stricter rules): the name rule is engine's, never a copy.
func validTreeName(name string, folder bool) string {
	if strings.ContainsAny(name, "/\x00") {
		return "name contains '/' or NUL"
	}
	if err := engine.CheckName(name, folder); err != nil {
		return strings.TrimPrefix(err.Error(), engine.ErrRefused.Error()+": ")
	}
	return ""
}

// encodeTree validates entries and returns the tree object's content with
// the entries in git order.
func encodeTree(entries []engine.TreeEntry) ([]byte, error) {
	sorted := slices.Clone(entries)
	for _, e := range sorted {
		if why := validTreeName(e.Name, e.Mode == engine.ModeDir); why != "" {
			return nil, fmt.Errorf("%w: tree entry %q: %s", engine.ErrRefused, e.Name, why)
		}
		switch e.Mode {
		case engine.ModeFile, engine.ModeExecutable, engine.ModeDir:
		default:
			return nil, fmt.Errorf("%w: tree entry %q: mode %o is not a file, executable or directory", engine.ErrRefused, e.Name, e.Mode)
		}
		if e.ID.IsZero() {
			return nil, fmt.Errorf("%w: tree entry %q has no object id", engine.ErrRefused, e.Name)
		}
	}
	slices.SortFunc(sorted, func(a, b engine.TreeEntry) int { return compareTreeNames(a, b) })
	var buf bytes.Buffer
	for i, e := range sorted {
		if i > 0 && sorted[i-1].Name == e.Name {
			return nil, fmt.Errorf("%w: tree entry %q appears twice", engine.ErrRefused, e.Name)
		}
		buf.WriteString(treeModeString(e.Mode))
		buf.WriteByte(' ')
		buf.WriteString(e.Name)
		buf.WriteByte(0)
		buf.Write(e.ID[:])
	}
	return buf.Bytes(), nil
}

// compareTreeNames orders entries like git: a directory compares as its
// name followed by '/'.
func compareTreeNames(a, b engine.TreeEntry) int {
	an, bn := a.Name, b.Name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	ac, bc := treeNameByte(a, n), treeNameByte(b, n)
	switch {
	case ac < bc:
		return -1
	case ac > bc:
		return 1
	}
	return 0
}

// treeNameByte returns the byte at i of e's name, '/' just past the end of
// a directory's name and 0 past the end of anything else.
func treeNameByte(e engine.TreeEntry, i int) int {
	if i < len(e.Name) {
		return int(e.Name[i])
	}
	if i == len(e.Name) && e.Mode == engine.ModeDir {
		return '/'
	}
	return 0
}

// decodeTree parses a tree object's content.
func decodeTree(id engine.Hash, data []byte) ([]engine.TreeEntry, error) {
	var out []engine.TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("tree %s is corrupt: bad mode", id)
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("tree %s is corrupt: bad mode %q", id, data[:sp])
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+1+len(engine.Hash{}) {
			return nil, fmt.Errorf("tree %s is corrupt: truncated entry", id)
		}
		e := engine.TreeEntry{Name: string(data[:nul]), Mode: engine.FileMode(mode)}
		copy(e.ID[:], data[nul+1:])
		data = data[nul+1+len(e.ID):]
		out = append(out, e)
	}
	return out, nil
}

// validIdentPart reports why s cannot be a name or email in a commit, or "".
func validIdentPart(s string) string {
	if strings.ContainsAny(s, "<>\n\x00") {
		return "contains '<', '>', a newline or NUL"
	}
	return ""
}

func appendSignature(b []byte, field string, s engine.Signature) ([]byte, error) {
	for _, part := range []string{s.Name, s.Email} {
		if why := validIdentPart(part); why != "" {
			return nil, fmt.Errorf("%w: commit %s %q %s", engine.ErrRefused, field, part, why)
		}
	}
	if s.When.Unix() < 0 {
		return nil, fmt.Errorf("%w: commit %s time %s is before 1970", engine.ErrRefused, field, s.When)
	}
	b = append(b, field...)
	b = append(b, ' ')
	b = append(b, s.Name...)
	b = append(b, " <"...)
	b = append(b, s.Email...)
	b = append(b, "> "...)
	b = strconv.AppendInt(b, s.When.Unix(), 10)
	b = append(b, ' ')
	_, off := s.When.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	hh, mm := off/3600%100, off/60%60
	b = append(b, sign, byte('0'+hh/10), byte('0'+hh%10), byte('0'+mm/10), byte('0'+mm%10))
	return append(b, '\n'), nil
}

// encodeCommit returns a commit object's content. The message is stored
// byte for byte; times keep their zone offset at one-second precision.
func encodeCommit(c *engine.Commit) ([]byte, error) {
	if c.Tree.IsZero() {
		return nil, fmt.Errorf("%w: commit has no tree", engine.ErrRefused)
	}
	if strings.IndexByte(c.Message, 0) >= 0 {
		return nil, fmt.Errorf("%w: commit message contains NUL", engine.ErrRefused)
	}
	b := make([]byte, 0, 256+len(c.Message))
	b = append(b, "tree "...)
	b = append(b, c.Tree.String()...)
	b = append(b, '\n')
	for _, p := range c.Parents {
		if p.IsZero() {
			return nil, fmt.Errorf("%w: commit has a zero parent id", engine.ErrRefused)
		}
		b = append(b, "parent "...)
		b = append(b, p.String()...)
		b = append(b, '\n')
	}
	var err error
	if b, err = appendSignature(b, "author", c.Author); err != nil {
		return nil, err
	}
	if b, err = appendSignature(b, "committer", c.Committer); err != nil {
		return nil, err
	}
	b = append(b, '\n')
	return append(b, c.Message...), nil
}

// decodeCommit parses a commit object's content. Headers tv does not use
// (encoding, gpgsig, mergetag, …) are skipped.
func decodeCommit(id engine.Hash, data []byte) (*engine.Commit, error) {
	c := &engine.Commit{ID: id}
	corrupt := func(why string) error { return fmt.Errorf("commit %s is corrupt: %s", id, why) }
	var haveTree, haveAuthor, haveCommitter bool
	for {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			// No blank line: headers only, empty message.
			if len(data) > 0 {
				return nil, corrupt("unterminated header")
			}
			break
		}
		line := string(data[:nl])
		data = data[nl+1:]
		if line == "" {
			c.Message = string(data)
			break
		}
		key, val, _ := strings.Cut(line, " ")
		var err error
		switch key {
		case "tree":
			c.Tree, err = engine.ParseHash(val)
			haveTree = true
		case "parent":
			var p engine.Hash
			p, err = engine.ParseHash(val)
			c.Parents = append(c.Parents, p)
		case "author":
			c.Author, err = parseSignature(val)
			haveAuthor = true
		case "committer":
			c.Committer, err = parseSignature(val)
			haveCommitter = true
		}
		if err != nil {
			return nil, corrupt(fmt.Sprintf("%s header: %v", key, err))
		}
	}
	if !haveTree || !haveAuthor || !haveCommitter {
		return nil, corrupt("missing tree, author or committer")
	}
	return c, nil
}

// parseSignature parses "Name <email> 1700000000 +0200".
func parseSignature(s string) (engine.Signature, error) {
	lt := strings.IndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return engine.Signature{}, fmt.Errorf("%w: no <email>", errSyntax)
	}
	sig := engine.Signature{
		Name:  strings.TrimSuffix(s[:lt], " "),
		Email: s[lt+1 : gt],
	}
	rest := strings.Fields(s[gt+1:])
	if len(rest) < 1 {
		return sig, nil
	}
	sec, err := strconv.ParseInt(rest[0], 10, 64)
	if err != nil {
		return engine.Signature{}, fmt.Errorf("%w: bad time %q", errSyntax, rest[0])
	}
	loc := time.UTC
	if len(rest) > 1 {
		loc = parseZone(rest[1])
	}
	sig.When = time.Unix(sec, 0).In(loc)
	return sig, nil
}

var errSyntax = errors.New("syntax error")

// parseZone turns "+0530" into a fixed zone; anything malformed is UTC.
func parseZone(z string) *time.Location {
	if len(z) != 5 || (z[0] != '+' && z[0] != '-') {
		return time.UTC
	}
	hh, err1 := strconv.Atoi(z[1:3])
	mm, err2 := strconv.Atoi(z[3:5])
	if err1 != nil || err2 != nil {
		return time.UTC
	}
	off := hh*3600 + mm*60
	if z[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off)
}
