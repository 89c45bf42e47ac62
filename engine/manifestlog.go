package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/thalix/tv/internal/fastio"
)

// The manifest is written whole at checkout. A commit then appends one
// line to the manifest log instead of rewriting it, so its cost follows
// the files it changed, not the size of the tree; once the log outgrows
// a quarter of the manifest (MinManifestLogCompact at least), the next
// commit writes the manifest whole again and removes the log.
//
// The log's first line names the baseline of the manifest it extends; a
// log that names another (left by a compaction interrupted between the
// manifest's rename and the log's removal) is ignored. Each later line
// sets files to new versions, deletes files and moves the baseline;
// lines apply in order. A last line without its newline is the remains of
// an interrupted append and is ignored: the manifest then says the
// version before that commit, which heals itself (the next commit finds
// those changes upstream).

// manifestLogHeader is the log's first line.
type manifestLogHeader struct {
	Format   int  `json:"tv_manifest_log"`
	Manifest Hash `json:"manifest_baseline"`
}

// manifestLogFormat is the log format tv writes and reads.
const manifestLogFormat = 1

// manifestLogEntry is one commit's change to the manifest.
type manifestLogEntry struct {
	Baseline Hash           `json:"baseline"`
	Files    []ManifestFile `json:"files,omitempty"`
	Deleted  []string       `json:"deleted,omitempty"`
}

// readManifestLog reads dir's manifest log for the manifest m: its entries
// (none when there is no log, or it extends another manifest) and its
// stamp.
func readManifestLog(dir string, m *Manifest) ([]manifestLogEntry, fastio.FileID, error) {
	f, err := os.OpenFile(filepath.Join(dir, ManifestLogName), os.O_RDONLY|fastio.NoFollow|fastio.NonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fastio.FileID{}, nil
	}
	if err != nil {
		return nil, fastio.FileID{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fastio.FileID{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxManifestBytes {
		return nil, fastio.FileID{}, fmt.Errorf("%w: %s in %s is not a regular file of at most %d bytes; check out again", ErrRefused, ManifestLogName, dir, int64(MaxManifestBytes))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxManifestBytes+1))
	if err != nil {
		return nil, fastio.FileID{}, err
	}
	complete := bytes.LastIndexByte(b, '\n') + 1
	st := fastio.IDOf(fi)
	entries, ok, err := parseManifestLog(b[:complete], m.Baseline)
	if err != nil {
		return nil, fastio.FileID{}, fmt.Errorf("%w: %s in %s: %v; check out again", ErrRefused, ManifestLogName, dir, err)
	}
	if !ok {
		return nil, st, nil
	}
	return entries, st, nil
}

// parseManifestLog parses complete log lines. ok is false when the log
// extends a manifest other than the one at baseline.
func parseManifestLog(b []byte, baseline Hash) (entries []manifestLogEntry, ok bool, err error) {
	lines := bytes.SplitAfter(b, []byte{'\n'})
	if len(lines) == 0 || len(lines[0]) == 0 {
		return nil, false, nil
	}
	var h manifestLogHeader
	if err := json.Unmarshal(lines[0], &h); err != nil || h.Format != manifestLogFormat {
		return nil, false, fmt.Errorf("first line is not a format %d log header", manifestLogFormat)
	}
	if h.Manifest != baseline {
		return nil, false, nil
	}
	for i, l := range lines[1:] {
		if len(l) == 0 {
			continue
		}
		var e manifestLogEntry
		if err := json.Unmarshal(l, &e); err != nil {
			return nil, false, fmt.Errorf("line %d: %v", i+2, err)
		}
		if e.Baseline.IsZero() {
			return nil, false, fmt.Errorf("line %d: no baseline", i+2)
		}
		for _, f := range e.Files {
			if err := checkManifestFile(f); err != nil {
				return nil, false, fmt.Errorf("line %d: %w", i+2, err)
			}
		}
		for _, p := range e.Deleted {
			if err := CheckPath(p); err != nil {
				return nil, false, fmt.Errorf("line %d: %w", i+2, err)
			}
		}
		entries = append(entries, e)
	}
	return entries, true, nil
}

// applyManifestLog applies log entries to m's file list and baseline.
func applyManifestLog(m *Manifest, entries []manifestLogEntry) {
	if len(entries) == 0 {
		return
	}
	files := make(map[string]ManifestFile, len(m.Files))
	for _, f := range m.Files {
		files[f.Path] = f
	}
	for _, e := range entries {
		m.Baseline = e.Baseline
		for _, f := range e.Files {
			files[f.Path] = f
		}
		for _, p := range e.Deleted {
			delete(files, p)
		}
	}
	m.Files = m.Files[:0]
	for _, f := range files {
		m.Files = append(m.Files, f)
	}
	slices.SortFunc(m.Files, func(a, b ManifestFile) int { return strings.Compare(a.Path, b.Path) })
}

// appendManifestLog appends one commit's entry (line, a JSON-encoded
// manifestLogEntry) to dir's manifest log for the manifest written at
// manifestBaseline (starting the log, or replacing one that extends
// another manifest), syncs it, and returns the log's new stamp. A torn
// last line is cut off first; a damaged log is refused.
func appendManifestLog(dir string, manifestBaseline Hash, line []byte) (fastio.FileID, error) {
	f, err := os.OpenFile(filepath.Join(dir, ManifestLogName), os.O_RDWR|os.O_CREATE|fastio.NoFollow|fastio.NonBlock, 0o644)
	if err != nil {
		return fastio.FileID{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fastio.FileID{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxManifestBytes {
		return fastio.FileID{}, fmt.Errorf("%w: %s is not a regular file of at most %d bytes", ErrRefused, ManifestLogName, int64(MaxManifestBytes))
	}
	old, err := io.ReadAll(io.LimitReader(f, MaxManifestBytes+1))
	if err != nil {
		return fastio.FileID{}, err
	}
	at := int64(bytes.LastIndexByte(old, '\n') + 1)
	_, ok, perr := parseManifestLog(old[:at], manifestBaseline)
	switch {
	case perr != nil:
		return fastio.FileID{}, fmt.Errorf("%w: %s is damaged (%v); check out again", ErrRefused, ManifestLogName, perr)
	case !ok:
		at = 0 // absent, or it extends another manifest: start over
	}
	var out []byte
	if at == 0 {
		h, _ := json.Marshal(manifestLogHeader{Format: manifestLogFormat, Manifest: manifestBaseline})
		out = append(h, '\n')
	}
	out = append(append(out, line...), '\n')
	if _, err := f.WriteAt(out, at); err != nil {
		return fastio.FileID{}, err
	}
	end := at + int64(len(out))
	if end < fi.Size() {
		if err := f.Truncate(end); err != nil {
			return fastio.FileID{}, err
		}
	}
	if err := f.Sync(); err != nil {
		return fastio.FileID{}, err
	}
	return fastio.FileID{Ino: fastio.IDOf(fi).Ino, Size: end}, nil
}
