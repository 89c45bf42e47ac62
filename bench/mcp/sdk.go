package main

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The second client: the official Go SDK's. Its own decoding and output
// schema validation cost about as much per call as either server, so it
// narrows the ratio; the table is reported alongside the lean client's.

func connectSDK(ctx context.Context, s server, protocol string) (*mcp.ClientSession, error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = s.dir
	cmd.Stderr = nil
	client := mcp.NewClient(&mcp.Implementation{Name: "tv-bench-sdk", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != protocol {
		cs.Close()
		return nil, fmt.Errorf("%s negotiated protocol %s, not %s", s.name, got, protocol)
	}
	return cs, nil
}

// readSDK calls the server's read tool, returns how long CallTool took
// (the SDK client's whole call: request, response, its decoding and
// checks) and then checks the result: not isError, and its first content
// block is the file (holdsFile, which decodes tv's envelope: outside the
// time, as it is the bench's check, not the client's work).
func readSDK(ctx context.Context, cs *mcp.ClientSession, s server, want string) (time.Duration, error) {
	t0 := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: s.args})
	took := time.Since(t0)
	if err != nil {
		return took, fmt.Errorf("%s: %w", s.name, err)
	}
	return took, checkSDK(res, s, want)
}

// checkSDK checks a read result.
func checkSDK(res *mcp.CallToolResult, s server, want string) error {
	if res.IsError {
		return fmt.Errorf("%s returned isError: %v", s.name, res.Content)
	}
	if len(res.Content) == 0 {
		return fmt.Errorf("%s: result has no content", s.name)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return fmt.Errorf("%s: first content block is %T, not text", s.name, res.Content[0])
	}
	if !holdsFile(tc.Text, want) {
		return fmt.Errorf("%s: text content (%d bytes) is not the file (%d bytes)", s.name, len(tc.Text), len(want))
	}
	return nil
}
