// Package jsonspan finds where JSON values end in bytes already known to
// be valid JSON (json.Valid, or encoding/json's own output), without
// decoding them: hostconfig edits a host's config file in place around
// the spans it finds, and mcpkit's transport screens a request line's
// members with them.
package jsonspan

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace (len(d) when none).
func SkipSpace(d []byte, i int) int {
	for i < len(d) && IsSpace(d[i]) {
		i++
	}
	return i
}

// SkipString returns the index after the string literal starting at
// d[i] == '"'.
func SkipString(d []byte, i int) int {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(d)
}

// SkipValue returns the index after the value starting at d[i].
func SkipValue(d []byte, i int) int {
	if i >= len(d) {
		return len(d)
	}
	switch d[i] {
	case '"':
		return SkipString(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				i = SkipString(d, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(d)
	}
	for i < len(d) && !IsSpace(d[i]) && d[i] != ',' && d[i] != '}' && d[i] != ']' {
		i++
	}
	return i
}
