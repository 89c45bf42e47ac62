package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/mcptools/mcpkit"
)

// benchFile writes the bench/mcp file (lines lines of 72 bytes) into a
// temporary launch directory and returns a server on it.
func benchFile(b *testing.B, lines int) *Local {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range lines {
		fmt.Fprintf(&sb, "line %04d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "file.txt"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	l, err := New(Config{LaunchDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkReadFileHandler measures one read_file call through the
// registered handler (validation, workspace resolution, wsfs read,
// envelope) and the result's JSON encoding, without transport.
func BenchmarkReadFileHandler(b *testing.B) {
	l := benchFile(b, 100)
	h := Handler(l.validator, "read_file", func(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
		return l.readFile(ctx, raw)
	})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "read_file", Arguments: json.RawMessage(`{"path":"file.txt"}`)}}
	b.ReportAllocs()
	for b.Loop() {
		res, _ := h(context.Background(), req)
		if res.IsError {
			b.Fatal(res)
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}

// lineWriter passes each write to a channel.
type lineWriter chan []byte

func (w lineWriter) Write(p []byte) (int, error) {
	w <- append([]byte(nil), p...)
	return len(p), nil
}

// BenchmarkReadFileLine measures the stdio server's whole per-call work
// for a tools/call read_file line of the bench/mcp file (72-byte lines):
// the transport's screening, the SDK server, the tool and the response
// written with one Write; everything but a real pipe.
func BenchmarkReadFileLine(b *testing.B) {
	for _, lines := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) { benchLine(b, lines) })
	}
}

func benchLine(b *testing.B, lines int) {
	defer debug.SetGCPercent(debug.SetGCPercent(mcpkit.ServerGCPercent)) // as TuneGC sets it in tv's servers
	l := benchFile(b, lines)
	inR, inW := io.Pipe()
	out := make(lineWriter, 4)
	done := make(chan error, 1)
	go func() { done <- l.Serve(context.Background(), inR, out, io.Discard) }()
	send := func(line string) []byte {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			b.Fatal(err)
		}
		return <-out
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"file.txt"}}}`
	last := send(msg)
	if !strings.Contains(string(last), `"structuredContent"`) || strings.Contains(string(last), `"isError"`) {
		b.Fatalf("response %.300s", last)
	}
	b.SetBytes(int64(len(last)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		send(msg)
	}
	// Process CPU time (GC workers included) per call: steadier than wall
	// time on a shared machine.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	inW.Close()
	<-done
}
