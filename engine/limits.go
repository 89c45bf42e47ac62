package engine

// Limits the engine enforces. Error messages print them; the README lists them.
const (
	// MaxUserBytes bounds a user name.
	MaxUserBytes = 64
	// MaxTokenBytes bounds a token read by `tv login --token-stdin`.
	MaxTokenBytes = 4 << 10 // 4 KiB
)
