package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
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
	h := handler(l.validator, "read_file", func(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
		return l.readFile(ctx, raw)
	})
	req := mcp.CallToolRequest{}
	req.Params.Name = "read_file"
	req.Params.RawArguments = json.RawMessage(`{"path":"file.txt"}`)
	b.ReportAllocs()
	for b.Loop() {
		res := h(context.Background(), req)
		if res.IsError {
			b.Fatal(res)
		}
		if _, err := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1), res)); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countWriter counts what is written and keeps the last write.
type countWriter struct {
	n    int
	last []byte
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.n++
	w.last = append(w.last[:0], p...)
	return len(p), nil
}

// BenchmarkReadFileLine measures the stdio server's whole per-call work
// for a tools/call read_file line of the bench/mcp file (7,200 bytes):
// the line's dispatch, the Dispatcher's HandleMessage, the tool and the response
// written with one Write; everything but the pipe.
func BenchmarkReadFileLine(b *testing.B) {
	for _, direct := range []bool{true, false} {
		for _, lines := range []int{1, 100, 1000} {
			b.Run(fmt.Sprintf("direct=%v/lines=%d", direct, lines), func(b *testing.B) {
				benchLine(b, lines, direct)
			})
		}
	}
}

func benchLine(b *testing.B, lines int, direct bool) {
	l := benchFile(b, lines)
	w := &countWriter{}
	c := newStdioConn(context.Background(), l.Dispatcher(), w, io.Discard)
	defer c.close()
	if direct {
		c.direct = l.directTools()
	}
	c.serveLine([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`))
	c.serveLine([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"file.txt"}}}`)
	c.serveLine(msg)
	if !strings.Contains(string(w.last), `"structuredContent"`) || strings.Contains(string(w.last), `"isError"`) {
		b.Fatalf("response %.300s", w.last)
	}
	b.SetBytes(int64(len(w.last)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if err := c.serveLine(msg); err != nil {
			b.Fatal(err)
		}
	}
	// Process CPU time (GC workers included) per call: steadier than wall
	// time on a shared machine.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
