// Package hugeheap backs the start of the Go heap with transparent huge
// pages, for a short-lived tv command.
//
// Why it exists: on the virtual machines tv is benchmarked on (PVM
// guests, shadow page tables) a first touch of an anonymous page costs
// ~10 µs (a C program touching 1,024 fresh pages: 11.5 ms; the same with
// MADV_HUGEPAGE: 2.4 ms). A 1,000-file walk-test touches ~290 fresh heap
// pages (a minimal Go program ~90) and a 10,000-file check ~1,000: a
// fifth of their time. The Go runtime asks for no huge pages, so where
// the system's policy is "madvise" (this machine's, and many
// distributions') it gets none.
//
// The package's init (it imports only syscall, so it runs among the first
// package initialisers, before most of tv's) calls Advise(true): the
// arena holding the heap is marked MADV_HUGEPAGE, and the 2 MiB regions
// around the first heap object — the runtime's first 4 MiB heap chunk,
// which every command's early allocations fill, part of it already
// touched by the runtime's start — are collapsed into huge pages at once
// with MADV_COLLAPSE (Linux 6.1 and later; elsewhere the call fails and
// nothing changes). Marking alone left the chunk's touched half in small
// pages, and the runtime starts the heap at a random page of the chunk
// (Go 1.26's heap base randomisation), so it helped about half of the
// runs. Measured in paired perf stat runs (60 each, session 17): a
// 1,000-file walk-test 16.4–17.4 → 14.2–15.1 ms (page faults ~520 →
// ~330); collapsing in tvcmd.Main instead of in init gained only
// 15.5–15.8 ms, the package initialisers in between being part of what
// it saves. The heap's later chunks are mapped afresh by the runtime (a
// new mapping, without the advice) and stay small pages.
//
// The cost is memory and a little time: the 4 MiB chunk is resident at
// once (the command would fill much of it anyway), and a collapse may
// compact memory to find a huge page (~0.3 ms here). The MCP servers,
// which run for long and return memory to the system, call
// Advise(false), as they turn off the stat cache's retained mappings;
// pages already collapsed stay huge.
//
// Where transparent huge pages are off ("never") or missing (other
// systems), nothing is advised or collapsed.
package hugeheap
