package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK encodes a tools/call result by marshalling *mcp.CallToolResult,
// whose MarshalJSON marshals each content block with its own MarshalJSON;
// encoding/json compacts (scans byte by byte) the output of every
// MarshalJSON and every json.RawMessage it meets, so the text block and
// the structured content of a tv result were scanned three to four times
// over before the response was written: most of a read_file call's time
// (BenchmarkReadFileLine). This layer encodes such a result once, and,
// when tv's Transport writes the session, hands the bytes to the
// Transport directly: the SDK's jsonrpc2 layer marshals (and compacts) a
// short placeholder instead, which the Transport replaces by the bytes
// when it writes the response (resultStore).

// encodedJSON is structured content already encoded by json.Marshal:
// compact, valid, HTML characters escaped. Its MarshalJSON returns it as
// it is, so the SDK's fallback encoding (any result this layer does not
// encode itself) writes the same bytes.
type encodedJSON []byte

// MarshalJSON implements json.Marshaler.
func (e encodedJSON) MarshalJSON() ([]byte, error) { return e, nil }

// EncodedResult returns a result whose structured content is b, JSON that
// json.Marshal produced (compact and valid: it is not scanned again), and
// whose one text block is b too, as protocol 2025-06-18 recommends for
// clients that read only text. The text shares b's bytes (no copy of what
// can be megabytes): b must not be changed afterwards.
func EncodedResult(b []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: unsafe.String(unsafe.SliceData(b), len(b))}},
		StructuredContent: encodedJSON(b),
	}
}

// onceEncoded is a tools/call result that encodes itself in one pass when
// it has the shape of a tv result (one plain text block and structured
// content from EncodedResult, nothing else set), and as the SDK does
// otherwise. Embedding *mcp.CallToolResult keeps it an mcp.Result.
type onceEncoded struct {
	*mcp.CallToolResult
	store *resultStore // nil: MarshalJSON returns the encoding itself
}

// MarshalJSON implements json.Marshaler: the bytes the SDK's own encoding
// writes for the same result, or, with a store, a placeholder the
// Transport replaces by those bytes (TestOnceEncodedMatchesSDK).
func (r onceEncoded) MarshalJSON() ([]byte, error) {
	if r.store == nil {
		b, _, err := r.encode(false)
		return b, err
	}
	b, framed, err := r.encode(true)
	if err != nil {
		return nil, err
	}
	return r.store.put(b, framed), nil
}

// resultHeadroom is the room encode leaves, for the Transport, before a
// result it encodes into a pooled buffer: enough for the response's head
// ({"jsonrpc":"2.0","id":ID,"result":) with an id of up to 30 bytes, so
// the response is framed in place (frameResponse) instead of copied.
const resultHeadroom = 64

// resultBufs recycles the buffers of results the Transport has written
// (*[]byte, each at least a result's size plus resultHeadroom).
var resultBufs sync.Pool

// encode returns the result's encoding: in one pass for the shape of a
// tv result (one escape of the text, one copy of the structured
// content), else the SDK's. With framed, a one-pass encoding is written
// into a buffer from resultBufs after resultHeadroom free bytes, with two
// spare bytes of capacity after it ("}\n"), and framed is true.
func (r onceEncoded) encode(frame bool) (b []byte, framed bool, err error) {
	res := r.CallToolResult
	sc, ok := res.StructuredContent.(encodedJSON)
	if !ok || res.Meta != nil || res.IsError || res.InputRequests != nil || res.RequestState != "" || len(res.Content) != 1 {
		b, err = res.MarshalJSON()
		return b, false, err
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || text.Meta != nil || text.Annotations != nil {
		b, err = res.MarshalJSON()
		return b, false, err
	}
	const (
		head = `{"content":[{"type":"text","text":`
		mid  = `}],"structuredContent":`
	)
	size := len(head) + len(text.Text) + len(text.Text)/4 + len(mid) + len(sc) + 1
	if frame {
		b = resultBuf(resultHeadroom + size + 2)[:resultHeadroom]
	} else {
		b = make([]byte, 0, size)
	}
	b = append(b, head...)
	if string(sc) == text.Text && utf8.Valid(sc) {
		b = appendQuotedJSON(b, sc)
	} else {
		quoted, err := json.Marshal(text.Text) // HTML-escaped, as TextContent.MarshalJSON does
		if err != nil {
			return nil, false, err
		}
		b = append(b, quoted...)
	}
	b = append(b, mid...)
	b = append(b, sc...)
	return append(b, '}'), frame, nil
}

// resultBuf returns an empty buffer of at least n bytes' capacity, a
// recycled one when the pool has one that large.
func resultBuf(n int) []byte {
	if p, ok := resultBufs.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]byte, 0, n)
}

