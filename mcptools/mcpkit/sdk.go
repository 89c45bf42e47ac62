package mcpkit

import (
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/thalix/tv/internal/stackgrow"
)

// ServerOptions are the parts of a tv MCP server the SDK server is made of.
type ServerOptions struct {
	// Name and Version are the server's implementation info.
	Name, Version string
	// Instructions are sent in initialize and server/discover results.
	Instructions string
	// Order is the tool list order tools/list answers in (the SDK sorts
	// by name); tools not in it follow, by name.
	Order []string
	// ListChanged announces notifications/tools/list_changed (the scoped
	// vault server's tool set follows the vault).
	ListChanged bool
	// Log receives the SDK's diagnostics; nil discards them.
	Log io.Writer
}

// NewServer returns the official SDK's server for a tools-only tv server:
// the tools capability alone (no logging), tools/list in opt.Order, and
// tools/call results encoded in one pass (encodeOnce), each tools/call's
// goroutine grown at once to the stack a call reaches (growCallStack).
func NewServer(opt ServerOptions) *mcp.Server {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: opt.Name, Version: opt.Version}, &mcp.ServerOptions{
		Instructions: opt.Instructions,
		Logger:       slog.New(slog.NewTextHandler(opt.Log, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: opt.ListChanged}},
		// Lists depend on the launch directory, the user and their rank:
		// immediately stale, and only the requesting user's client may
		// keep them (the SDK's default scope is "public").
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs, c.CacheScope = 0, "private" },
	})
	srv.AddReceivingMiddleware(growCallStack, encodeOnce, listOrder(opt.Order))
	return srv
}

// growCallStack is the outermost receiving middleware: the SDK serves
// each request on a new goroutine, which a read_file call grew from 4 to
// 8 KiB deep in the tool's frames (a uprobe on runtime.copystack counts
// one growth to 4 KiB per request, inside the SDK before any middleware,
// and one to 8 KiB per tools/call); grown here, a few frames down, the
// copy walks fewer frames (see internal/stackgrow). Measured with
// BenchmarkReadFileLine/lines=100, alternating builds: 100.8 → 96.2 µs
// and 134 → 128 µs of CPU per call (4 of 4 pairs faster); bench/mcp's
// lean read ratio 0.325, 0.339 → 0.306, 0.287 in two alternating runs.
func growCallStack(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			stackgrow.To8K()
		}
		return next(ctx, method, req)
	}
}

// listOrder returns a middleware that orders tools/list results like
// order.
func listOrder(order []string) mcp.Middleware {
	rank := make(map[string]int, len(order))
	for i, n := range order {
		rank[n] = i + 1
	}
	key := func(t *mcp.Tool) int {
		if r, ok := rank[t.Name]; ok {
			return r
		}
		return len(order) + 1
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.ListToolsResult); ok && err == nil && method == "tools/list" {
				slices.SortStableFunc(r.Tools, func(a, b *mcp.Tool) int { return key(a) - key(b) })
			}
			return res, err
		}
	}
}

// Serve runs srv over stdio (in, out; see Transport) until in is closed
// (a clean exit) or ctx ends; diagnostics go to logw. A pipe or socket in
// is read, and a pipe or socket out written, through Go's poller
// (pollableInput, pollableOutput).
func Serve(ctx context.Context, srv *mcp.Server, in io.Reader, out, logw io.Writer) error {
	polled, restore := pollableInput(in)
	defer restore()
	polledOut, restoreOut := pollableOutput(out)
	defer restoreOut()
	store := &resultStore{}
	t := &Transport{In: polled, Out: polledOut, MaxLine: MaxInputLineBytes, Log: log.New(logw, "tv mcp: ", log.LstdFlags), results: store}
	if c, ok := polled.(io.Closer); ok && polled != in {
		t.polled = c
	}
	err := srv.Run(context.WithValue(ctx, storeKey{}, store), t)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// ServerGCPercent is the garbage collector's target a tv MCP server runs
// with (GOGC), Go's default. A larger target was tried (400: a quarter as
// many collections, which halved the in-process call's time in
// BenchmarkReadFileLine) but made the spawned server slower: its heap then
// spans four times the pages between collections, and on the bench
// machine (a virtual machine where a page fault is dear) the server took
// 1.6 page faults per read_file call instead of 0.7 (perf stat over 3,000
// calls) and answered 10–15 % later in interleaved runs of 100, 200 and
// 400 (bench/mcp's lean client, the three side by side with node).
const ServerGCPercent = 100

// TuneGC sets ServerGCPercent unless the user set GOGC (getenv looks it
// up). Call it from the command that runs a server, once.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(ServerGCPercent)
	}
}

// StdioServerProcs is the GOMAXPROCS of `tv mcp local`. A stdio server
// answers one request at a time, and the SDK hands each request from
// goroutine to goroutine (its read loop, a queue goroutine, a handler
// goroutine): with a second P every hand-off wakes another thread to
// steal the goroutine, which on a loaded machine waits for a core. With
// one P the hand-offs stay on the thread that read the request. Measured
// on the bench machine (bench/mcp, 2 cores, load 9–14): per request 40 %
// fewer context switches (3.9 vs 6.7) and 25 % less CPU, and a lower
// read_file p50 in every interleaved round. The local tools do no
// parallel Go work of their own (execute_bash's child runs on its own).
const StdioServerProcs = 1

// TuneProcs sets StdioServerProcs unless the user set GOMAXPROCS (getenv
// looks it up). Call it from the command that runs a stdio server whose
// requests do no parallel work, once.
func TuneProcs(getenv func(string) string) {
	if getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(StdioServerProcs)
	}
}
