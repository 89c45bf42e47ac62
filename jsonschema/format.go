package jsonschema

import (
	"errors"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
)

// format is an asserted "format": it checks strings and lets every other
// value pass.
type format struct {
	name  string
	check func(v any) error
}

// lookupFormat returns the named format, nil for one this package does
// not know (which, per the specification, then only annotates).
func lookupFormat(name string) *format {
	var f func(string) error
	switch name {
	case "date-time":
		f = checkDateTime
	case "date":
		f = checkDate
	case "time":
		f = checkTime
	case "duration":
		f = checkDuration
	case "period":
		f = checkPeriod
	case "email":
		f = checkEmail
	case "hostname":
		f = checkHostname
	case "ipv4":
		f = checkIPv4
	case "ipv6":
		f = checkIPv6
	case "uri":
		f = func(s string) error { return checkURI(s, true) }
	case "iri":
		f = func(s string) error { return checkURI(s, true) }
	case "uri-reference":
		f = func(s string) error { return checkURI(s, false) }
	case "iri-reference":
		f = func(s string) error { return checkURI(s, false) }
	case "uri-template":
		f = checkURITemplate
	case "json-pointer":
		f = checkJSONPointer
	case "relative-json-pointer":
		f = checkRelativeJSONPointer
	case "uuid":
		f = checkUUID
	case "regex":
		f = func(s string) error { _, err := regexp.Compile(s); return err }
	case "semver":
		f = checkSemver
	default:
		return nil
	}
	return &format{name, func(v any) error {
		if s, ok := v.(string); ok {
			return f(s)
		}
		return nil
	}}
}

// atoi parses s, digits only; ok is false otherwise.
func atoi(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' || n > 1e8 {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// checkDate: full-date of RFC 3339 (YYYY-MM-DD, a real calendar day).
func checkDate(s string) error {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return errors.New("not YYYY-MM-DD")
	}
	y, ok1 := atoi(s[:4])
	m, ok2 := atoi(s[5:7])
	d, ok3 := atoi(s[8:])
	if !ok1 || !ok2 || !ok3 {
		return errors.New("not YYYY-MM-DD")
	}
	if m < 1 || m > 12 {
		return errors.New("month out of range")
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	if d < 1 || d > days {
		return errors.New("day out of range")
	}
	return nil
}

// checkTime: full-time of RFC 3339 (HH:MM:SS[.frac] and a zone, Z or
// ±HH:MM); second 60 only at 23:59:60 UTC.
func checkTime(s string) error {
	bad := errors.New("not HH:MM:SS[.frac] with a time zone (Z or ±HH:MM)")
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return bad
	}
	h, ok1 := atoi(s[:2])
	m, ok2 := atoi(s[3:5])
	sec, ok3 := atoi(s[6:8])
	if !ok1 || !ok2 || !ok3 {
		return bad
	}
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return bad
		}
		rest = rest[i:]
	}
	oh, om, sign := 0, 0, 0
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		var ok4, ok5 bool
		oh, ok4 = atoi(rest[1:3])
		om, ok5 = atoi(rest[4:])
		if !ok4 || !ok5 {
			return bad
		}
		if oh > 23 || om > 59 {
			return errors.New("time zone offset out of range")
		}
		sign = 1
		if rest[0] == '-' {
			sign = -1
		}
	default:
		return bad
	}
	if h > 23 || m > 59 || sec > 60 {
		return errors.New("time out of range")
	}
	if sec == 60 {
		utc := ((h*60+m-sign*(oh*60+om))%1440 + 1440) % 1440
		if utc != 23*60+59 {
			return errors.New("a leap second must be at 23:59:60 UTC")
		}
	}
	return nil
}

// checkDateTime: date-time of RFC 3339.
func checkDateTime(s string) error {
	if len(s) < 11 || (s[10] != 'T' && s[10] != 't') {
		return errors.New("not a date, T and a time")
	}
	if err := checkDate(s[:10]); err != nil {
		return err
	}
	return checkTime(s[11:])
}

// checkDuration: duration of RFC 3339 appendix A (P1Y2M3DT4H5M6S, P2W):
// designators in order, each at most once, each with digits.
func checkDuration(s string) error {
	bad := errors.New("not an ISO 8601 duration (P…Y…M…DT…H…M…S or P…W)")
	rest, ok := strings.CutPrefix(s, "P")
	if !ok || rest == "" {
		return bad
	}
	date, tm, hasT := strings.Cut(rest, "T")
	if hasT && tm == "" {
		return bad
	}
	units := func(s, order string) bool {
		for s != "" {
			i := 0
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			if i == 0 || i == len(s) {
				return false
			}
			j := strings.IndexByte(order, s[i])
			if j < 0 {
				return false
			}
			order, s = order[j+1:], s[i+1:]
		}
		return true
	}
	if strings.HasSuffix(date, "W") {
		if hasT || !units(date, "W") {
			return bad
		}
		return nil
	}
	if !units(date, "YMD") || !units(tm, "HMS") {
		return bad
	}
	return nil
}

// checkPeriod: start/end, start/duration or duration/end, with RFC 3339
// date-times and durations.
func checkPeriod(s string) error {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return errors.New("not start/end, start/duration or duration/end")
	}
	if strings.HasPrefix(a, "P") {
		if err := checkDuration(a); err != nil {
			return err
		}
		return checkDateTime(b)
	}
	if err := checkDateTime(a); err != nil {
		return err
	}
	if strings.HasPrefix(b, "P") {
		return checkDuration(b)
	}
	return checkDateTime(b)
}

