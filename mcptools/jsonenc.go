package mcptools

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
)

// The stdio transport encodes its responses itself. encoding/json
// re-validates and compacts the output of every json.Marshaler it meets,
// and mcp-go's CallToolResult and RequestId are Marshalers nested in the
// JSON-RPC response, so a tool result's text was scanned byte by byte two
// or three times after being escaped: that was most of a read_file call.
// appendMessage writes the common shapes directly (the JSON-RPC response
// around a CallToolResult, text content, the Envelope and the read_file
// data) and hands everything else to encoding/json, with the same JSON
// value as json.Marshal(msg) (members of a result in the same order; only
// <, > and & are left unescaped, which JSON does not require).

// jsonAppender is a value that appends its own JSON encoding.
type jsonAppender interface {
	appendJSON(e *jsonEnc) error
}

// jsonEnc is one message's encoding: the buffer, and the last long string
// encoded, so the same string met again (read_file's content is both the
// text block and data.content) is copied rather than escaped again.
type jsonEnc struct {
	b               []byte
	memo            string
	memoAt, memoEnd int
}

// memoMin is the shortest string jsonEnc remembers.
const memoMin = 1024

// str appends s as a JSON string (appendString).
func (e *jsonEnc) str(s string) {
	if len(s) >= memoMin && len(s) == len(e.memo) && unsafe.StringData(s) == unsafe.StringData(e.memo) {
		e.b = append(e.b, e.b[e.memoAt:e.memoEnd]...)
		return
	}
	at := len(e.b)
	e.b = appendString(e.b, s)
	if len(s) >= memoMin {
		e.memo, e.memoAt, e.memoEnd = s, at, len(e.b)
	}
}

func (e *jsonEnc) raw(s string) { e.b = append(e.b, s...) }

func (e *jsonEnc) int(n int64) { e.b = strconv.AppendInt(e.b, n, 10) }

// appendMessage appends the JSON encoding of a JSON-RPC message to dst.
func appendMessage(dst []byte, msg any) ([]byte, error) {
	e := &jsonEnc{b: dst}
	if m, ok := msg.(mcp.JSONRPCResponse); ok {
		var res *mcp.CallToolResult
		switch r := m.Result.(type) {
		case *mcp.CallToolResult:
			res = r
		case mcp.CallToolResult:
			res = &r
		}
		if res != nil && m.JSONRPC == mcp.JSONRPC_VERSION {
			e.raw(`{"jsonrpc":"2.0","id":`)
			if err := e.any(m.ID.Value()); err != nil {
				return e.b, err
			}
			e.raw(`,"result":`)
			if err := e.callToolResult(res); err != nil {
				return e.b, err
			}
			e.raw("}")
			return e.b, nil
		}
	}
	err := e.any(msg)
	return e.b, err
}

// appendCallToolResult appends r's encoding to dst.
func appendCallToolResult(dst []byte, r *mcp.CallToolResult) ([]byte, error) {
	e := &jsonEnc{b: dst}
	err := e.callToolResult(r)
	return e.b, err
}

// callToolResult encodes r like CallToolResult.MarshalJSON (a map, so
// members in key order).
func (e *jsonEnc) callToolResult(r *mcp.CallToolResult) error {
	e.raw("{")
	if r.Meta != nil {
		e.raw(`"_meta":`)
		if err := e.any(r.Meta); err != nil {
			return err
		}
		e.raw(",")
	}
	e.raw(`"content":[`)
	for i, c := range r.Content {
		if i > 0 {
			e.raw(",")
		}
		var t *mcp.TextContent
		switch c := c.(type) {
		case mcp.TextContent:
			t = &c
		case *mcp.TextContent:
			t = c
		}
		if t != nil && t.Annotations == nil && t.Meta == nil {
			e.raw(`{"type":`)
			e.str(t.Type)
			e.raw(`,"text":`)
			e.str(t.Text)
			e.raw("}")
			continue
		}
		if err := e.any(c); err != nil {
			return err
		}
	}
	e.raw("]")
	if len(r.InputRequests) > 0 {
		e.raw(`,"inputRequests":`)
		if err := e.any(r.InputRequests); err != nil {
			return err
		}
	}
	if r.IsError {
		e.raw(`,"isError":true`)
	}
	if r.RequestState != "" {
		e.raw(`,"requestState":`)
		e.str(r.RequestState)
	}
	if r.ResultType != "" {
		e.raw(`,"resultType":`)
		if err := e.any(r.ResultType); err != nil {
			return err
		}
	}
	if len(r.RawStructuredContent) > 0 {
		e.raw(`,"structuredContent":`)
		if err := e.any(r.RawStructuredContent); err != nil {
			return err
		}
	} else if r.StructuredContent != nil {
		e.raw(`,"structuredContent":`)
		if err := e.any(r.StructuredContent); err != nil {
			return err
		}
	}
	e.raw("}")
	return nil
}

// any appends v's encoding: its own appendJSON, a few scalar types
// directly, else json.Marshal.
func (e *jsonEnc) any(v any) error {
	switch v := v.(type) {
	case jsonAppender:
		return v.appendJSON(e)
	case string:
		e.str(v)
		return nil
	case int64:
		e.int(v)
		return nil
	case int:
		e.int(int64(v))
		return nil
	case float64:
		// JSON-RPC ids decoded by mcp-go: whole numbers print as integers
		// in encoding/json too (below 1e21; kept well inside).
		if v == float64(int64(v)) && v > -1e15 && v < 1e15 {
			e.int(int64(v))
			return nil
		}
	case bool:
		e.b = strconv.AppendBool(e.b, v)
		return nil
	case nil:
		e.raw("null")
		return nil
	}
	b, err := json.Marshal(v)
	e.b = append(e.b, b...)
	return err
}

// appendString appends s as a JSON string: encoding/json's escaping
// (short escapes for \b \f \n \r \t, \u00XX for other control bytes,
// \ufffd for invalid UTF-8, \u2028 and \u2029 escaped) except that <, >
// and & are kept as they are.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip eight plain bytes at a time (printable ASCII but '"' and
		// '\\'); in a word that is not all plain, jump to its first byte
		// that is not.
		for i+16 <= len(s) && special8(load64(s, i))|special8(load64(s, i+8)) == 0 {
			i += 16
		}
		if i+8 <= len(s) {
			m := special8(load64(s, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				const hex = "0123456789abcdef"
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', byte('8'+r-'\u2028'))
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// special8 flags (high bit of each byte) the bytes of the little-endian
// word x that are not plain: not ASCII, below 0x20, '"' or '\\'. Flags
// above the lowest one may be spurious (borrows), the lowest is exact.
func special8(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(lo*'"'), x^(lo*'\\')
	return (x | (x - lo*0x20) | (q-lo)&^q | (bs-lo)&^bs) & hi
}

// load64 returns the 8 bytes of s at i (i+8 <= len(s)) as a little-endian
// word.
func load64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
}

// responseBufs recycles response buffers (a read_file response can be a
// few MiB; buffers over maxPooledBuf are left to the GC).
var responseBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxPooledBuf = 1 << 20
