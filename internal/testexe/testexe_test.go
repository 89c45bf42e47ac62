package testexe

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// TestWriteWhileForking writes and runs scripts while other goroutines
// start processes: no run may fail with "text file busy" (without the
// lock, one of the first 50 runs did, in every try).
func TestWriteWhileForking(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	dir := t.TempDir()
	stop := make(chan struct{})
	var forks sync.WaitGroup
	for range 4 {
		forks.Add(1)
		go func() {
			defer forks.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				exec.Command(sh, "-c", "exit 0").Run()
			}
		}()
	}
	defer func() { close(stop); forks.Wait() }()
	for i := range 200 {
		p := filepath.Join(dir, fmt.Sprintf("s%03d", i))
		Write(t, p, []byte("#!/bin/sh\nexit 0\n"))
		if out, err := exec.Command(p).CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, out)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o755 {
			t.Fatalf("%s: mode %v, want 0755", p, fi.Mode())
		}
	}
}