// checkHostname: RFC 1123 host name (labels of letters, digits and
// hyphens, 1 to 63 bytes, not starting or ending with a hyphen; 253 bytes
// at most).
func checkHostname(s string) error {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return errors.New("empty or longer than 253 bytes")
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return errors.New("a label is empty or longer than 63 bytes")
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return errors.New("a label starts or ends with '-'")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return errors.New("a label has a character other than letters, digits and '-'")
			}
		}
	}
	return nil
}

// checkEmail: RFC 5321 mailbox (dot-atom or quoted local part, @, a host
// name or an address literal).
func checkEmail(s string) error {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return errors.New("missing @")
	}
	local, domain := s[:i], s[i+1:]
	if local == "" || len(local) > 64 {
		return errors.New("local part empty or longer than 64 bytes")
	}
	if strings.HasPrefix(local, `"`) {
		if len(local) < 2 || !strings.HasSuffix(local, `"`) {
			return errors.New("unterminated quoted local part")
		}
		q := local[1 : len(local)-1]
		for j := 0; j < len(q); j++ {
			switch c := q[j]; {
			case c == '\\':
				if j++; j == len(q) || q[j] < 32 || q[j] > 126 {
					return errors.New("bad escape in quoted local part")
				}
			case c == '"' || (c < 32 && c != '\t') || c > 126:
				return errors.New("bad character in quoted local part")
			}
		}
	} else {
		for _, atom := range strings.Split(local, ".") {
			if atom == "" {
				return errors.New("empty atom in local part")
			}
			for j := 0; j < len(atom); j++ {
				c := atom[j]
				if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0) {
					return errors.New("bad character in local part")
				}
			}
		}
	}
	if lit, ok := strings.CutPrefix(domain, "["); ok {
		lit, ok = strings.CutSuffix(lit, "]")
		if !ok {
			return errors.New("unterminated address literal")
		}
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return checkIPv6(v6)
		}
		return checkIPv4(lit)
	}
	if err := checkHostname(domain); err != nil {
		return errors.New("domain: " + err.Error())
	}
	return nil
}

func checkIPv4(s string) error {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return errors.New("not a dotted-quad IPv4 address")
	}
	return nil
}

func checkIPv6(s string) error {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return errors.New("not an IPv6 address")
	}
	return nil
}

// checkURI: a URI (absolute: with a scheme) or URI reference, as Go's
// net/url parses it (lenient: a space in a path or fragment passes), with
// an IPv6 host in brackets; a reference has no backslash. iri and
// iri-reference check the same way.
func checkURI(s string, absolute bool) error {
	if !absolute && strings.Contains(s, `\`) {
		return errors.New(`contains \`)
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return err
	}
	if h := u.Hostname(); strings.Contains(h, ":") {
		if !strings.Contains(u.Host, "[") || checkIPv6(h) != nil {
			return errors.New("bad IPv6 host")
		}
	}
	if absolute && u.Scheme == "" {
		return errors.New("no scheme")
	}
	return nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// checkURITemplate: an RFC 6570 URI template, checked leniently: braces
// pair up without nesting and the rest parses as a URI reference.
func checkURITemplate(s string) error {
	open := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if open {
				return errors.New("nested curly braces")
			}
			open = true
		case '}':
			if !open {
				return errors.New("'}' outside an expression")
			}
			open = false
		}
	}
	if open {
		return errors.New("no matching closing brace")
	}
	return checkURI(s, false)
}

// checkJSONPointer: RFC 6901 ("" or /-separated tokens, '~' escaping 0
// or 1).
func checkJSONPointer(s string) error {
	if s != "" && s[0] != '/' {
		return errors.New("not starting with /")
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return errors.New("~ must be followed by 0 or 1")
		}
	}
	return nil
}

// checkRelativeJSONPointer: a non-negative integer, then "#" or a JSON
// Pointer.
func checkRelativeJSONPointer(s string) error {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || (s[0] == '0' && i > 1) {
		return errors.New("not starting with a non-negative integer")
	}
	if s[i:] == "#" {
		return nil
	}
	return checkJSONPointer(s[i:])
}

// checkUUID: RFC 4122 text form (8-4-4-4-12 hex digits).
func checkUUID(s string) error {
	if len(s) != 36 {
		return errors.New("not 36 characters")
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return errors.New("'-' missing")
			}
		default:
			if !isHex(s[i]) {
				return errors.New("not a hex digit")
			}
		}
	}
	return nil
}

// checkSemver: Semantic Versioning 2.0.0 (MAJOR.MINOR.PATCH, optional
// -prerelease and +build).
func checkSemver(s string) error {
	ids := func(s string, numeric bool) bool {
		for _, id := range strings.Split(s, ".") {
			if id == "" {
				return false
			}
			digits := true
			for i := 0; i < len(id); i++ {
				c := id[i]
				if c < '0' || c > '9' {
					digits = false
					if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
						return false
					}
				}
			}
			if numeric && digits && len(id) > 1 && id[0] == '0' {
				return false
			}
		}
		return true
	}
	core, build, hasBuild := strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return errors.New("not MAJOR.MINOR.PATCH")
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" || (len(p) > 1 && p[0] == '0') {
			return errors.New("not MAJOR.MINOR.PATCH")
		}
	}
	if hasPre && !ids(pre, true) {
		return errors.New("bad pre-release")
	}
	if hasBuild && !ids(build, false) {
		return errors.New("bad build metadata")
	}
	return nil
}
