package tvcmd

import (
	"sync"
	"testing"
)

// commitAll commits every checkout of dirs with reason, all at once (the
// processes start together from one gate), and fails t for each commit
// that does not exit 0.
func (e *tvEnv) commitAll(t *testing.T, dirs []string, reason string) {
	t.Helper()
	codes := make([]int, len(dirs))
	errs := make([]string, len(dirs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i], codes[i] = e.run("workspace", "commit", dirs[i], "--reason", reason)
		}()
	}
	close(start)
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("commit %d of %s: exit %d\n%s", i, dirs[i], c, errs[i])
		}
	}
}
