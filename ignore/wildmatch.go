package ignore

// This file is a Go transcription of git's wildmatch.c (the matcher behind
// .gitignore), kept structurally close to the original so that its corner
// cases (character classes, "**" rules, escapes) behave exactly like git.

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wmPathname makes '*' and '?' not match '/', and gives "**" its special
// meaning (git's WM_PATHNAME).
const wmPathname = 1

// wildmatch reports whether text matches the glob pattern under git's rules.
func wildmatch(pattern, text string, flags int) bool {
	return dowild(pattern, 0, text, 0, flags) == wmMatch
}

// at returns s[i], or 0 past the end (C's NUL terminator).
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

func dowild(pat string, p int, text string, t int, flags int) int {
	for ; at(pat, p) != 0; t, p = t+1, p+1 {
		pCh := pat[p]
		tCh := at(text, t)
		if tCh == 0 && pCh != '*' {
			return wmAbortAll
		}
		switch pCh {
		case '\\':
			// Literal match with the following character; a trailing
			// backslash compares against NUL and fails.
			p++
			if at(pat, p) != tCh {
				return wmNoMatch
			}
			continue
		case '?':
			if flags&wmPathname != 0 && tCh == '/' {
				return wmNoMatch
			}
			continue
		case '*':
			var matchSlash bool
			p++
			if at(pat, p) == '*' {
				prevP := p - 2
				for p++; at(pat, p) == '*'; p++ {
				}
				if flags&wmPathname == 0 {
					matchSlash = true
				} else if (prevP < 0 || pat[prevP] == '/') &&
					(at(pat, p) == 0 || at(pat, p) == '/' ||
						(at(pat, p) == '\\' && at(pat, p+1) == '/')) {
					// "**/" may match nothing: try the rest of the
					// pattern right here (foo/**/bar matches foo/bar).
					if at(pat, p) == '/' && dowild(pat, p+1, text, t, flags) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = false
				}
			} else {
				matchSlash = flags&wmPathname == 0
			}
			if at(pat, p) == 0 {
				// Trailing "**" matches everything; trailing "*" only
				// if no slash remains.
				if !matchSlash && indexByteFrom(text, t, '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			} else if !matchSlash && at(pat, p) == '/' {
				// One asterisk followed by a slash matches the rest of
				// the current path component.
				slash := indexByteFrom(text, t, '/')
				if slash < 0 {
					return wmNoMatch
				}
				t = slash
				// The slash is consumed by the loop's increment.
				continue
			}
			for {
				if tCh == 0 {
					break
				}
				// Advance quickly to the next occurrence of a literal
				// that follows the asterisk.
				if c := at(pat, p); !isGlobSpecial(c) {
					for {
						tCh = at(text, t)
						if tCh == 0 || (!matchSlash && tCh == '/') {
							break
						}
						if tCh == c {
							break
						}
						t++
					}
					if tCh != c {
						if matchSlash {
							return wmAbortAll
						}
						return wmAbortToStarStar
					}
				}
				if m := dowild(pat, p, text, t, flags); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tCh == '/' {
					return wmAbortToStarStar
				}
				t++
				tCh = at(text, t)
			}
			return wmAbortAll
		case '[':
			p++
			pCh = at(pat, p)
			if pCh == '^' {
				pCh = '!'
			}
			negated := pCh == '!'
			if negated {
				p++
				pCh = at(pat, p)
			}
			var prevCh byte
			matched := false
			for {
				if pCh == 0 {
					return wmAbortAll
				}
				if pCh == '\\' {
					p++
					pCh = at(pat, p)
					if pCh == 0 {
						return wmAbortAll
					}
					if tCh == pCh {
						matched = true
					}
				} else if pCh == '-' && prevCh != 0 && at(pat, p+1) != 0 && at(pat, p+1) != ']' {
					p++
					pCh = pat[p]
					if pCh == '\\' {
						p++
						pCh = at(pat, p)
						if pCh == 0 {
							return wmAbortAll
						}
					}
					if tCh <= pCh && tCh >= prevCh {
						matched = true
					}
					pCh = 0 // makes prevCh 0
				} else if pCh == '[' && at(pat, p+1) == ':' {
					p += 2
					s := p
					for pCh = at(pat, p); pCh != 0 && pCh != ']'; pCh = at(pat, p) {
						p++
					}
					if pCh == 0 {
						return wmAbortAll
					}
					i := p - s - 1
					if i < 0 || pat[p-1] != ':' {
						// No ":]": treat "[" as a normal set member.
						p = s - 2
						pCh = '['
						if tCh == pCh {
							matched = true
						}
						prevCh = pCh
						p++
						pCh = at(pat, p)
						if pCh == ']' {
							break
						}
						continue
					}
					ok, known := charClass(pat[s:s+i], tCh)
					if !known {
						return wmAbortAll
					}
					if ok {
						matched = true
					}
					pCh = 0
				} else if tCh == pCh {
					matched = true
				}
				prevCh = pCh
				p++
				pCh = at(pat, p)
				if pCh == ']' {
					break
				}
			}
			if matched == negated || (flags&wmPathname != 0 && tCh == '/') {
				return wmNoMatch
			}
			continue
		default:
			if tCh != pCh {
				return wmNoMatch
			}
			continue
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

func indexByteFrom(s string, from int, c byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// charClass evaluates a POSIX class with git's locale-free ctype (where
// space is only " \t\n\r" and cntrl is 0x00-0x1f and 0x7f).
func charClass(name string, c byte) (matched, known bool) {
	isDigit := c >= '0' && c <= '9'
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isAlpha := isUpper || isLower
	isPrint := c >= 0x20 && c <= 0x7e
	isSpace := c == ' ' || c == '\t' || c == '\n' || c == '\r'
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return isPrint && c != ' ', true
	case "lower":
		return isLower, true
	case "print":
		return isPrint, true
	case "punct":
		return isPrint && c != ' ' && !isAlpha && !isDigit, true
	case "space":
		return isSpace, true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
