package mcpkit

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/thalix/tv/internal/jsonspan"
)

// The transport screens every input line (Transport): its top-level
// members, the request's params and their _meta. A JSON value that
// encoding/json has already found valid (json.Valid) is walked here in
// one pass without building maps: a request line used to be decoded three
// times over (the line, its params, their _meta), a tenth of a read_file
// call's CPU on the bench machine.

// eachMember calls fn with the name and the raw value of every member of
// obj, a valid JSON object, in order (a repeated name is passed each
// time; the last one is the one JSON decoders keep). A name written with
// escapes is unescaped. It returns false when obj is not an object.
func eachMember(obj []byte, fn func(name, value []byte)) bool {
	i := jsonspan.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i++
	for {
		i = jsonspan.SkipSpace(obj, i)
		if i >= len(obj) || obj[i] == '}' {
			return true
		}
		if obj[i] == ',' {
			i = jsonspan.SkipSpace(obj, i+1)
		}
		end := jsonspan.SkipString(obj, i)
		name := memberName(obj[i:end])
		i = jsonspan.SkipSpace(obj, end)
		i = jsonspan.SkipSpace(obj, i+1) // the colon
		vend := jsonspan.SkipValue(obj, i)
		fn(name, obj[i:vend])
		i = vend
	}
}

// memberName returns the string a valid JSON string literal (quotes
// included) denotes, as encoding/json decodes it (escapes resolved,
// invalid UTF-8 replaced).
func memberName(lit []byte) []byte {
	if bytes.IndexByte(lit, '\\') < 0 && utf8.Valid(lit) {
		return lit[1 : len(lit)-1]
	}
	var s string
	json.Unmarshal(lit, &s) // valid: checked by the caller's json.Valid
	return []byte(s)
}

// member returns the raw value of obj's last member called name, or nil.
func member(obj []byte, name string) []byte {
	var v []byte
	eachMember(obj, func(n, value []byte) {
		if string(n) == name {
			v = value
		}
	})
	return v
}
