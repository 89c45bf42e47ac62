package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/statcache"
)

// Names an update keeps beside the manifest (reserved: never content).
const (
	// UpdateDirName is the folder an update stages its new files and its
	// journal in; it exists only while an update runs or was interrupted.
	UpdateDirName = ".thalix-workspace.update"
	// ConflictsName lists, one JSON array, the files an update --merge
	// wrote conflict markers into.
	ConflictsName = ".thalix-workspace.conflicts"
)

const (
	updateJournalName   = "journal.json"
	updateJournalFormat = 1
)

// updateJournal is an update's plan once every new file is staged: the
// files to move into place or remove, then the manifest log entry that
// makes the head the baseline.
type updateJournal struct {
	Format    int              `json:"tv_update_journal"`
	From      Hash             `json:"from"`
	To        Hash             `json:"to"`
	Ops       []journalOp      `json:"ops"`
	Entry     manifestLogEntry `json:"entry"`
	Conflicts []string         `json:"conflicts,omitempty"`
}

// journalOp moves staged file Staged to Path, or removes Path.
type journalOp struct {
	Path   string `json:"path"`
	Staged string `json:"staged,omitempty"`
	Delete bool   `json:"delete,omitempty"`
}

func encodeJournal(j *updateJournal) ([]byte, error) { return json.Marshal(j) }

// stageFault, when set (by tests), is called before each file is staged
// and fails the update with its error: a full disk half-way.
var stageFault = func(i int) error { return nil }

// readJournal reads and checks dir's update journal; nil when none.
func readJournal(dir string) (*updateJournal, error) {
	b, _, err := readRegular(filepath.Join(dir, UpdateDirName, updateJournalName), MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j updateJournal
	if err := json.Unmarshal(b, &j); err != nil || j.Format != updateJournalFormat || j.To.IsZero() {
		return nil, fmt.Errorf("%w: %s/%s in %s is damaged; check out again", ErrRefused, UpdateDirName, updateJournalName, dir)
	}
	for _, op := range j.Ops {
		if err := CheckPath(op.Path); err != nil || isReserved(op.Path) || strings.ContainsAny(op.Staged, `/\.`) {
			return nil, fmt.Errorf("%w: %s in %s names a bad path %q; check out again", ErrRefused, updateJournalName, dir, op.Path)
		}
	}
	return &j, nil
}

// rollForward completes an update that was interrupted after its
// journal was written, and discards one interrupted before (nothing of it
// is in place then). The caller holds the checkout's lock.
func rollForward(dir string) error {
	stage := filepath.Join(dir, UpdateDirName)
	if _, err := os.Lstat(stage); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	j, err := readJournal(dir)
	if err != nil {
		return err
	}
	if j == nil {
		return os.RemoveAll(stage)
	}
	_, err = applyJournal(dir, j, nil)
	return err
}

// recoverUpdate is rollForward for a caller that does not hold the
// checkout's lock: it takes it only when there is something to do (a
// running update holds it; this waits for it to finish).
func recoverUpdate(dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, UpdateDirName)); err != nil {
		return nil
	}
	unlock, err := fastio.LockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	return rollForward(dir)
}

// applyJournal moves every staged file into place and removes deleted
// files (each step idempotent), records the conflicts, moves the
// manifest to the new baseline, and removes the staging folder. Run again
// after a kill, it picks up where it stopped. It returns the manifest
// log's stamp after it.
//
// planned is the header of the base the update was planned from when the
// update that staged the journal applies it (nil: an interrupted update's
// journal, completed by the next command). While the manifest and log on
// disk are still the ones it names, the manifest is not read: it says the
// baselines, and the stat cache it came from stays (its stamps vouch for
// no file moved into place, and once the log grows it no longer matches
// the log; the update appends its record to it). Otherwise the cache is
// removed first and the manifest read, with its log, to learn whether the
// entry is in already.
func applyJournal(dir string, j *updateJournal, planned *statcache.Header) (fastio.FileID, error) {
	fileBaseline, baseline, log, known := plannedBaselines(dir, planned)
	if !known {
		// The stat cache describes the old files; the next scan writes a new one.
		if err := os.Remove(filepath.Join(dir, StatCacheName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fastio.FileID{}, err
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fastio.FileID{}, err
	}
	defer root.Close()
	for _, op := range j.Ops {
		target := filepath.FromSlash(op.Path)
		if op.Delete {
			if err := root.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fastio.FileID{}, fmt.Errorf("remove %s: %w", op.Path, err)
			}
			removeEmptyParents(root, op.Path)
			continue
		}
		staged := filepath.Join(UpdateDirName, op.Staged)
		if _, err := root.Lstat(staged); errors.Is(err, fs.ErrNotExist) {
			continue // moved into place before an interruption
		}
		if d := path.Dir(op.Path); d != "." {
			if err := root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
				return fastio.FileID{}, fmt.Errorf("mkdir for %s: %w", op.Path, err)
			}
		}
		if err := root.Rename(staged, target); err != nil {
			return fastio.FileID{}, fmt.Errorf("move %s into place: %w", op.Path, err)
		}
	}
	if len(j.Conflicts) > 0 {
		if err := addConflicts(dir, j.Conflicts); err != nil {
			return fastio.FileID{}, err
		}
	}
	if !known {
		m, state, err := readManifestAndLog(dir)
		if err != nil {
			return fastio.FileID{}, err
		}
		fileBaseline, baseline, log = state.fileBaseline, m.Baseline, state.log
	}
	if baseline != j.To {
		line, err := json.Marshal(j.Entry)
		if err != nil {
			return fastio.FileID{}, err
		}
		if log, err = appendManifestLog(dir, fileBaseline, line); err != nil {
			return fastio.FileID{}, err
		}
	}
	return log, os.RemoveAll(filepath.Join(dir, UpdateDirName))
}

// plannedBaselines returns, from planned (see applyJournal), the baseline
// checkout dir's manifest file names, the checkout's baseline (its log
// applied) and the log's stamp — known when the manifest file and the log
// on disk are still those planned describes.
func plannedBaselines(dir string, planned *statcache.Header) (fileBaseline, baseline Hash, log fastio.FileID, known bool) {
	if planned == nil {
		return
	}
	fi, err := os.Lstat(filepath.Join(dir, ManifestName))
	if err != nil || fastio.StampOf(fi) != planned.ManifestStamp || currentLogStamp(dir) != planned.Log {
		return
	}
	return planned.ManifestBaseline, planned.Baseline, planned.Log, true
}

// removeEmptyParents removes the folders above slash path p that a
// removal left empty (a version holds no empty folder).
func removeEmptyParents(root *os.Root, p string) {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if root.Remove(filepath.FromSlash(d)) != nil {
			return
		}
	}
}

// readConflictList reads dir's conflict list; nil when there is none.
func readConflictList(dir string) ([]string, error) {
	b, _, err := readRegular(filepath.Join(dir, ConflictsName), MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%w: %s in %s is damaged: %v", ErrRefused, ConflictsName, dir, err)
	}
	return list, nil
}

// addConflicts adds paths to dir's conflict list.
func addConflicts(dir string, paths []string) error {
	list, err := readConflictList(dir)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	slices.Sort(list)
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	return replaceFile(filepath.Join(dir, ConflictsName), b, 0o644, true)
}
