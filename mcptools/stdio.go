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
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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
// It is a small stdio transport of its own around srv.HandleMessage
// (mcp-go's stdio server has no line limit and hands each message through
// several goroutines): the read loop runs in the calling goroutine, each
// request is served on its own goroutine (so a long execute_bash does not
// stall other calls), notifications are handled in order on the read loop,
// and every response is written with one Write under a mutex. Lines over
// maxLine bytes (the JSON-RPC envelope included, the newline not) are
// never parsed: each is answered with a JSON-RPC error (code -32600, the
// request's id when it can be read from the line's start, else null) and
// serving continues. At EOF, requests still running get ShutdownGrace to
// finish, then are cancelled (execute_bash kills its process group) and
// awaited. Diagnostics go to logw; out carries JSON-RPC only.
func ServeStdio(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, logw io.Writer, maxLine int) error {
	logger := log.New(logw, "tv mcp: ", log.LstdFlags)
	w := &syncWriter{w: out}
	sess := &stdioSession{notifications: make(chan mcp.JSONRPCNotification, 100)}
	if err := srv.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	defer srv.UnregisterSession(context.Background(), sess.SessionID())
	ctx, cancel := context.WithCancel(srv.WithContext(ctx, sess))
	defer cancel()
	var wg, notify sync.WaitGroup
	notify.Go(func() {
		for {
			select {
			case n := <-sess.notifications:
				if err := writeMessage(w, n); err != nil {
					logger.Printf("write notification: %v", err)
				}
			case <-ctx.Done():
				return
			}
		}
	})
	onLine := func(line []byte) error {
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return writeError(w, nil, CodeParseError, "Parse error: the line is not a JSON-RPC message")
		}
		if head.Method == "" {
			return nil // a response: this server sends no requests of its own
		}
		if len(head.ID) == 0 || string(head.ID) == "null" {
			handle(ctx, srv, w, logger, nil, line)
			return nil
		}
		if inline(head.Method, head.Params.Name) {
			handle(ctx, srv, w, logger, head.ID, line)
			return nil
		}
		msg := bytes.Clone(line)
		wg.Go(func() { handle(ctx, srv, w, logger, head.ID, msg) })
		return nil
	}
	onOversize := func(prefix []byte) error { return refuseLine(w, prefix, maxLine) }
	done := make(chan error, 1)
	go func() { done <- ReadLines(in, maxLine, onLine, onOversize) }()
	var err error
	select {
	case err = <-done:
		// stdin closed: let running requests finish for a moment, so a
		// client that sent its last request and closed gets its answer.
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(ShutdownGrace):
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	cancel()
	wg.Wait()
	notify.Wait()
	return err
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
func handle(ctx context.Context, srv *server.MCPServer, w io.Writer, logger *log.Logger, id json.RawMessage, msg []byte) {
	defer func() {
		if r := recover(); r != nil {
			logger.Printf("panic serving a message: %v", r)
			if id != nil {
				writeError(w, id, CodeInternalError, fmt.Sprintf("internal error: %v", r))
			}
		}
	}()
	if resp := srv.HandleMessage(ctx, msg); resp != nil {
		if err := writeMessage(w, resp); err != nil {
			logger.Printf("write response: %v", err)
		}
	}
}

func writeMessage(w io.Writer, msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
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

// stdioSession is the one client session of a stdio server.
type stdioSession struct {
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
}

func (s *stdioSession) SessionID() string                                   { return "stdio" }
func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notifications }
func (s *stdioSession) Initialize()                                         { s.initialized.Store(true) }
func (s *stdioSession) Initialized() bool                                   { return s.initialized.Load() }

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
