package statcache

// MaxRetainedBytes bounds the cache files a Load leaves mapped when
// RetainMappings is on: a larger file (a tree of ~25k files or more) has
// its strings copied out and its mapping released, as a server's Load
// does. What retention saves is fresh heap per command on a small tree;
// on a 100k-file tree its 17 MB of file pages, all touched by the
// decoding, came on top of the heap (peak RSS of a re-hashing walk-test
// 73 -> 88 MiB, over tv's 80 MiB bound).
const MaxRetainedBytes = 4 << 20 // 4 MiB
