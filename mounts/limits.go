package mounts

import "time"

// Limits of the mount registry read. Error messages print them; the README
// lists them.
const (
	// MaxRegistryBytes bounds the mount registry file read.
	MaxRegistryBytes = 16 << 20 // 16 MiB
	// RegistryReadTimeout bounds one read of the registry (it must be a
	// regular file; a FIFO is refused without blocking).
	RegistryReadTimeout = 2 * time.Second
)
