package mcptools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// JSON-RPC error codes used by the stdio transport.
const (
	// CodeParseError answers a line that is not JSON.
	CodeParseError = -32700
	// CodeInvalidRequest answers an input line over MaxInputLineBytes.
	CodeInvalidRequest = -32600
	// CodeInternalError answers a request whose handler panicked.
	CodeInternalError = -32603
)

// ServeStdio serves srv over newline-delimited JSON-RPC on in and out until
// in reaches EOF (a clean exit: nil) or ctx ends.
//
// It is a small stdio transport around srv.HandleMessage for one Session,
// whose notifications it writes as they come: the read loop runs in the
// calling goroutine, each request is served on its own goroutine (so a
// long execute_bash does not stall other calls), notifications are
// handled in order on the read loop, and every message is written with
// one Write under a mutex. Lines over
// maxLine bytes (the JSON-RPC envelope included, the newline not) are
// never parsed: each is answered with a JSON-RPC error (code -32600, the
// request's id when it can be read from the line's start, else null) and
// serving continues. At EOF, requests still running get ShutdownGrace to
// finish, then are cancelled (execute_bash kills its process group) and
// awaited. Diagnostics go to logw; out carries JSON-RPC only.
func ServeStdio(ctx context.Context, srv *Dispatcher, in io.Reader, out io.Writer, logw io.Writer, maxLine int) error {
	return ServeStdioWith(ctx, srv, in, out, logw, StdioOptions{MaxLine: maxLine})
}

// StdioOptions tune ServeStdioWith.
type StdioOptions struct {
	// MaxLine is the input line limit (see ServeStdio).
	MaxLine int
	// Direct maps tool names to DirectTools: a tools/call request of one
	// of them in its plain form (members jsonrpc "2.0", a string or number
	// id, method and params; params only name and arguments: no _meta, so
	// the protocol era before 2026-07-28, no task) is served on the read
	// loop without srv.HandleMessage, which for such a request only finds
	// the tool and calls its handler. Any other form goes through srv.
	Direct map[string]DirectTool
}

// DirectTool serves a tools/call directly (StdioOptions.Direct); raw is
// the arguments member as sent (nil when absent). It must answer exactly
// like the handler registered with the server (a domain failure is an
// isError result); a panic is answered as the Dispatcher answers a
// panicking handler.
type DirectTool func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult

