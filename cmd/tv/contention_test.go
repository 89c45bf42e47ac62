package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestParallelCommitsDistinctWorkspaces: commits to different workspaces
// of one local vault do not contend on refs/tv/access. Each of 20
// processes commits its own workspace at the same moment; every one lands.
func TestParallelCommitsDistinctWorkspaces(t *testing.T) {
	e := newTVEnv(t)
	const n = 20
	dirs := make([]string, n)
	for i := range n {
		name := fmt.Sprintf("par%02d", i)
		e.must("workspace", "init", "--name", name)
		dirs[i] = filepath.Join(t.TempDir(), name)
		e.must("workspace", "checkout", name, "--output", dirs[i])
		f := filepath.Join(dirs[i], "stages", "01-research", "output", "note.md")
		if err := os.WriteFile(f, []byte(fmt.Sprintf("workspace %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	codes := make([]int, n)
	errs := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i], codes[i] = e.run("workspace", "commit", dirs[i], "--reason", "parallel")
		}()
	}
	close(start)
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("commit %d: exit %d: %s", i, c, errs[i])
		}
	}
	git(t, e.vault(), "fsck", "--strict")
}
