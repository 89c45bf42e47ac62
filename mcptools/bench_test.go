package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkReadFileHandler measures one read_file call through the
// registered handler (validation, workspace resolution, wsfs read,
// envelope) and the result's JSON encoding, without transport.
func BenchmarkReadFileHandler(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 300 {
		fmt.Fprintf(&sb, "line %04d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	os.WriteFile(filepath.Join(dir, "file.txt"), []byte(sb.String()), 0o644)
	l, err := New(Config{LaunchDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	h := handler(l.validator, "read_file", func(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
		return l.readFile(ctx, raw)
	})
	req := mcp.CallToolRequest{}
	req.Params.Name = "read_file"
	req.Params.RawArguments = json.RawMessage(`{"path":"file.txt"}`)
	b.ReportAllocs()
	for b.Loop() {
		res, err := h(context.Background(), req)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFileMessage measures a tools/call read_file JSON-RPC
// message through mcp-go's HandleMessage and the response encoding: the
// server's whole per-call work except the pipe.
func BenchmarkReadFileMessage(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 1 {
		fmt.Fprintf(&sb, "line %04d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	os.WriteFile(filepath.Join(dir, "file.txt"), []byte(sb.String()), 0o644)
	l, err := New(Config{LaunchDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	srv := l.MCPServer()
	msg := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"file.txt"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		res := srv.HandleMessage(context.Background(), msg)
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}
