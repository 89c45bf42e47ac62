package mcpkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is the stdio transport of the tv MCP servers: an
// mcp.Transport for the official SDK's server that reads newline-delimited
// JSON-RPC from In and writes to Out. It exists because the SDK's own
// stdio transport ends the session at the first line it cannot decode and
// answers nothing; this one keeps serving and answers every malformed line
// as JSON-RPC 2.0 says, which the SDK leaves to the transport:
//
//   - A line over MaxLine bytes (the newline not counted) is never
//     buffered whole: it is scanned as it streams for its top-level "id"
//     (whatever the member order) and answered -32600 with that id.
//   - Invalid JSON is -32700 with a null id; a member of the wrong type
//     (jsonrpc, method, params) is -32600 or -32602 with the request's id.
//     Member names are matched exactly. An id must be a string or an
//     integer (1.5, null, objects are -32600) and is echoed byte for byte
//     (9007199254740993 stays that).
//   - Batches (JSON arrays) are served while the negotiated protocol
//     version is 2025-03-26 or earlier, their answers written as one
//     array; later versions answer -32600.
//   - A request cancelled by notifications/cancelled gets no answer.
//   - At end of input, requests still running get ShutdownGrace to finish
//     (subscriptions/listen streams excepted) before the session ends.
//
// Every message is written with one Write, so messages never interleave.
type Transport struct {
	In      io.Reader
	Out     io.Writer
	MaxLine int
	// Log receives diagnostics; nil discards them.
	Log *log.Logger
	// results holds the tools/call results encoded once (encodeOnce) that
	// the SDK passes as placeholders; nil when Serve did not make it.
	results *resultStore
	// polled is In when Serve made it a file read through the poller,
	// whose Close wakes a read waiting for input: then the SDK's read
	// loop reads and screens the lines itself (Read), and a request is
	// handed to the SDK's handler without passing through a goroutine of
	// the Transport's own. nil: a goroutine reads In.
	polled io.Closer
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	logger := t.Log
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	c := &lineConn{
		w:       &syncWriter{w: t.Out},
		log:     logger,
		msgs:    make(chan jsonrpc.Message),
		eof:     make(chan struct{}),
		closed:  make(chan struct{}),
		pending: map[jsonrpc.ID]*pendingCall{},
		idle:    make(chan struct{}, 1),
		results: t.results,
		polled:  t.polled,
	}
	if c.polled != nil {
		c.lines = newLineReader(t.In, t.MaxLine, c.serveLine, c.refuseOversize)
		return c, nil
	}
	go func() {
		err := readLines(t.In, t.MaxLine, c.serveLine, c.refuseOversize)
		if err != nil && !errors.Is(err, errConnClosed) {
			c.log.Printf("read: %v", err)
		}
		close(c.eof)
	}()
	return c, nil
}

var errConnClosed = errors.New("connection closed")

// lineConn is one session of Transport.
type lineConn struct {
	w      *syncWriter
	log    *log.Logger
	msgs   chan jsonrpc.Message
	eof    chan struct{} // the reader finished
	closed chan struct{}
	once   sync.Once

	mu      sync.Mutex
	pending map[jsonrpc.ID]*pendingCall // requests passed to the server, not yet answered
	version string                      // negotiated protocol version ("" before initialize)
	initID  *jsonrpc.ID                 // the initialize request awaiting its answer
	idle    chan struct{}               // signalled when a pending call is answered
	results *resultStore                // see Transport.results

	// Inline reading (Transport.polled): Read reads the lines itself and
	// queues the messages a line holds (a batch holds several).
	polled io.Closer
	lines  *lineReader
	queue  []jsonrpc.Message
}

// pendingCall is a request handed to the server.
type pendingCall struct {
	raw       json.RawMessage // the id as the client wrote it
	method    string
	cancelled bool
	batch     *batch
}

// batch collects the answers of one JSON-RPC batch.
type batch struct {
	answers [][]byte
	waiting int
}

func (c *lineConn) SessionID() string { return "" }