// recycle returns a written result's buffer to resultBufs.
func recycle(buf []byte) {
	resultBufs.Put(&buf)
}

// appendQuotedJSON appends js, valid UTF-8 that json.Marshal produced, as
// the JSON string json.Marshal makes of it, without json.Marshal's byte by
// byte scan: json.Marshal's output holds no control character and no <,
// >, &, U+2028 or U+2029 (all escaped), so of its bytes only quotes and
// backslashes are escaped when it is quoted (FuzzQuotedJSON).
//
// Each byte is searched for once: the next quote and the next backslash
// are each looked up again only once passed. (Looking both up after every
// escape scanned a file's text to its closing quote once per line, ~360
// KB per read_file of a 100-line file.)
func appendQuotedJSON(b, js []byte) []byte {
	b = append(b, '"')
	quote, slash := bytes.IndexByte(js, '"'), bytes.IndexByte(js, '\\')
	start := 0
	for quote >= 0 || slash >= 0 {
		i := quote
		if i < 0 || slash >= 0 && slash < i {
			i = slash
		}
		b = append(b, js[start:i]...)
		b = append(b, '\\', js[i])
		start = i + 1
		if i == quote {
			quote = nextIndex(js, start, '"')
		} else {
			slash = nextIndex(js, start, '\\')
		}
	}
	b = append(b, js[start:]...)
	return append(b, '"')
}

// nextIndex is the offset in js of the first c at or after from, or -1.
func nextIndex(js []byte, from int, c byte) int {
	if i := bytes.IndexByte(js[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// resultStore holds encoded results between the SDK's marshalling of
// their placeholder and the Transport's writing of the response.
type resultStore struct {
	mu   sync.Mutex
	next uint64
	m    map[uint64]storedResult
}

// storedResult is a result's encoding: buf, or with framed, buf after
// resultHeadroom free bytes in a buffer of resultBufs.
type storedResult struct {
	buf    []byte
	framed bool
}

// result returns the encoding itself.
func (r storedResult) result() json.RawMessage {
	if r.framed {
		return r.buf[resultHeadroom:]
	}
	return r.buf
}

// placeholderPrefix starts every placeholder; no CallToolResult encoding
// starts so (its first member is _meta or content).
const placeholderPrefix = `{"tv.encoded":`

// put keeps b (framed: see storedResult) and returns the placeholder that
// take exchanges for it.
func (s *resultStore) put(b []byte, framed bool) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[uint64]storedResult{}
	}
	s.next++
	s.m[s.next] = storedResult{b, framed}
	return append(strconv.AppendUint([]byte(placeholderPrefix), s.next, 10), '}')
}

// take returns the encoding result (a response's result as the SDK
// encoded it) stands for and forgets it; ok is false for any other
// result.
func (s *resultStore) take(result json.RawMessage) (r storedResult, ok bool) {
	if s == nil || !bytes.HasPrefix(result, []byte(placeholderPrefix)) {
		return r, false
	}
	n, err := strconv.ParseUint(string(bytes.TrimSuffix(result[len(placeholderPrefix):], []byte("}"))), 10, 64)
	if err != nil {
		return r, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok = s.m[n]
	delete(s.m, n)
	return r, ok
}

// storeKey is the context key of the resultStore of a session written by
// tv's Transport (Serve sets it).
type storeKey struct{}

// encodeOnce is the receiving middleware that wraps tools/call results as
// onceEncoded, with the session's resultStore when Serve runs it.
// Requests of protocol 2026-07-28 and later are left alone: the SDK
// stamps their results after the middleware returns (result type, server
// info in _meta), which the one-pass encoding does not write.
func encodeOnce(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if !ok || err != nil || r == nil || method != "tools/call" {
			return res, err
		}
		if p := req.GetParams(); p != nil {
			if _, modern := p.GetMeta()[mcp.MetaKeyProtocolVersion]; modern {
				return res, err
			}
		}
		store, _ := ctx.Value(storeKey{}).(*resultStore)
		return onceEncoded{r, store}, nil
	}
}
