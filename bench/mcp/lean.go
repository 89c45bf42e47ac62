package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"
)

// leanClient is a minimal but real MCP client over stdio: newline-delimited
// JSON-RPC, the MCP handshake (initialize, then notifications/initialized),
// one request in flight, one response line read per request and decoded
// with encoding/json into a generic structure. It adds as little of its own
// cost as a real client can, so the servers' differences show.
type leanClient struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	id     int
	req    []byte // request buffer, reused
	server string
	last   []byte // the last response line
}

// startLean spawns s and performs the MCP handshake with protocol.
func startLean(s server, protocol string) (*leanClient, error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = s.dir
	cmd.Stderr = nil
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &leanClient{cmd: cmd, stdin: in, stdout: bufio.NewReaderSize(out, 256<<10), server: s.name}
	res, err := c.call("initialize", map[string]any{
		"protocolVersion": protocol,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "tv-bench-lean", "version": "1"},
	})
	if err != nil {
		c.close()
		return nil, fmt.Errorf("%s initialize: %w", s.name, err)
	}
	if got, _ := res["protocolVersion"].(string); got != protocol {
		c.close()
		return nil, fmt.Errorf("%s negotiated protocol %q, not %s", s.name, got, protocol)
	}
	if _, err := c.stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// call sends one request and returns its decoded result member.
func (c *leanClient) call(method string, params any) (map[string]any, error) {
	res, _, err := c.timedCall(method, params)
	return res, err
}

// timedCall is call that also returns the round trip: from just before
// the request is written to the moment its whole response line has been
// read (the decoding and the caller's checks come after).
func (c *leanClient) timedCall(method string, params any) (map[string]any, time.Duration, error) {
	c.id++
	p, err := json.Marshal(params)
	if err != nil {
		return nil, 0, err
	}
	c.req = append(c.req[:0], `{"jsonrpc":"2.0","id":`...)
	c.req = strconv.AppendInt(c.req, int64(c.id), 10)
	c.req = append(c.req, `,"method":`...)
	c.req = strconv.AppendQuote(c.req, method)
	c.req = append(c.req, `,"params":`...)
	c.req = append(c.req, p...)
	c.req = append(c.req, "}\n"...)
	t0 := time.Now()
	if _, err := c.stdin.Write(c.req); err != nil {
		return nil, 0, err
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return nil, 0, err
		}
		rt := time.Since(t0)
		c.last = line
		var msg map[string]any
		if err := json.Unmarshal(line, &msg); err != nil {
			return nil, 0, fmt.Errorf("response is not JSON: %v", err)
		}
		if m, ok := msg["method"].(string); ok {
			// A server notification or request: this client declares no
			// capabilities, so it answers requests with "method not found".
			if id, ok := msg["id"]; ok {
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "method not found: " + m}})
				c.stdin.Write(append(b, '\n'))
			}
			continue
		}
		if id, _ := msg["id"].(float64); int(id) != c.id {
			return nil, 0, fmt.Errorf("response id %v, want %d", msg["id"], c.id)
		}
		if e, ok := msg["error"]; ok {
			return nil, 0, fmt.Errorf("JSON-RPC error: %v", e)
		}
		res, ok := msg["result"].(map[string]any)
		if !ok {
			return nil, 0, fmt.Errorf("response without a result object")
		}
		return res, rt, nil
	}
}

func (c *leanClient) readLine() ([]byte, error) {
	line, err := c.stdout.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = c.stdout.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if err != nil {
		return nil, fmt.Errorf("reading the response: %w", err)
	}
	return line, nil
}

// readText calls tool with args and checks the result: not isError, and
// its first content block is text equal to want. It returns the round
// trip (see timedCall) and the whole call's time, the response's decoding
// and the checks included.
func (c *leanClient) readText(tool string, args map[string]any, want string) (rt, total time.Duration, err error) {
	t0 := time.Now()
	rt, err = c.check(tool, args, want)
	return rt, time.Since(t0), err
}

func (c *leanClient) check(tool string, args map[string]any, want string) (time.Duration, error) {
	res, rt, err := c.timedCall("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.server, err)
	}
	if isErr, _ := res["isError"].(bool); isErr {
		return 0, fmt.Errorf("%s returned isError: %v", c.server, res["content"])
	}
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return 0, fmt.Errorf("%s: result has no content", c.server)
	}
	first, _ := content[0].(map[string]any)
	if first["type"] != "text" {
		return 0, fmt.Errorf("%s: first content block is %v, not text", c.server, first["type"])
	}
	if text, _ := first["text"].(string); !holdsFile(text, want) {
		return 0, fmt.Errorf("%s: text content (%d bytes) is not the file (%d bytes)", c.server, len(text), len(want))
	}
	return rt, nil
}

// holdsFile reports whether a read's text block carries the file: the
// file itself (the Node server), or the serialized structured result
// whose data.content is the file (tv, as protocol 2025-06-18 recommends;
// decoding it is part of the client's work).
func holdsFile(text, want string) bool {
	if text == want {
		return true
	}
	var env struct {
		Data struct {
			Content string `json:"content"`
		} `json:"data"`
	}
	return json.Unmarshal([]byte(text), &env) == nil && env.Data.Content == want
}

// ping sends a ping request (the client + pipe + JSON-RPC floor) and
// returns its round trip.
func (c *leanClient) ping() (time.Duration, error) {
	_, rt, err := c.timedCall("ping", map[string]any{})
	return rt, err
}

// close closes stdin (the servers exit at EOF) and waits for the process.
func (c *leanClient) close() {
	c.stdin.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}
