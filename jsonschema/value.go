package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Unmarshal decodes one JSON value the way Validate expects it: objects as
// map[string]any, arrays as []any, numbers as json.Number (exact, so big
// integers and decimals compare as written). Anything but white space
// after the value is an error.
func Unmarshal(data []byte) (any, error) {
	return UnmarshalReader(bytes.NewReader(data))
}

// UnmarshalReader is Unmarshal reading from r.
func UnmarshalReader(r io.Reader) (any, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// jsonType is a set of JSON Schema type names, as bits.
type jsonType uint8

const (
	typeNull jsonType = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

var typeNames = []struct {
	t    jsonType
	name string
}{
	{typeNull, "null"}, {typeBoolean, "boolean"}, {typeNumber, "number"}, {typeInteger, "integer"},
	{typeString, "string"}, {typeArray, "array"}, {typeObject, "object"},
}

func typeFromName(s string) jsonType {
	for _, n := range typeNames {
		if n.name == s {
			return n.t
		}
	}
	return 0
}

// String joins the names with " or " ("string or null").
func (t jsonType) String() string {
	var names []string
	for _, n := range typeNames {
		if t&n.t != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, " or ")
}

// typeOf is the JSON type of v (typeNumber for every number; 0 when v is
// not a JSON value).
func typeOf(v any) jsonType {
	switch v.(type) {
	case nil:
		return typeNull
	case bool:
		return typeBoolean
	case string:
		return typeString
	case []any:
		return typeArray
	case map[string]any:
		return typeObject
	}
	if isNumber(v) {
		return typeNumber
	}
	return 0
}

func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// number is a JSON number: its text (as written, for messages) and, on
// demand, its exact value.
type number struct {
	text  string
	isInt bool // fits int64 exactly (i holds it)
	i     int64
	rat   *big.Rat
}

// newNumber returns v as a number; ok is false when v is not a number (or
// is NaN or infinite).
func newNumber(v any) (n number, ok bool) {
	switch v := v.(type) {
	case json.Number:
		n.text = string(v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return n, false
		}
		n.text = strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return newNumber(float64(v))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		n.text = fmt.Sprint(v)
	default:
		return n, false
	}
	if i, err := strconv.ParseInt(n.text, 10, 64); err == nil {
		n.isInt, n.i = true, i
		return n, true
	}
	r, ok := new(big.Rat).SetString(n.text)
	if !ok {
		return n, false
	}
	n.rat = r
	return n, true
}

func (n *number) exact() *big.Rat {
	if n.rat == nil {
		n.rat = new(big.Rat).SetInt64(n.i)
	}
	return n.rat
}

// cmp compares n and m by value.
func (n *number) cmp(m *number) int {
	if n.isInt && m.isInt {
		switch {
		case n.i < m.i:
			return -1
		case n.i > m.i:
			return 1
		}
		return 0
	}
	return n.exact().Cmp(m.exact())
}

// integral reports whether n has no fractional part (1.0 and 1e2 are
// integers).
func (n *number) integral() bool {
	return n.isInt || n.exact().IsInt()
}

// multipleOf reports whether n is an integer multiple of m (m > 0).
func (n *number) multipleOf(m *number) bool {
	if n.isInt && m.isInt && m.i != 0 {
		return n.i%m.i == 0
	}
	if m.exact().Sign() == 0 {
		return false
	}
	return new(big.Rat).Quo(n.exact(), m.exact()).IsInt()
}

// isInteger reports whether v is a number without fractional part.
func isInteger(v any) bool {
	if s, ok := v.(json.Number); ok && !strings.ContainsAny(string(s), ".eE") {
		return true
	}
	n, ok := newNumber(v)
	return ok && n.integral()
}

// equal reports whether a and b are the same JSON value (numbers by value,
// objects regardless of member order).
func equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	}
	na, ok1 := newNumber(a)
	nb, ok2 := newNumber(b)
	return ok1 && ok2 && na.cmp(&nb) == 0
}

// quote single-quotes s for a message ('a\'b').
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, `'`, `\'`) + "'"
}

func joinQuoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}

// display shows a scalar value in a message (strings quoted, numbers as
// written, null as null); objects and arrays show as "value".
func display(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return quote(v)
	case bool:
		return strconv.FormatBool(v)
	case []any, map[string]any:
		return "value"
	}
	if n, ok := newNumber(v); ok {
		return n.text
	}
	return fmt.Sprint(v)
}

func isScalar(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return false
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// escapeToken escapes one JSON Pointer reference token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapeToken(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// lookup returns the value at the JSON Pointer ptr (escaped tokens) in
// doc.
func lookup(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	v := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapeToken(tok)
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}
