package engine

import (
	"encoding/hex"
	"fmt"
)

// Hash is a git object id (SHA-1). The zero Hash means "no object".
type Hash [20]byte

// ZeroHash is the absent object id.
var ZeroHash Hash

// ParseHash parses a 40-digit lowercase or uppercase hex object id.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 2*len(h) {
		return h, fmt.Errorf("%w: object id %q is not 40 hex digits", ErrUsage, s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("%w: object id %q is not hex", ErrUsage, s)
	}
	return h, nil
}

// String returns the 40-digit lowercase hex form.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short returns the first 12 hex digits, for human output.
func (h Hash) Short() string { return h.String()[:12] }

// IsZero reports whether h is the zero (absent) id.
func (h Hash) IsZero() bool { return h == ZeroHash }

// MarshalText encodes h as hex (empty for the zero hash).
func (h Hash) MarshalText() ([]byte, error) {
	if h.IsZero() {
		return []byte{}, nil
	}
	return []byte(h.String()), nil
}

// UnmarshalText decodes hex (empty means zero).
func (h *Hash) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*h = ZeroHash
		return nil
	}
	p, err := ParseHash(string(b))
	if err != nil {
		return err
	}
	*h = p
	return nil
}
