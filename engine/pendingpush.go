package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/thalix/tv/internal/fastio"

	"github.com/thalix/tv/atomicfile"
)

// PendingPushName is the record a commit writes beside the manifest just
// before it moves the workspace ref, and removes once the manifest
// records the new version. A commit whose ref update landed but whose
// answer never came (a remote push killed or cut off after the server
// took it) leaves it behind; the next commit, update or walk-test of the
// checkout reads the ref and, when it holds the recorded version, records
// that version in the manifest as the commit would have, so edits made
// since are committed on top of it instead of conflicting with it. The
// record names refs and object ids only (never a URL or a credential).
const PendingPushName = ".thalix-workspace.pending-push"

// pendingPushFormat is the record format tv writes and reads.
const pendingPushFormat = 1

// pendingPush is a commit's ref update in flight, and the manifest log
// entry that records it in the checkout.
type pendingPush struct {
	Format   int             `json:"tv_pending_push"`
	VaultID  string          `json:"vault_id"`
	Ref      string          `json:"ref"`
	From     Hash            `json:"from"`
	To       Hash            `json:"to"`
	Manifest Hash            `json:"manifest_baseline"` // the manifest file's own baseline
	Baseline Hash            `json:"baseline"`          // the checkout's baseline before the commit
	Entry    json.RawMessage `json:"entry"`             // a manifestLogEntry line
}

// offliner is a vault that may answer from a cache without its server
// (gitbackend.Remote): then whether a push landed cannot be known.
type offliner interface {
	Offline() (lastSync time.Time, why error)
}

// writePendingPush records, durably, that the commit of plan p is about
// to move ref from head to version and that the manifest then records
// entry.
func (e *Engine) writePendingPush(p *Plan, ref string, head, version Hash, entry []byte) error {
	b, err := json.Marshal(pendingPush{Format: pendingPushFormat, VaultID: e.vault.ID(), Ref: ref, From: head, To: version,
		Manifest: p.base.Header.ManifestBaseline, Baseline: p.Baseline, Entry: entry})
	if err != nil {
		return err
	}
	// The record's content is synced, its folder entry is not (one fsync
	// per commit fewer): after a power loss it is there and whole, or not
	// there at all. On ext4 the ref update's own folder fsync commits the
	// journal that holds the record's rename first. Where the record is
	// lost anyway, nothing is: the next commit meets the landed version as
	// a newer head and re-applies the checkout's edits onto it, as for any
	// racing commit (a file edited again since then is a conflict to
	// resolve, files untouched).
	if err := atomicfile.WriteFile(filepath.Join(p.Dir, PendingPushName), b, atomicfile.Options{Mode: 0o644, Sync: atomicfile.SyncData}); err != nil {
		return fmt.Errorf("record the commit in %s before pushing: %w", p.Dir, err)
	}
	return nil
}

// clearPendingPush removes dir's pending push record.
func clearPendingPush(dir string) error {
	if err := os.Remove(filepath.Join(dir, PendingPushName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// settlePendingPush resolves a pending push record of checkout dir left
// by an interrupted commit; the caller holds the checkout's lock. When
// the workspace ref holds the recorded version (it is the head, or an
// ancestor of it within MaxPendingPushDepth first parents), the manifest
// log gets the entry the commit would have written; either way the record
// is then removed. A record of another vault, or one that cannot be
// checked because the vault answers from its cache, is left for later.
func (e *Engine) settlePendingPush(ctx context.Context, dir string) error {
	rec, err := readPendingPush(dir)
	if err != nil || rec == nil {
		return err
	}
	if rec.VaultID != e.vault.ID() {
		return nil
	}
	if o, ok := e.vault.(offliner); ok {
		if _, why := o.Offline(); why != nil {
			return nil
		}
	}
	landed, err := e.refHolds(ctx, rec.Ref, rec.To)
	if err != nil {
		return err
	}
	if landed {
		if err := adoptPendingPush(dir, rec); err != nil {
			return err
		}
	}
	return clearPendingPush(dir)
}

// settlePendingPushLocked is settlePendingPush for a caller that does not
// hold the checkout's lock: it takes it only when there is a record.
func (e *Engine) settlePendingPushLocked(ctx context.Context, dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, PendingPushName)); err != nil {
		return nil
	}
	unlock, err := fastio.LockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	return e.settlePendingPush(ctx, dir)
}

// readPendingPush reads and checks dir's pending push record; nil when
// there is none.
func readPendingPush(dir string) (*pendingPush, error) {
	b, _, err := readRegular(filepath.Join(dir, PendingPushName), MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec pendingPush
	var entry manifestLogEntry
	if err := json.Unmarshal(b, &rec); err != nil || rec.Format != pendingPushFormat || rec.To.IsZero() || rec.Ref == "" ||
		json.Unmarshal(rec.Entry, &entry) != nil {
		return nil, fmt.Errorf("%w: %s in %s is damaged; remove it and check whether the last commit landed (tv workspace log)", ErrRefused, PendingPushName, dir)
	}
	for _, f := range entry.Files {
		if err := checkManifestFile(f); err != nil {
			return nil, fmt.Errorf("%s in %s: %w", PendingPushName, dir, err)
		}
	}
	for _, d := range entry.Deleted {
		if err := CheckPath(d); err != nil {
			return nil, fmt.Errorf("%s in %s: %w", PendingPushName, dir, err)
		}
	}
	return &rec, nil
}

// refHolds reports whether ref is version or has it among its first
// MaxPendingPushDepth first-parent ancestors.
func (e *Engine) refHolds(ctx context.Context, ref string, version Hash) (bool, error) {
	h, err := e.vault.Ref(ctx, ref)
	if errors.Is(err, ErrRefNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for range MaxPendingPushDepth {
		if h == version {
			return true, nil
		}
		c, err := e.vault.ReadCommit(ctx, h)
		if err != nil {
			return false, err
		}
		if len(c.Parents) == 0 {
			return false, nil
		}
		h = c.Parents[0]
	}
	return false, nil
}

// adoptPendingPush appends the record's entry to the manifest log, unless
// the commit already got that far (a manifest rewritten since: the commit
// compacted the log, or the checkout was replaced; or one that already
// records the entry), or the checkout moved on without it (an update from
// the cache while the server was unreachable appended its own entry: the
// files are that update's, and the record's entry would misdescribe them).
func adoptPendingPush(dir string, rec *pendingPush) error {
	m, state, err := readManifestAndLog(dir)
	if err != nil {
		return err
	}
	if state.fileBaseline != rec.Manifest {
		return nil
	}
	var entry manifestLogEntry
	if err := json.Unmarshal(rec.Entry, &entry); err != nil {
		return err
	}
	if manifestRecords(m, &entry) || (!rec.Baseline.IsZero() && m.Baseline != rec.Baseline) {
		return nil
	}
	_, err = appendManifestLog(dir, rec.Manifest, rec.Entry)
	return err
}

// manifestRecords reports whether m already says what entry says.
func manifestRecords(m *Manifest, entry *manifestLogEntry) bool {
	if m.Baseline != entry.Baseline {
		return false
	}
	have := make(map[string]ManifestFile, len(m.Files))
	for _, f := range m.Files {
		have[f.Path] = f
	}
	for _, f := range entry.Files {
		if have[f.Path] != f {
			return false
		}
	}
	for _, d := range entry.Deleted {
		if _, ok := have[d]; ok {
			return false
		}
	}
	return true
}
