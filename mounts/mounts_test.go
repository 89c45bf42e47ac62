package mounts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func checkout(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRegistry(t *testing.T) {
	reg := filepath.Join(t.TempDir(), "state", "mounts.json")
	if ms, err := Read(reg); err != nil || len(ms) != 0 {
		t.Fatalf("absent registry: %v %v", ms, err)
	}
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	checkout(t, a)
	checkout(t, b)
	for _, d := range []string{a, b, a} {
		if err := Add(reg, Mount{Path: d, WorkspaceID: "ws_x"}); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := Read(reg)
	if err != nil || len(ms) != 2 || ms[0].Path != a || ms[1].Path != b {
		t.Fatalf("mounts = %+v, %v", ms, err)
	}
	os.Remove(filepath.Join(b, ManifestName))
	if ms, _ := Read(reg); len(ms) != 1 || ms[0].Path != a {
		t.Fatalf("stale entry not dropped: %+v", ms)
	}
	os.WriteFile(reg, []byte("not json"), 0o600)
	if _, err := Read(reg); err == nil {
		t.Fatal("damaged registry read without error")
	}
}

// TestConcurrentAdd: parallel checkouts never lose each other's entries.
func TestConcurrentAdd(t *testing.T) {
	reg := filepath.Join(t.TempDir(), "mounts.json")
	base := t.TempDir()
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		d := filepath.Join(base, fmt.Sprint(i))
		checkout(t, d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Add(reg, Mount{Path: d}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ms, _ := Read(reg); len(ms) != n {
		t.Fatalf("%d of %d mounts recorded", len(ms), n)
	}
}

// TestForgetAndMountedFalse: Forget removes a record (even of a checkout
// still on disk) and reports a missing one; a record marked
// "mounted": false is kept in the file but not read as a mount.
func TestForgetAndMountedFalse(t *testing.T) {
	reg := filepath.Join(t.TempDir(), "mounts.json")
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, ManifestName), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Add(reg, Mount{Path: d, WorkspaceID: fmt.Sprint("ws_", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if m, err := Forget(reg, dirs[0]); err != nil || m.Path != dirs[0] {
		t.Fatalf("Forget = %+v, %v", m, err)
	}
	if _, err := Forget(reg, dirs[0]); !errors.Is(err, ErrNotMounted) {
		t.Fatalf("second Forget = %v, want ErrNotMounted", err)
	}
	ms, err := Read(reg)
	if err != nil || len(ms) != 1 || ms[0].Path != dirs[1] {
		t.Fatalf("Read after Forget = %+v, %v", ms, err)
	}
	b, _ := os.ReadFile(reg)
	b = bytes.Replace(b, []byte(`"workspace_id"`), []byte(`"mounted": false, "workspace_id"`), 1)
	if err := os.WriteFile(reg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if ms, err := Read(reg); err != nil || len(ms) != 0 {
		t.Fatalf("Read with mounted:false = %+v, %v", ms, err)
	}
}