// SupportsProtocolVersion implements mcp.ProtocolVersionSupporter: every
// version the SDK knows.
func (c *lineConn) SupportsProtocolVersion(string) bool { return true }

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.lines != nil {
		return c.readInline()
	}
	select {
	case m := <-c.msgs:
		return m, nil
	case <-c.eof:
		c.drain()
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readInline reads lines until one holds a message for the server (the
// SDK's read loop is the only caller).
func (c *lineConn) readInline() (jsonrpc.Message, error) {
	for len(c.queue) == 0 {
		select {
		case <-c.closed:
			return nil, io.EOF
		default:
		}
		if err := c.lines.next(); err != nil {
			select {
			case <-c.closed: // Close closed the input under the read
				return nil, io.EOF
			default:
			}
			if err != io.EOF {
				c.log.Printf("read: %v", err)
			}
			c.drain()
			return nil, io.EOF
		}
	}
	m := c.queue[0]
	c.queue[0] = nil
	c.queue = c.queue[1:]
	return m, nil
}

// drain waits up to ShutdownGrace for the running requests (listen
// streams aside) to be answered.
func (c *lineConn) drain() {
	deadline := time.After(ShutdownGrace)
	for {
		c.mu.Lock()
		busy := false
		for _, p := range c.pending {
			if p.method != "subscriptions/listen" && !p.cancelled {
				busy = true
			}
		}
		c.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-c.idle:
		case <-deadline:
			return
		case <-c.closed:
			return
		}
	}
}

// Close implements mcp.Connection. With inline reading it closes the
// input, which wakes a Read waiting for a line.
func (c *lineConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		if c.polled != nil {
			c.polled.Close()
		}
	})
	return nil
}

// Write implements mcp.Connection: one message, one Write.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		if req, ok := msg.(*jsonrpc.Request); ok && !c.mayNotify(req) {
			return nil
		}
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return err
		}
		return c.writeLine(data)
	}
	var stored storedResult
	if resp.Error == nil {
		// Always taken, so a dropped answer frees its bytes.
		if sr, ok := c.results.take(resp.Result); ok {
			stored = sr
			r := *resp
			r.Result = sr.result()
			resp = &r
		}
	}
	c.mu.Lock()
	p := c.pending[resp.ID]
	delete(c.pending, resp.ID)
	if c.initID != nil && *c.initID == resp.ID {
		c.initID = nil
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if resp.Error == nil && json.Unmarshal(resp.Result, &r) == nil {
			c.version = r.ProtocolVersion
		}
	}
	c.mu.Unlock()
	select {
	case c.idle <- struct{}{}:
	default:
	}
	if p == nil {
		return nil
	}
	if p.cancelled { // the spec says a cancelled request gets no answer
		if p.batch != nil {
			return c.batchAnswer(p.batch, nil)
		}
		return nil
	}
	if p.batch == nil && stored.framed {
		if line, ok := frameResponse(p.raw, stored.buf); ok {
			err := c.writeLine(line)
			recycle(stored.buf)
			return err
		}
	}
	data, err := encodeResponse(p.raw, resp)
	if err != nil {
		return err
	}
	if p.batch != nil {
		return c.batchAnswer(p.batch, data)
	}
	return c.writeLine(data)
}

// responseHead and responseMid frame a result: head, the id, mid, the
// result, "}".
const (
	responseHead = `{"jsonrpc":"2.0","id":`
	responseMid  = `,"result":`
)

// frameResponse writes the response's head into the headroom of buf, a
// stored result's framed buffer (see resultHeadroom), and "}" after the
// result: the bytes encodeResponse returns, without copying the result.
// ok is false when the id does not fit the headroom.
func frameResponse(id json.RawMessage, buf []byte) ([]byte, bool) {
	start := resultHeadroom - len(responseHead) - len(id) - len(responseMid)
	if start < 0 {
		return nil, false
	}
	head := append(append(append(buf[start:start], responseHead...), id...), responseMid...)
	return append(buf[start:start+len(head)+len(buf)-resultHeadroom], '}'), true
}

