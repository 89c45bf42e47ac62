//go:build unix

package mcptools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// TestBashTimeoutKillsGroup: a command that backgrounds `sleep 100` and
// waits is killed at its timeout, grandchild included.
func TestBashTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	d, err := RunBash(context.Background(), "sleep 100 & echo $! > pid; echo started; wait", dir, time.Second, MaxBashOutputBytes)
	if err != nil {
		t.Fatal(err)
	}
	if !d.TimedOut || d.ExitCode != 128+int(syscall.SIGKILL) || !strings.Contains(d.Output, "started") {
		t.Fatalf("result %+v", d)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("took %v", el)
	}
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild sleep %d survived the timeout", pid)
	}
}
