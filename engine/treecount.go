package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// countFiles counts the files under tree by walking its tree objects, in
// parallel (ScanWorkers reads at a time), without building a path or an
// entry list: what a version's log line needs of a folder added or
// deleted whole (the first version's root is one).
func countFiles(ctx context.Context, o Objects, tree Hash) (int, error) {
	if tree.IsZero() {
		return 0, nil
	}
	var (
		n        atomic.Int64
		errOnce  sync.Once
		firstErr error
		failed   atomic.Bool
		wg       sync.WaitGroup
		sem      = make(chan struct{}, ScanWorkers)
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		failed.Store(true)
	}
	var walk func(id Hash)
	walk = func(id Hash) {
		defer wg.Done()
		if failed.Load() {
			return
		}
		sem <- struct{}{}
		entries, err := o.ReadTree(ctx, id)
		<-sem
		if err != nil {
			fail(err)
			return
		}
		files := 0
		for _, en := range entries {
			switch en.Mode {
			case ModeDir:
				wg.Add(1)
				go walk(en.ID)
			case ModeFile, ModeExecutable:
				files++
			default:
				fail(fmt.Errorf("%w: %s has git mode %o, which tv does not handle", ErrRefused, en.Name, en.Mode))
				return
			}
		}
		n.Add(int64(files))
	}
	wg.Add(1)
	walk(tree)
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	return int(n.Load()), nil
}
