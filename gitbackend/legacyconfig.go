package gitbackend

import (
	"bytes"
	"fmt"
)

// Reading tv.vaultid from a git config file. Vaults made before VaultIDRef
// kept their id there (readLegacyID). go-git's config decoder read it
// before; it links go-git's config package, gcfg and encoding/gob, whose
// package initialisation was measured at ~0.5 ms of every tv command's
// start, for one key of old vaults. readLegacyConfig reads git's config
// syntax the way git's own parser does (config.c: git_parse_source,
// get_base_var, get_value, parse_value), so it finds the value
// `git config --file F --get tv.vaultid` prints, and refuses what git
// refuses:
//
//   - `[section]` headers, the name case-insensitive (letters, digits,
//     '-' and '.'); `[section "subsection"]` is another section, so
//     `[tv "x"]` does not hold tv.vaultid, nor does `[tv.x]`;
//   - `key = value` and `key=value` lines, the key case-insensitive
//     (a letter, then letters, digits and '-'); a key without '=' is a
//     boolean true;
//   - `#` and `;` comments, whole lines and after a value (outside quotes);
//   - values: leading and trailing whitespace dropped, each inner space,
//     tab or lone CR one space, double-quoted parts kept as they are,
//     the escapes \" \\ \n \t \b, a backslash at the end of a line joins
//     the next one;
//   - "\r\n" reads as "\n", a UTF-8 byte order mark at the start is skipped;
//   - the last occurrence of the key wins.
//
// Unlike git, which keeps names and values as C strings (cutting them at a
// NUL byte), it refuses a NUL byte anywhere in the file.

// configSyntaxError is a malformed line of a config file.
type configSyntaxError struct {
	line int // 1-based
	msg  string
}

// Error returns "line N: what is wrong".
func (e *configSyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// utf8BOM is the byte order mark git skips at the start of a config file.
var utf8BOM = []byte("\xef\xbb\xbf")

// readLegacyConfig returns the value of the last tv.vaultid in the git
// config file data: found reports that the key occurs, and value is ""
// when its last occurrence has no '=' (a boolean). A malformed file is a
// *configSyntaxError naming the line.
func readLegacyConfig(data []byte) (value string, found bool, err error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return "", false, &configSyntaxError{1 + bytes.Count(data[:i], []byte("\n")), "NUL byte"}
	}
	r := &configReader{data: bytes.TrimPrefix(data, utf8BOM), line: 1}
	inTV := false // the current section is [tv]
	comment := false
	for {
		c := r.next()
		switch {
		case c == '\n':
			if r.eof {
				return value, found, nil
			}
			comment = false
		case comment || isConfigSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			name, sub, err := r.sectionHeader()
			if err != nil {
				return "", false, err
			}
			inTV = name == "tv" && !sub
		case isASCIIAlpha(c):
			key, v, err := r.keyValue(c)
			if err != nil {
				return "", false, err
			}
			if inTV && key == "vaultid" {
				value, found = v, true
			}
		default:
			return "", false, r.errorf("%q starts neither a section header, a key nor a comment", c)
		}
	}
}

// configReader reads a config file a byte at a time like git's
// get_next_char: "\r\n" reads as '\n', and past the end of the data every
// read returns '\n' with eof set.
type configReader struct {
	data    []byte
	pos     int
	line    int  // line of the byte last read, 1-based
	newline bool // the byte last read ended a line
	eof     bool
}

// next returns the next byte.
func (r *configReader) next() byte {
	if r.newline {
		r.line++
		r.newline = false
	}
	if r.pos >= len(r.data) {
		r.eof = true
		return '\n'
	}
	c := r.data[r.pos]
	r.pos++
	if c == '\r' && r.pos < len(r.data) && r.data[r.pos] == '\n' {
		c = '\n'
		r.pos++
	}
	r.newline = c == '\n'
	return c
}

