package stackgrow

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// childEnv names the grow function and the stack limit a child test
// process runs with.
const childEnv = "TV_STACKGROW_CHILD"

// grows names the functions under test.
var grows = map[string]func(){"To16K": To16K, "To8K": To8K}

// TestGrowChild is the child's body: it caps goroutine stacks at the
// limit from childEnv and calls the function, on a fresh goroutine so
// that the test framework's own stack does not count.
func TestGrowChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("runs as a child of TestGrowsTo")
	}
	name, limit, _ := strings.Cut(spec, ":")
	n, err := strconv.Atoi(limit)
	if err != nil {
		t.Fatal(err)
	}
	debug.SetMaxStack(n)
	done := make(chan struct{})
	go func() { defer close(done); grows[name]() }()
	<-done
}

// TestGrowsTo shows that each function really grows the stack to its
// size (the compiler kept the frame): capped at half the size, the
// child dies of stack overflow; capped at the size, it does not grow
// past it (not on Windows, whose stacks keep 4 KiB more guard, so that
// the functions grow to twice their size there).
func TestGrowsTo(t *testing.T) {
	limits := func(size int) []int {
		if runtime.GOOS == "windows" {
			return []int{size / 2}
		}
		return []int{size / 2, size}
	}
	for _, tc := range []struct {
		name string
		size int
	}{{"To16K", 16 << 10}, {"To8K", 8 << 10}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, limit := range limits(tc.size) {
				cmd := exec.Command(os.Args[0], "-test.run=^TestGrowChild$", "-test.count=1")
				cmd.Env = append(os.Environ(), childEnv+"="+tc.name+":"+strconv.Itoa(limit))
				out, err := cmd.CombinedOutput()
				overflow := strings.Contains(string(out), "stack exceeds")
				if want := limit < tc.size; overflow != want || (err == nil) == want {
					t.Fatalf("stack capped at %d bytes: overflow=%v, err=%v, want overflow=%v\n%s", limit, overflow, err, want, out)
				}
			}
		})
	}
}
