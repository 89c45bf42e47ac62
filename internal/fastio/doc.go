// Package fastio is the system-call layer under tv's checkout scan and
// checkout writer: folder listing, lstat and open relative to an open
// folder, a file mapped read-only, the stat fields the stat cache compares
// (inode, change time), and the checkout lock. Everything that needs
// syscall, x/sys or unsafe for speed lives here, so that package engine
// reads as the domain.
//
// Why it exists: os.Root resolves a path one component at a time (an
// openat and a close per folder of the path), and every *os.File costs
// four fcntl and a refused epoll_ctl; on a checkout of 10k+ files those
// system calls were most of walk-test's and checkout's time. Here each
// folder is opened once and its files are created, listed and stat'ed
// relative to it by a single name, never following a symlink:
//
//   - Lister reads raw directory entries (getdents64: the names are cut
//     from one string per read, not allocated one by one as
//     os.File.ReadDir does) and lstats by a raw fstatat system call with
//     the name in a reused buffer. On a loaded 2-core machine the raw call
//     took context switches of tv check on 10k files from ~700 to ~380
//     and its CPU from 191 ms to 154 ms (perf stat, README "tv check vs
//     git status"), since telling the scheduler about each of 10k calls
//     cost a thread hand-off whenever one outlived a time slice.
//   - Dir.OpenBeneath opens a file below the checkout in one openat2 call
//     (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) instead of an os.Root walk
//     per path component; it reports ok=false where the kernel has no
//     openat2, and the caller opens through os.Root. The open and the
//     File's fstat, reads and close are raw system calls too, with the
//     name in a pooled buffer: a tv check of 10k Markdown files made
//     426–1,880 voluntary context switches before, 200–391 after (GNU
//     time, three alternating runs at load 12; under strace 2,039 futex
//     and 9,159 nanosleep calls before, 144 and 1,634 after). A file
//     here is read from the page cache; on a file system that blocks
//     (a stuck network mount) a raw call holds its thread's P until it
//     returns.
//   - MapFile maps the stat cache instead of reading it into fresh heap
//     pages (a 10k-file cache is 1.5 MiB of new pages per walk-test);
//     with the raw lstat it took tv workspace diff's CPU on 10k files
//     from 163 ms to 133 ms (README "Checkout lifecycle vs git").
//   - PolledFile reads and writes a stdio MCP server's non-blocking pipe
//     or socket with raw calls, waiting in Go's poller only when the call
//     would block, and SameFile is its one-stat check of the launch
//     folder: a call through *os.File woke the runtime's sleeping monitor
//     thread on every request. tv mcp local's context switches over 4,000
//     read_file and ping requests fell from 14,500 to 5,450 (perf
//     sched_switch; 1.3 a request, the wait for the next one).
//
// Contract: every name passed to Dir.Mkdir, Dir.Create and Lister.Lstat
// is one path element (Mkdir and Create refuse anything else with
// ErrNotElement); nothing here follows a symlink except OpenLister's
// follow for the checkout's own root, as os.ReadDir would. Errors are
// *fs.PathError wrapping the system's errno, so errors.Is(err,
// fs.ErrNotExist) and friends work. EINTR is retried.
//
// Off Linux the same API is built on os.Root and os.Lstat (fastio_other.go);
// off unix MapFile reads the file instead, the stamp has no inode or change
// time, and LockDir locks a file in the temporary directory.
package fastio
