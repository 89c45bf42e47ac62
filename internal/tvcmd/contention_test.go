package tvcmd

import (
	"fmt"
	"os"
	"path/filepath"
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
	e.commitAll(t, dirs, "parallel")
	git(t, e.vault(), "fsck", "--strict")
}