// ServeStdioWith is ServeStdio with options.
func ServeStdioWith(ctx context.Context, srv *Dispatcher, in io.Reader, out io.Writer, logw io.Writer, opt StdioOptions) error {
	c := newStdioConn(ctx, srv, out, logw)
	c.direct = opt.Direct
	defer c.close()
	onOversize := func(prefix []byte) error { return refuseLine(c.w, prefix, opt.MaxLine) }
	done := make(chan error, 1)
	go func() { done <- ReadLines(in, opt.MaxLine, c.serveLine, onOversize) }()
	var err error
	select {
	case err = <-done:
		// stdin closed: let running requests finish for a moment, so a
		// client that sent its last request and closed gets its answer.
		finished := make(chan struct{})
		go func() { c.wg.Wait(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(ShutdownGrace):
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	return err
}

// stdioConn is one stdio session of a server: the message handling of
// ServeStdio without the reading.
type stdioConn struct {
	srv    *Dispatcher
	sess   *Session
	w      *syncWriter
	logger *log.Logger
	ctx    context.Context
	cancel context.CancelFunc
	direct map[string]DirectTool
	wg     sync.WaitGroup // running requests
	notify sync.WaitGroup // the notification writer
}

// newStdioConn opens a session of srv and starts its notification
// writer; close undoes both.
func newStdioConn(ctx context.Context, srv *Dispatcher, out, logw io.Writer) *stdioConn {
	c := &stdioConn{
		srv:    srv,
		sess:   srv.NewSession(),
		w:      &syncWriter{w: out},
		logger: log.New(logw, "tv mcp: ", log.LstdFlags),
	}
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.notify.Go(func() {
		for {
			select {
			case n := <-c.sess.Notifications():
				if err := writeMessage(c.w, n); err != nil {
					c.logger.Printf("write notification: %v", err)
				}
			case <-c.ctx.Done():
				return
			}
		}
	})
	return c
}

// close cancels running requests (execute_bash kills its process group),
// waits for them and the notification writer, and unregisters the
// session.
func (c *stdioConn) close() {
	c.cancel()
	c.wg.Wait()
	c.notify.Wait()
	c.srv.CloseSession(c.sess)
}

// serveLine serves one input line (a JSON-RPC message, without its line
// ending; the slice may be reused once it returns): notifications and
// small requests on the calling goroutine, other requests on their own.
func (c *stdioConn) serveLine(line []byte) error {
	if c.direct != nil && bytes.Contains(line, []byte(`"tools/call"`)) && c.serveDirect(line) {
		return nil
	}
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return writeError(c.w, nil, CodeParseError, "Parse error: the line is not a JSON-RPC message")
	}
	if head.Method == "" {
		return nil // a response: this server sends no requests of its own
	}
	if len(head.ID) == 0 || string(head.ID) == "null" {
		c.handle(nil, line)
		return nil
	}
	if inline(head.Method, head.Params.Name) {
		c.handle(head.ID, line)
		return nil
	}
	msg := bytes.Clone(line)
	c.wg.Go(func() { c.handle(head.ID, msg) })
	return nil
}

// serveDirect serves line when it is a plain tools/call of a direct tool
// (StdioOptions.Direct) and reports whether it did. Member names are
// matched exactly and must be unescaped and unique (encoding/json matches
// struct fields case-insensitively and keeps the last of duplicates, so a
// line with, say, "_META", "Params" or two "params" is left to
// HandleMessage).
func (c *stdioConn) serveDirect(line []byte) bool {
	if !json.Valid(line) {
		return false
	}
	var jsonrpc, id, method, params []byte
	ok := objectMembers(line, func(k string, v []byte) bool {
		var dst *[]byte
		switch k {
		case "jsonrpc":
			dst = &jsonrpc
		case "id":
			dst = &id
		case "method":
			dst = &method
		case "params":
			dst = &params
		default:
			return false
		}
		if *dst != nil {
			return false
		}
		*dst = v
		return true
	})
	if !ok || string(jsonrpc) != `"2.0"` || string(method) != `"tools/call"` {
		return false
	}
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		return false
	}
	var name, args []byte
	ok = params != nil && objectMembers(params, func(k string, v []byte) bool {
		var dst *[]byte
		switch k {
		case "name":
			dst = &name
		case "arguments":
			dst = &args
		default:
			return false
		}
		if *dst != nil {
			return false
		}
		*dst = v
		return true
	})
	// The name must be a string without escapes (others go to
	// HandleMessage).
	if !ok || len(name) < 2 || name[0] != '"' || bytes.IndexByte(name, '\\') >= 0 {
		return false
	}
	tool := c.direct[string(name[1:len(name)-1])]
	if tool == nil {
		return false
	}
	c.callDirect(id, string(name[1:len(name)-1]), tool, args)
	return true
}

// objectMembers calls f with each member of the JSON object b (valid
// JSON, json.Valid) in order: the name as written (it must have no
// escapes; invalid UTF-8 is passed as is) and the value's bytes. It stops
// and returns false when b is not an object, a name has an escape, or f
// returns false.
func objectMembers(b []byte, f func(name string, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		end := bytes.IndexByte(b[i+1:], '"')
		if end < 0 {
			return false
		}
		name := b[i+1 : i+1+end]
		if bytes.IndexByte(name, '\\') >= 0 {
			return false
		}
		i = skipSpace(b, i+2+end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 || !f(string(name), b[i:vend]) {
			return false
		}
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == '}' {
			return true
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value that starts at b[i] (b is
// valid JSON), or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
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
		return -1
	}
	// A number, true, false or null.
	for i < len(b) && bytes.IndexByte([]byte(",}] \t\n\r"), b[i]) < 0 {
		i++
	}
	return i
}

// skipString returns the end of the JSON string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// callDirect runs a direct tool and writes its response (the request id
// echoed as sent) with one Write; a panic, or no result, is answered as
// HandleMessage answers it.
func (c *stdioConn) callDirect(id json.RawMessage, name string, tool DirectTool, args json.RawMessage) {
	res, perr := func() (res *mcp.CallToolResult, perr any) {
		defer func() { perr = recover() }()
		return tool(c.ctx, args), nil
	}()
	if perr != nil || res == nil {
		msg := fmt.Sprintf("panic recovered in %s tool handler: %v", name, perr)
		if perr == nil {
			msg = fmt.Sprintf("tool '%s' handler returned no result", name) // as HandleMessage
		}
		if err := writeError(c.w, id, CodeInternalError, msg); err != nil {
			c.logger.Printf("write response: %v", err)
		}
		return
	}
	bp := responseBufs.Get().(*[]byte)
	b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b, err := appendCallToolResult(b, res)
	if err == nil {
		b = append(b, "}\n"...)
		_, err = c.w.Write(b)
	}
	if err != nil {
		c.logger.Printf("write response: %v", err)
	}
	if cap(b) <= maxPooledBuf {
		*bp = b[:0]
		responseBufs.Put(bp)
	}
}

// inlineTools are tools whose work is small and bounded (read_file reads
// at most MaxReadBytes), served on the read loop itself: a request spared
// a goroutine hand-off answers sooner on a busy machine.
var inlineTools = map[string]bool{"read_file": true}

func inline(method, tool string) bool {
	switch method {
	case "ping", "initialize", "tools/list":
		return true
	case "tools/call":
		return inlineTools[tool]
	}
	return false
}

// handle serves one message; a panic becomes an internal error response.
func (c *stdioConn) handle(id json.RawMessage, msg []byte) {
	defer func() {
		if r := recover(); r != nil {
			c.logger.Printf("panic serving a message: %v", r)
			if id != nil {
				writeError(c.w, id, CodeInternalError, fmt.Sprintf("internal error: %v", r))
			}
		}
	}()
	if resp := c.srv.HandleMessage(c.ctx, c.sess, msg); resp != nil {
		if err := writeMessage(c.w, resp); err != nil {
			c.logger.Printf("write response: %v", err)
		}
	}
}

// writeMessage encodes msg (appendMessage) into a pooled buffer and
// writes it, newline-terminated, with one Write.
func writeMessage(w io.Writer, msg any) error {
	bp := responseBufs.Get().(*[]byte)
	b, err := appendMessage((*bp)[:0], msg)
	if err == nil {
		b = append(b, '\n')
		_, err = w.Write(b)
	}
	if cap(b) <= maxPooledBuf {
		*bp = b[:0]
		responseBufs.Put(bp)
	}
	return err
}

func writeError(w io.Writer, id any, code int, message string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	return writeMessage(w, struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
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

// ReadLines reads newline-terminated lines from in and calls onLine with
// each non-blank line (without its line ending; the slice is reused after
// the call returns). A line whose content is over maxLine bytes is
// discarded as it streams (never buffered whole) and onOversize is called
// with its first bytes instead. A final line without a newline counts. It
// returns nil at EOF, or the first error of a callback or of in.
func ReadLines(in io.Reader, maxLine int, onLine, onOversize func([]byte) error) error {
	br := bufio.NewReaderSize(in, 64<<10)
	line := make([]byte, 0, 64<<10)
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			if len(line)+len(chunk) <= maxLine+2 {
				line = append(line, chunk...)
			} else {
				over = true
				line = append(line, chunk[:min(len(chunk), maxLine+2-len(line))]...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		var cerr error
		if content := bytes.TrimRight(line, "\r\n"); over || len(content) > maxLine {
			cerr = onOversize(line)
		} else if len(bytes.TrimSpace(content)) > 0 {
			cerr = onLine(content)
		}
		if cerr != nil {
			return cerr
		}
		line, over = line[:0], false
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// LimitLines copies the lines of in that are at most maxLine bytes to out
// (newline-terminated) and answers each longer line on reply with the
// JSON-RPC error ServeStdio sends. It returns nil at EOF of in.
func LimitLines(in io.Reader, out io.Writer, reply io.Writer, maxLine int) error {
	return ReadLines(in, maxLine,
		func(l []byte) error { _, err := out.Write(append(l, '\n')); return err },
		func(p []byte) error { return refuseLine(reply, p, maxLine) })
}

func refuseLine(w io.Writer, prefix []byte, maxLine int) error {
	limit := fmt.Sprintf("%d-byte", maxLine)
	if maxLine%(1<<20) == 0 {
		limit += fmt.Sprintf(" (%d MiB)", maxLine>>20)
	}
	return writeError(w, leadingID(prefix), CodeInvalidRequest, "request refused: the input line is over the "+limit+" limit, JSON-RPC envelope included (MaxInputLineBytes); it was not processed. Send smaller arguments (for example write a large file in parts).")
}

// leadingID returns the top-level "id" of a (possibly truncated) JSON-RPC
// message when it appears before any member that cannot be read whole,
// else nil.
func leadingID(prefix []byte) any {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k == "id" {
			t, err := dec.Token()
			if err != nil {
				return nil
			}
			switch t.(type) {
			case string, json.Number:
				return t
			}
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}