// mayNotify reports whether a list-changed notification may be sent now:
// only to an initialized session and, from protocol 2026-07-28 on, only on
// an open subscriptions/listen stream (the SDK stamps its id in _meta).
func (c *lineConn) mayNotify(n *jsonrpc.Request) bool {
	if n.ID.IsValid() || !strings.HasSuffix(n.Method, "/list_changed") {
		return true
	}
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	if v < "2026-07-28" {
		return v != ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	return json.Unmarshal(n.Params, &p) == nil && p.Meta[mcp.MetaKeySubscriptionID] != nil
}

// encodeResponse encodes resp with the id as the client wrote it. A
// result is the SDK's encoding, valid JSON already: it is copied, not
// scanned again.
func encodeResponse(id json.RawMessage, resp *jsonrpc.Response) ([]byte, error) {
	if resp.Error == nil {
		result := resp.Result
		if result == nil {
			result = json.RawMessage("{}")
		}
		b := make([]byte, 0, len(responseHead)+len(id)+len(responseMid)+len(result)+2)
		b = append(b, responseHead...)
		b = append(b, id...)
		b = append(b, responseMid...)
		b = append(b, result...)
		return append(b, '}'), nil
	}
	var we *jsonrpc.Error
	if !errors.As(resp.Error, &we) {
		we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
	}
	out := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, we}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (c *lineConn) writeLine(data []byte) error {
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// batchAnswer adds an answer to b and writes the array once complete.
func (c *lineConn) batchAnswer(b *batch, data []byte) error {
	c.mu.Lock()
	if data != nil {
		b.answers = append(b.answers, data)
	}
	b.waiting--
	done := b.waiting == 0
	c.mu.Unlock()
	if !done || len(b.answers) == 0 {
		return nil
	}
	return c.writeLine(append(append([]byte("["), bytes.Join(b.answers, []byte(","))...), ']'))
}

// Answers of the transport itself.
const (
	codeParseError     = jsonrpc.CodeParseError
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
	codeInvalidParams  = jsonrpc.CodeInvalidParams
)

// errorLine encodes a JSON-RPC error answer; id nil is null.
func errorLine(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	return b
}

// serveLine screens one input line and hands its message(s) to the server.
func (c *lineConn) serveLine(line []byte) error {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		return c.writeLine(errorLine(nil, codeParseError, "Parse error: the line is not valid JSON"))
	}
	if line[0] != '[' {
		if answer := c.screen(line, nil); answer != nil {
			return c.writeLine(answer)
		}
		return nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil || len(elems) == 0 {
		return c.writeLine(errorLine(nil, codeInvalidRequest, "Invalid Request: an empty batch"))
	}
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	if v >= "2025-06-18" {
		return c.writeLine(errorLine(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: JSON-RPC batches are not supported in protocol version %s (only up to 2025-03-26); send one message per line", v)))
	}
	b := &batch{waiting: 1} // the extra 1 is released after the loop
	for _, e := range elems {
		if answer := c.screen(e, b); answer != nil {
			c.mu.Lock()
			b.answers = append(b.answers, answer)
			c.mu.Unlock()
		}
	}
	return c.batchAnswer(b, nil)
}

// isInteger reports whether b is a JSON integer literal: an optional
// minus, then 0 or digits without a leading zero (no fraction, no
// exponent).
func isInteger(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || b[0] == '0' && len(b) > 1 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// maxExactInt is the largest integer a float64 holds exactly (the SDK
// keeps numeric ids as float64 on decoding).
const maxExactInt = 1 << 53

// screen checks one message (a JSON value) and passes it to the server.
// It returns the error answer to write, or nil. b is the batch it belongs
// to, or nil.
func (c *lineConn) screen(msg []byte, b *batch) []byte {
	msg = bytes.Clone(msg) // the reader reuses the line's buffer; the members below outlive it
	// The members as written (the last of a repeated name, as decoders
	// keep it); nil when absent.
	var rawID, version, rawMethod, params, result, rpcError []byte
	if msg[0] != '{' || !eachMember(msg, func(name, v []byte) {
		switch string(name) {
		case "id":
			rawID = v
		case "jsonrpc":
			version = v
		case "method":
			rawMethod = v
		case "params":
			params = v
		case "result":
			result = v
		case "error":
			rpcError = v
		}
	}) {
		return errorLine(nil, codeInvalidRequest, "Invalid Request: a JSON-RPC message is a JSON object")
	}
	hasID := rawID != nil
	var id jsonrpc.ID
	if hasID {
		var err error
		if id, err = c.requestID(rawID); err != nil {
			return errorLine(nil, codeInvalidRequest, "Invalid Request: "+err.Error())
		}
	}
	idOut := json.RawMessage(rawID)
	// An invalid envelope is answered even without an id (a null one, as
	// JSON-RPC 2.0 says); a notification with bad params gets no answer.
	invalid := func(format string, args ...any) []byte {
		return errorLine(idOut, codeInvalidRequest, fmt.Sprintf(format, args...))
	}
	refuse := func(code int64, format string, args ...any) []byte {
		if !hasID {
			c.log.Printf("dropped a notification: "+format, args...)
			return nil
		}
		return errorLine(idOut, code, fmt.Sprintf(format, args...))
	}
	if string(version) != `"2.0"` {
		return invalid(`Invalid Request: "jsonrpc" must be "2.0" (member names are case-sensitive)`)
	}
	if rawMethod == nil {
		if result != nil || rpcError != nil {
			return nil // an answer to a request of ours: the server sends none
		}
		return invalid(`Invalid Request: no "method" member`)
	}
	if rawMethod[0] != '"' {
		return invalid(`Invalid Request: "method" must be a string`)
	}
	method := string(memberName(rawMethod))
	if result != nil {
		return invalid(`Invalid Request: a request has no "result" member`)
	}
	switch {
	case len(params) == 0 || string(params) == "null":
		params = nil
	case params[0] != '{':
		return refuse(codeInvalidParams, `Invalid params: "params" must be an object`)
	default:
		if msg := checkParams(method, params); msg != "" {
			return refuse(codeInvalidParams, "Invalid params: %s", msg)
		}
	}
	if !hasID {
		if method == "notifications/cancelled" {
			params = c.cancel(params)
		}
		c.deliver(&jsonrpc.Request{Method: method, Params: params})
		return nil
	}
	c.mu.Lock()
	if _, dup := c.pending[id]; dup {
		c.mu.Unlock()
		return errorLine(idOut, codeInvalidRequest, "Invalid Request: a request with this id is still running")
	}
	c.pending[id] = &pendingCall{raw: idOut, method: method, batch: b}
	if b != nil {
		b.waiting++
	}
	if method == "initialize" {
		c.initID = &id
	} else if v := metaVersion(params); v != "" {
		c.version = v
	}
	c.mu.Unlock()
	c.deliver(&jsonrpc.Request{ID: id, Method: method, Params: params})
	return nil
}

// deliver hands a message to the server's Read.
func (c *lineConn) deliver(m jsonrpc.Message) {
	if c.lines != nil { // called by Read itself
		c.queue = append(c.queue, m)
		return
	}
	select {
	case c.msgs <- m:
	case <-c.closed:
	}
}

// requestID turns the id as written into the SDK's id: strings and
// integers only. An integer a float64 cannot hold exactly gets a string
// stand-in, never seen by the client (answers carry the id as written).
func (c *lineConn) requestID(raw json.RawMessage) (jsonrpc.ID, error) {
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, err
		}
		return jsonrpc.MakeID(s)
	case isInteger(raw):
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err == nil && n <= maxExactInt && n >= -maxExactInt {
			return jsonrpc.MakeID(float64(n))
		}
		return jsonrpc.MakeID("\x00tv-id:" + string(raw))
	}
	return jsonrpc.ID{}, fmt.Errorf(`"id" must be a string or an integer, not %s`, bytes.TrimSpace(raw))
}

// cancel marks the request a notifications/cancelled names as cancelled
// (its answer is dropped) and returns params naming it by the SDK's id.
func (c *lineConn) cancel(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p["requestId"] == nil {
		return params
	}
	id, err := c.requestID(p["requestId"])
	if err != nil {
		return params
	}
	c.mu.Lock()
	if pc := c.pending[id]; pc != nil {
		pc.cancelled = true
	}
	c.mu.Unlock()
	if s, ok := id.Raw().(string); ok {
		p["requestId"], _ = json.Marshal(s)
		if b, err := json.Marshal(p); err == nil {
			return b
		}
	}
	return params
}

// metaVersion returns the protocol version a request of 2026-07-28 or
// later names in its _meta ("" when none).
func metaVersion(params json.RawMessage) string {
	meta := member(params, "_meta")
	if len(meta) == 0 || meta[0] != '{' {
		return ""
	}
	v := member(meta, mcp.MetaKeyProtocolVersion)
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	return string(memberName(v))
}

// paramType is the JSON type a member of a request's params must have:
// '"' a string, '{' an object.
type paramType struct {
	name string
	kind byte
}

// paramTypes are the JSON types of the members of the requests tv's
// servers answer that the SDK would otherwise decode leniently or refuse
// with a less helpful message: method → members (at most maxTypedParams).
var paramTypes = map[string][]paramType{
	"tools/call":           {{"name", '"'}, {"arguments", '{'}, {"_meta", '{'}},
	"tools/list":           {{"cursor", '"'}, {"_meta", '{'}},
	"initialize":           {{"protocolVersion", '"'}, {"capabilities", '{'}, {"clientInfo", '{'}, {"_meta", '{'}},
	"ping":                 {{"_meta", '{'}},
	"server/discover":      {{"_meta", '{'}},
	"subscriptions/listen": {{"notifications", '{'}, {"_meta", '{'}},
}

// maxTypedParams bounds the members paramTypes lists for one method.
const maxTypedParams = 4

var typeNames = map[byte]string{'"': "a string", '{': "an object"}

// checkParams returns why params (an object) do not fit method, or "".
func checkParams(method string, params json.RawMessage) string {
	types, ok := paramTypes[method]
	if !ok {
		return ""
	}
	var got [maxTypedParams][]byte // the last value of each typed member
	eachMember(params, func(name, v []byte) {
		for i, t := range types {
			if string(name) == t.name {
				got[i] = v
			}
		}
	})
	for i, t := range types {
		v := got[i]
		if v == nil || string(v) == "null" && t.name == "arguments" {
			continue
		}
		if v[0] != t.kind {
			return fmt.Sprintf("%q must be %s, not %s", t.name, typeNames[t.kind], v)
		}
	}
	return ""
}

// refuseOversize answers an input line over the limit; id is its
// top-level id as written, or nil.
func (c *lineConn) refuseOversize(id json.RawMessage, maxLine int) error {
	if id != nil {
		if _, err := c.requestID(id); err != nil {
			id = nil
		}
	}
	limit := fmt.Sprintf("%d-byte", maxLine)
	if maxLine%(1<<20) == 0 {
		limit += fmt.Sprintf(" (%d MiB)", maxLine>>20)
	}
	return c.writeLine(errorLine(id, codeInvalidRequest, "request refused: the input line is over the "+limit+" limit, JSON-RPC envelope included (MaxInputLineBytes); it was not processed. Send smaller arguments (for example write a large file in parts)."))
}

// syncWriter makes each Write atomic, so messages never interleave (each
// message is one Write).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// lineReader reads newline-terminated lines from in (see next).
type lineReader struct {
	br         *bufio.Reader
	line       []byte
	maxLine    int
	onLine     func([]byte) error
	onOversize func(id json.RawMessage, maxLine int) error
}

func newLineReader(in io.Reader, maxLine int, onLine func([]byte) error, onOversize func(id json.RawMessage, maxLine int) error) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(in, 64<<10), line: make([]byte, 0, 64<<10), maxLine: maxLine, onLine: onLine, onOversize: onOversize}
}

// next reads one line and calls onLine with it when it is not blank
// (without its line ending; the slice is reused after the call returns).
// A line whose content is over maxLine bytes is scanned as it streams
// (never buffered whole) for its top-level "id", and onOversize is called
// with that id as written (nil when there is none) instead. A final line
// without a newline counts. It returns io.EOF at the end of in, or the
// first error of a callback or of in.
func (r *lineReader) next() error {
	line := r.line[:0]
	var over *idScanner
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case over != nil:
			over.feed(chunk)
		case len(line)+len(chunk) <= r.maxLine+2:
			line = append(line, chunk...)
		default:
			over = &idScanner{}
			over.feed(line)
			over.feed(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		r.line = line[:0]
		if err != nil && err != io.EOF {
			return err
		}
		var cerr error
		if content := bytes.TrimRight(line, "\r\n"); over != nil || len(content) > r.maxLine {
			if over == nil {
				over = &idScanner{}
				over.feed(content)
			}
			cerr = r.onOversize(over.id(), r.maxLine)
		} else if len(bytes.TrimSpace(content)) > 0 {
			cerr = r.onLine(content)
		}
		if cerr != nil {
			return cerr
		}
		return err
	}
}

// readLines calls r.next until the end of input: nil at EOF, else the
// first error.
func readLines(in io.Reader, maxLine int, onLine func([]byte) error, onOversize func(id json.RawMessage, maxLine int) error) error {
	r := newLineReader(in, maxLine, onLine, onOversize)
	for {
		if err := r.next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// idScanner finds the top-level "id" member of a JSON object fed to it in
// pieces, keeping only a bounded copy of that member's value.
type idScanner struct {
	depth     int
	inString  bool
	escaped   bool
	expectKey bool   // at depth 1, the next string is a member name
	inKey     bool   // reading a member name
	key       []byte // the name read so far (bounded)
	afterID   bool   // the last name was "id"; its value follows the colon
	capturing bool   // copying the id's value
	value     []byte
	found     bool
	keyTooBig bool
}

// maxIDBytes bounds the copy of an id's value (longer ones are not ids
// the server would accept).
const maxIDBytes = 256

func (s *idScanner) feed(p []byte) {
	for _, ch := range p {
		if s.capturing {
			if s.depth == 1 && !s.inString && (ch == ',' || ch == '}') {
				s.capturing, s.found = false, true
			} else if len(s.value) < maxIDBytes+1 {
				s.value = append(s.value, ch)
			}
		}
		if s.inString {
			switch {
			case s.escaped:
				s.escaped = false
				s.keyTooBig = s.keyTooBig || s.inKey // an escaped name is never "id" as written
			case ch == '\\':
				s.escaped = true
			case ch == '"':
				s.inString = false
				if s.inKey {
					s.inKey = false
					s.afterID = !s.keyTooBig && string(s.key) == "id" && !s.found
				}
			case s.inKey:
				if len(s.key) < 8 {
					s.key = append(s.key, ch)
				} else {
					s.keyTooBig = true
				}
			}
			continue
		}
		switch ch {
		case '"':
			s.inString = true
			if s.depth == 1 && s.expectKey {
				s.inKey, s.expectKey, s.key, s.keyTooBig = true, false, s.key[:0], false
			}
		case '{', '[':
			s.depth++
			if s.depth == 1 && ch == '{' {
				s.expectKey = true
			}
		case '}', ']':
			s.depth--
		case ',':
			if s.depth == 1 {
				s.expectKey = true
			}
		case ':':
			if s.depth == 1 && s.afterID {
				s.afterID, s.capturing, s.value = false, true, s.value[:0]
			}
		}
	}
}

// id returns the id's value as written, or nil when none was found whole.
func (s *idScanner) id() json.RawMessage {
	v := bytes.TrimSpace(s.value)
	if !s.found || len(v) == 0 || len(v) > maxIDBytes || !json.Valid(v) {
		return nil
	}
	return v
}
