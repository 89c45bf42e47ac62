// Package hugeheap asks Linux to back the Go heap's first arena with
// transparent huge pages, for a short-lived tv command.
//
// Why it exists: on the virtual machines tv is benchmarked on (PVM
// guests, shadow page tables) a first touch of an anonymous page costs
// ~10 µs (a C program touching 1,024 fresh pages: 11.5 ms; the same with
// MADV_HUGEPAGE: 2.4 ms), and a tv command that reads a 10,000-file
// checkout touches ~4 MiB of fresh heap: ~1,150 page faults, a fifth of
// its CPU time. The Go runtime asks for no huge pages, so where the
// system's policy is "madvise" (this machine's, and many distributions')
// it gets none. Advise marks the arena holding the heap's first 4 MiB chunk
// before the command allocates much; the chunk's 2 MiB half that the
// runtime's start has not touched yet then comes as one huge page on its
// first touch. The runtime starts the heap at a random page of that chunk
// (Go 1.26's heap base randomisation), so this half exists in about half
// of the runs: a 10k-file diff then makes ~690–940 page faults instead of
// ~1,150 (16 runs), and over all runs check and walk-test of 10k files
// took 4 % less wall time (−1.5 to −1.7 ms, paired runs, session 13).
// The heap's later chunks are mapped afresh by the runtime (a new
// mapping, without the advice) and stay small pages; a 1,000-file
// command's heap mostly fits in pages the runtime's start touched, so it
// gains little and loses nothing.
//
// The cost is memory: at most one 2 MiB page more than the command
// touches per huge page. The MCP servers, which run for long and return
// memory to the system, call Advise(false), as they turn off the stat
// cache's retained mappings.
//
// Where transparent huge pages are off ("never") or missing (other
// systems), Advise does nothing.
package hugeheap
