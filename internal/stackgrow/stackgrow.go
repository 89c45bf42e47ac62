// Package stackgrow grows the calling goroutine's stack once, at the top
// of the goroutine, to the size its work is known to reach.
//
// Why it exists: a goroutine starts with a small stack (2 KiB on Linux,
// unless the runtime's adaptive sizing has raised it), and each time a
// call needs more the runtime doubles it (morestack, copystack): it
// allocates the new stack, copies the old one and walks every frame on it
// to adjust its pointers, looking each frame's function up in the
// binary's PC tables. Deep in a call chain that is many frames, and in a
// short-lived command the tables' pages are first touched then (page
// faults, ~12 µs each on the PVM guests tv is benchmarked on). A tv
// command's main goroutine grows 2 → 4 → 8 → 16 KiB deep inside the
// command, a scan worker 2 → 4 → 8 KiB inside its first folder listing.
// Growing at the top takes one copy of a stack a few frames deep.
//
// Measured (a 1,000-file ICM walk-test, bench/workspace's icm:1000 corpus,
// perf stat -r 20 of each build in turn, 10 rounds, session 21): 17.6 →
// 16.3 ms on average, faster in all 10 rounds; copystack calls 8 → 5 (the
// main goroutine, the two scan workers and the stat cache's reader each
// grow once). The cost is the stack the goroutine would have grown to
// anyway and a zeroed frame (a few hundred nanoseconds).
package stackgrow

// Frame sizes that make To16K and To8K's stack needs, with the runtime's
// guard and the few frames above them, fit just under the target size,
// so that the runtime doubles the stack to the target and no further
// (on Windows, whose stacks keep 4 KiB more guard, to twice the target).
const (
	frame16K = 12 << 10
	frame8K  = 5 << 10
)

// To16K makes the calling goroutine's stack at least 16 KiB, with one
// copy of the frames above the call (call it first thing).
//
//go:noinline
func To16K() {
	var frame [frame16K]byte
	touch(frame[:])
}

// To8K makes the calling goroutine's stack at least 8 KiB, as To16K.
//
//go:noinline
func To8K() {
	var frame [frame8K]byte
	touch(frame[:])
}

// touch writes to b, so that the compiler keeps the frame b is in; it
// does not let b escape.
//
//go:noinline
func touch(b []byte) { b[len(b)-1] = 1 }
