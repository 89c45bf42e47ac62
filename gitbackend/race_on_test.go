//go:build race

package gitbackend

// The race detector slows the compressor down about 25x; the streaming
// test then uses a smaller blob (still 4x its heap bound).
const streamBlobSize = 16 << 20
