//go:build !race

package gitbackend

// streamBlobSize is the blob TestStreamBigBlob writes and reads back.
const streamBlobSize = 64 << 20