// errorf returns a *configSyntaxError on the current line.
func (r *configReader) errorf(format string, args ...any) error {
	return &configSyntaxError{r.line, fmt.Sprintf(format, args...)}
}

// sectionHeader reads a section header after its '[': the name
// lowercased, and whether a subsection follows it (`[name "sub"]`).
func (r *configReader) sectionHeader() (name string, sub bool, err error) {
	var b []byte
	for {
		c := r.next()
		switch {
		case c == '\n':
			return "", false, r.errorf("section header without ']'")
		case c == ']':
			if len(b) == 0 {
				return "", false, r.errorf("section header without a name")
			}
			return string(b), false, nil
		case isConfigSpace(c):
			return string(b), true, r.subsection()
		case isConfigKeyChar(c) || c == '.':
			b = append(b, toASCIILower(c))
		default:
			return "", false, r.errorf("%q in a section name", c)
		}
	}
}

// subsection reads the rest of a section header after the whitespace that
// follows its name: more whitespace, a double-quoted subsection name (in
// which a backslash keeps the next byte), and ']'.
func (r *configReader) subsection() error {
	c := r.next()
	for c != '\n' && isConfigSpace(c) {
		c = r.next()
	}
	if c == '\n' {
		return r.errorf("section header without ']'")
	}
	if c != '"' {
		return r.errorf("%q after a section name, not '\"' or ']'", c)
	}
	for {
		c := r.next()
		if c == '\\' {
			c = r.next()
		} else if c == '"' {
			break
		}
		if c == '\n' {
			return r.errorf("unterminated subsection name")
		}
	}
	switch c := r.next(); c {
	case ']':
	case '\n':
		return r.errorf("section header without ']'")
	default:
		return r.errorf("%q after a subsection name, not ']'", c)
	}
	return nil
}

// keyValue reads a key line from the key's first letter c: the key
// lowercased and its value ("" for a key without '=').
func (r *configReader) keyValue(c byte) (key, value string, err error) {
	b := []byte{toASCIILower(c)}
	for {
		c = r.next()
		if !isConfigKeyChar(c) {
			break
		}
		b = append(b, toASCIILower(c))
	}
	for c == ' ' || c == '\t' {
		c = r.next()
	}
	if c == '\n' {
		return string(b), "", nil
	}
	if c != '=' {
		return "", "", r.errorf("%q after key %q, not '=' or the end of the line", c, b)
	}
	value, err = r.value()
	return string(b), value, err
}

// value reads a value after its '=' up to the end of its line (or of
// the last line it continues on), like git's parse_value.
func (r *configReader) value() (string, error) {
	var v []byte
	quote, comment := false, false
	spaces := 0 // whitespace seen since the last byte of v, outside quotes
	for {
		c := r.next()
		if c == '\n' {
			if quote {
				return "", r.errorf("unterminated quote in a value")
			}
			return string(v), nil
		}
		if comment {
			continue
		}
		if !quote {
			if isConfigSpace(c) {
				if len(v) > 0 {
					spaces++
				}
				continue
			}
			if c == '#' || c == ';' {
				comment = true
				continue
			}
		}
		for ; spaces > 0; spaces-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			switch c = r.next(); c {
			case '\n':
				continue // the value goes on on the next line
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", r.errorf("unknown escape \\%c in a value", c)
			}
			v = append(v, c)
		case '"':
			quote = !quote
		default:
			v = append(v, c)
		}
	}
}

// isConfigSpace reports whether c is whitespace to git (its isspace:
// space, tab, CR and LF; not VT or FF).
func isConfigSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isASCIIAlpha reports whether c is an ASCII letter.
func isASCIIAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isConfigKeyChar reports whether c may appear in a key or section name
// (git's iskeychar: an ASCII letter or digit, or '-').
func isConfigKeyChar(c byte) bool { return isASCIIAlpha(c) || c >= '0' && c <= '9' || c == '-' }

// toASCIILower lowercases an ASCII letter and returns other bytes as they
// are.
func toASCIILower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
