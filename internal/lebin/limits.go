package lebin

// MaxStr is the longest string Writer.Str can write: its length is a
// uint16. A longer one sets the Writer's Err, and the stat and ICM caches
// are then not written (they are accelerators only).
const MaxStr = 1<<16 - 1
