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

	"github.com/mark3labs/mcp-go/server"
)

// JSON-RPC error codes used by the line-limited transport.
const (
	// CodeInvalidRequest answers an input line over MaxInputLineBytes.
	CodeInvalidRequest = -32600
)

// ServeStdio serves srv over newline-delimited JSON-RPC on in and out until
// in reaches EOF (a clean exit, nil) or ctx ends. Lines over maxLine bytes
// (the JSON-RPC envelope included, the newline not) are never parsed by
// the server: each is answered with a JSON-RPC error (code -32600, the
// request's id when it could be read from the line's start, else null)
// and serving continues with the next line. Diagnostics go to logw; out
// carries JSON-RPC only.
func ServeStdio(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, logw io.Writer, maxLine int) error {
	w := &syncWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(LimitLines(in, pw, w, maxLine))
	}()
	s := server.NewStdioServer(srv)
	s.SetErrorLogger(log.New(logw, "tv mcp: ", log.LstdFlags))
	err := s.Listen(ctx, pr, w)
	pr.Close()
	return err
}

// syncWriter makes each Write atomic, so responses written by the server
// and refusals written by LimitLines never interleave (each message is one
// Write).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// LimitLines copies newline-terminated lines from in to out, except lines
// whose content is over maxLine bytes: those are discarded as they stream
// (never buffered whole) and answered on reply with a JSON-RPC error. A
// final line without a newline is passed on with one. It returns nil at
// EOF of in.
func LimitLines(in io.Reader, out io.Writer, reply io.Writer, maxLine int) error {
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
		if content := bytes.TrimRight(line, "\r\n"); over || len(content) > maxLine {
			if werr := refuseLine(reply, line, maxLine); werr != nil {
				return werr
			}
		} else if len(bytes.TrimSpace(content)) > 0 {
			if _, werr := out.Write(append(content, '\n')); werr != nil {
				return werr
			}
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

func refuseLine(w io.Writer, prefix []byte, maxLine int) error {
	resp := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: leadingID(prefix)}
	resp.Error.Code = CodeInvalidRequest
	resp.Error.Message = fmt.Sprintf("request refused: the input line is over the %d-byte (1 MiB) limit, JSON-RPC envelope included (MaxInputLineBytes); it was not processed. Send smaller arguments (for example write a large file in parts).", maxLine)
	b, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
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
