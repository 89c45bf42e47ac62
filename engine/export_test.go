package engine

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/thalix/tv/internal/fastio"
)

// Hooks for the tests of package engine_test that interleave a walk-test
// or a commit with another at chosen points.

// PlanForTest plans checkout dir as walk-test and commit do, without
// writing the stat cache or taking the checkout's lock.
func PlanForTest(dir string) (*Plan, error) { return planCheckout(context.Background(), dir, false) }

// WriteCacheForTest writes the stat cache walk-test would write for p.
func WriteCacheForTest(p *Plan) error {
	return saveStatCache(p.Dir, p.nextBase(false, ZeroHash), p.racyFrom())
}

// RestampAgreesForTest plans checkout dir and reports whether the stat
// cache a walk-test saves, made in the base itself (restampBase), holds
// the entries of a copy made aside (nextBase), and which of its entries
// carry a stamp, by path.
func RestampAgreesForTest(dir string) (agree bool, stamped map[string]bool, err error) {
	p, err := planCheckout(context.Background(), dir, false)
	if err != nil {
		return false, nil, err
	}
	defer p.disk.close()
	aside := p.nextBase(false, ZeroHash)
	inPlace := p.restampBase()
	stamped = map[string]bool{}
	for _, e := range inPlace.Files {
		stamped[e.Path] = e.Stamp != (fastio.Stamp{Size: e.Stamp.Size})
	}
	return reflect.DeepEqual(aside, inPlace), stamped, nil
}

// LockCheckoutForTest takes the lock a commit holds on checkout dir.
func LockCheckoutForTest(dir string) (func(), error) { return fastio.LockDir(dir) }

// CommitPlanForTest commits plan p, made earlier by PlanForTest, as
// Commit would have after planning (without the checkout's lock).
func (e *Engine) CommitPlanForTest(ctx context.Context, p *Plan, reason string) (*CommitResult, error) {
	sig, err := e.signature()
	if err != nil {
		return nil, err
	}
	return e.commitPlan(ctx, p, "", sig, reason)
}

// SetStageFaultForTest makes an update fail before staging its i-th file
// when f returns an error; the returned func restores the default.
func SetStageFaultForTest(f func(i int) error) (restore func()) {
	old := stageFault
	stageFault = f
	return func() { stageFault = old }
}

// CountOpensForTest calls f with the slash path of every checkout file a
// scan opens for reading until the returned function is called.
func CountOpensForTest(f func(p string)) (stop func()) {
	openedHook.Store(&f)
	return func() { openedHook.Store(nil) }
}

// TreesForTest writes the tree holding files (path → content id, mode
// ModeFile) twice, by buildTree and by applyChanges on an empty base.
func TreesForTest(ctx context.Context, v Vault, files map[string]Hash) (built, applied Hash, err error) {
	w, err := v.NewObjectWriter(ctx)
	if err != nil {
		return ZeroHash, ZeroHash, err
	}
	defer w.Abort()
	var cs []change
	for p, id := range files {
		cs = append(cs, change{Path: p, Mode: ModeFile, ID: id})
	}
	if built, err = buildTree(ctx, w, cs); err != nil {
		return ZeroHash, ZeroHash, err
	}
	if applied, err = applyChanges(ctx, v, w, ZeroHash, cs); err != nil {
		return ZeroHash, ZeroHash, err
	}
	return built, applied, w.Finish()
}

// AppendLogEntryForTest appends to checkout dir's manifest log an entry
// that moves its baseline to version (no file changes), as a commit or
// an update completed by another process would.
func AppendLogEntryForTest(dir string, version Hash) error {
	_, state, err := readManifestAndLog(dir)
	if err != nil {
		return err
	}
	line, err := json.Marshal(manifestLogEntry{Baseline: version})
	if err != nil {
		return err
	}
	_, err = appendManifestLog(dir, state.fileBaseline, line)
	return err
}

// BaseAheadReadForTest waits for the read ReadBaseAhead started to end,
// leaving its result to be taken.
func BaseAheadReadForTest() {
	baseAhead.mu.Lock()
	c := baseAhead.c
	baseAhead.mu.Unlock()
	if c != nil {
		b := <-c
		c <- b
	}
}
