package mcpdoctor

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tap records the raw results of the requests it watches, as the server
// sent them. The SDK decodes tool definitions into Go types that drop
// whether an annotation was set at all (readOnlyHint is a plain bool), and
// it leaves some tools out of its ListTools result; the doctor validates
// the bytes on the wire instead.
type tap struct {
	mu      sync.Mutex
	watch   map[string]bool       // methods to record
	pending map[jsonrpc.ID]string // request id → method
	results map[string][]json.RawMessage
}

func newTap(methods ...string) *tap {
	t := &tap{watch: map[string]bool{}, pending: map[jsonrpc.ID]string{}, results: map[string][]json.RawMessage{}}
	for _, m := range methods {
		t.watch[m] = true
	}
	return t
}

// results returns the recorded results of method, in arrival order.
func (t *tap) get(method string) []json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.results[method])
}

// transport wraps inner so every connection it makes is tapped.
func (t *tap) transport(inner mcp.Transport) mcp.Transport {
	return tapTransport{inner: inner, tap: t}
}

type tapTransport struct {
	inner mcp.Transport
	tap   *tap
}

func (tt tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := tt.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, tap: tt.tap}, nil
}

type tapConn struct {
	mcp.Connection
	tap *tap
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() && c.tap.watch[req.Method] {
		c.tap.mu.Lock()
		c.tap.pending[req.ID] = req.Method
		c.tap.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.tap.mu.Lock()
		if m, ok := c.tap.pending[resp.ID]; ok {
			delete(c.tap.pending, resp.ID)
			if resp.Error == nil {
				c.tap.results[m] = append(c.tap.results[m], slices.Clone(resp.Result))
			}
		}
		c.tap.mu.Unlock()
	}
	return msg, err
}
