package hostconfig

// Limits enforced by this package. Error messages print them.
const (
	// MaxConfigBytes is the largest host config file tv reads or writes:
	// 16 MiB. A larger file is refused with ErrTooLarge and left untouched.
	MaxConfigBytes = 16 << 20

	// MaxNameBytes is the longest server name accepted in an Entry.
	MaxNameBytes = 64

	// MaxShownBytes caps each string quoted from a config file in an error
	// message (longer strings are cut and marked with "…").
	MaxShownBytes = 200

	// MaxWriteAttempts is how often Install and Uninstall re-read and
	// re-apply their edit when another program changed the file between
	// tv's read and tv's rename, before giving up with ErrConcurrentEdit.
	MaxWriteAttempts = 3
)
