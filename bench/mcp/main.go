// Command mcp is the benchmark driver for `tv mcp local`: it spawns tv and
// the reference Node filesystem server (@modelcontextprotocol/server-
// filesystem) side by side and, with the same client for both, times
// server start + initialize and N read calls of the same file (tv
// read_file vs read_text_file), interleaving the two servers (A B A B …)
// so machine noise hits both alike.
//
// It measures with two clients, one after the other:
//
//   - lean (lean.go): a minimal real MCP client — the initialize handshake
//     and notifications/initialized, then one tools/call per round trip,
//     one response line read and decoded with encoding/json into a generic
//     structure, the result checked (not isError, text content equal to
//     the file). Its own cost is small, so the ratio shows the servers.
//     The targets are judged on it.
//   - sdk (sdk.go): the official Go SDK client, whose decoding and output
//     schema validation cost about as much as either server; reported as a
//     second table (-sdk=false skips it).
//
// It prints the tables and the ratios and exits 1 when a target is missed
// with the lean client: read p50 tv/node <= 1/3, start+initialize p50
// tv/node <= 1/10.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type server struct {
	name string
	argv []string
	dir  string // working directory
	tool string
	args map[string]any
}

// samples are one server's measurements with one client. reads are
// round trips: request written to response line read (lean client), or
// the SDK's CallTool (its decoding and validation included); totals are
// the lean client's whole calls, the response's decoding into
// map[string]any and the checks included.
type samples struct {
	starts, reads, totals, pings []time.Duration
}

type options struct {
	n, warm, starts int
	protocol        string
	want            string // the file's content
}

func main() {
	tv := flag.String("tv", "", "path to the tv binary")
	nodeServer := flag.String("node", "", "path to server-filesystem's dist/index.js")
	n := flag.Int("n", 500, "read calls per server and client")
	warm := flag.Int("warm", 50, "warm-up read calls per server and client (not timed)")
	lines := flag.Int("lines", 100, "lines of the file read (72 bytes each)")
	starts := flag.Int("starts", 15, "start+initialize samples per server and client")
	readTarget := flag.Float64("read-target", 1.0/3, "max tv/node read p50 ratio (lean client)")
	startTarget := flag.Float64("start-target", 1.0/10, "max tv/node start+initialize p50 ratio (lean client)")
	sdkTarget := flag.Float64("sdk-target", 1.0/2, "max tv/node read p50 ratio (Go SDK client)")
	protocol := flag.String("protocol", "2025-11-25", "MCP protocol version the clients ask for (the same for both servers)")
	sdk := flag.Bool("sdk", true, "also measure with the Go SDK client (second table)")
	floor := flag.Bool("floor", true, "add the floor server to both clients' tables: no work, tv's captured response bytes")
	canned := flag.String("canned", "", "run as the floor server answering tools/call with this file's response line (internal)")
	cpuprofile := flag.String("cpuprofile", "", "write the driver's CPU profile here")
	rssCalls := flag.Int("rss", 10000, "sequential read calls of the RSS check (0 skips it)")
	flag.Parse()
	if *canned != "" {
		b, err := os.ReadFile(*canned)
		check(err)
		check(serveCanned(b))
		return
	}
	if *tv == "" || *nodeServer == "" {
		fmt.Fprintln(os.Stderr, "usage: mcp -tv PATH -node PATH/dist/index.js [-n 500] [-sdk=false]")
		os.Exit(2)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		check(err)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	dir, err := os.MkdirTemp("", "tv-bench-mcp")
	check(err)
	defer os.RemoveAll(dir)
	dir, err = filepath.EvalSymlinks(dir)
	check(err)
	var sb strings.Builder
	for i := range *lines {
		fmt.Fprintf(&sb, "line %04d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	check(os.WriteFile(filepath.Join(dir, "file.txt"), []byte(sb.String()), 0o644))
	opt := options{n: *n, warm: *warm, starts: *starts, protocol: *protocol, want: sb.String()}

	servers := []server{
		{"tv read_file", []string{*tv, "mcp", "local"}, dir, "read_file", map[string]any{"path": "file.txt"}},
		{"node read_text_file", []string{"node", *nodeServer, dir}, dir, "read_text_file", map[string]any{"path": filepath.Join(dir, "file.txt")}},
	}

	fmt.Printf("file: %d bytes, %d lines; per server and client: %d timed read calls (after %d warm-up), %d start+initialize samples; servers interleaved A B A B; protocol %s\n",
		len(opt.want), *lines, opt.n, opt.warm, opt.starts, opt.protocol)

	leanServers := servers
	if *floor {
		self, err := os.Executable()
		check(err)
		for i, name := range []string{"tv", "node"} {
			resp, err := captureResponse(servers[i], opt)
			check(err)
			f := filepath.Join(dir, name+"-response.json")
			check(os.WriteFile(f, resp, 0o644))
			leanServers = append(leanServers[:len(leanServers):len(leanServers)], server{"floor (no work, " + name + "'s bytes)", []string{self, "-canned", f}, dir, servers[i].tool, servers[i].args})
		}
	}
	lean, err := runLean(leanServers, opt)
	check(err)
	fmt.Printf("\nLean client (bench/mcp/lean.go): round trip = request written to response line read; the response is then decoded with encoding/json into map[string]any and checked (not isError, text equal to the file):\n\n")
	readRatio, totalRatio, startRatio := leanTable(leanServers, lean)
	readOK, startOK := readRatio <= *readTarget, startRatio <= *startTarget
	fmt.Printf("\nread round trip p50 ratio tv/node: %.3f (target <= %.3f) %s\n", readRatio, *readTarget, verdict(readOK))
	fmt.Printf("start+initialize p50 ratio tv/node: %.3f (target <= %.3f) %s\n", startRatio, *startTarget, verdict(startOK))
	fmt.Printf("read + client decode p50 ratio tv/node: %.3f (reported: the client's decoding of the two copies of the file costs about the same for both servers)\n", totalRatio)
	if *floor {
		fmt.Printf("floor/node p50 ratios: read round trip %.3f, read + client decode %.3f (what a server doing nothing would score with tv's bytes; with node's bytes %.3f, %.3f)\n",
			float64(pct(lean[2].reads, 50))/float64(pct(lean[1].reads, 50)), float64(pct(lean[2].totals, 50))/float64(pct(lean[1].totals, 50)),
			float64(pct(lean[3].reads, 50))/float64(pct(lean[1].reads, 50)), float64(pct(lean[3].totals, 50))/float64(pct(lean[1].totals, 50)))
	}

	sdkOK := true
	if *sdk {
		res, err := runSDK(leanServers, opt)
		check(err)
		fmt.Printf("\nGo SDK client (github.com/modelcontextprotocol/go-sdk): read = the CallTool call (request, response, the client's decoding and checks); the bench's own check of the result is after it:\n\n")
		r, s := sdkTable(leanServers, res)
		sdkOK = r <= *sdkTarget
		fmt.Printf("\nread p50 ratio tv/node: %.3f (target <= %.3f) %s; start+initialize p50 ratio tv/node: %.3f (reported)\n", r, *sdkTarget, verdict(sdkOK), s)
		if *floor {
			fmt.Printf("floor/node read p50 ratio: %.3f (the client's own work on tv's bytes, with a server doing nothing; on node's bytes %.3f)\n",
				float64(pct(res[2].reads, 50))/float64(pct(res[1].reads, 50)), float64(pct(res[3].reads, 50))/float64(pct(res[1].reads, 50)))
		}
	}
	rssOK := true
	if *rssCalls > 0 {
		rssOK, err = rssFlat(servers[0], opt, *rssCalls)
		check(err)
		fmt.Printf("RSS flat within ±20%%: %s\n", verdict(rssOK))
	}
	if !readOK || !startOK || !rssOK || !sdkOK {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// captureResponse reads the file once from s with the lean client and
// returns the response line.
func captureResponse(s server, opt options) ([]byte, error) {
	c, err := startLean(s, opt.protocol)
	if err != nil {
		return nil, err
	}
	defer c.close()
	if _, _, err := c.readText(s.tool, s.args, opt.want); err != nil {
		return nil, err
	}
	return append([]byte(nil), c.last...), nil
}

func runLean(servers []server, opt options) ([]samples, error) {
	out := make([]samples, len(servers))
	for range opt.starts {
		for i, s := range servers {
			t0 := time.Now()
			c, err := startLean(s, opt.protocol)
			if err != nil {
				return nil, err
			}
			out[i].starts = append(out[i].starts, time.Since(t0))
			c.close()
		}
	}
	clients := make([]*leanClient, len(servers))
	for i, s := range servers {
		c, err := startLean(s, opt.protocol)
		if err != nil {
			return nil, err
		}
		defer c.close()
		clients[i] = c
		for range opt.warm {
			if _, _, err := c.readText(s.tool, s.args, opt.want); err != nil {
				return nil, err
			}
		}
	}
	for range opt.n {
		for i, s := range servers {
			c := clients[i]
			rt, total, err := c.readText(s.tool, s.args, opt.want)
			if err != nil {
				return nil, err
			}
			out[i].reads = append(out[i].reads, rt)
			out[i].totals = append(out[i].totals, total)
			ping, err := c.ping()
			if err != nil {
				return nil, err
			}
			out[i].pings = append(out[i].pings, ping)
		}
	}
	return out, nil
}

func runSDK(servers []server, opt options) ([]samples, error) {
	ctx := context.Background()
	out := make([]samples, len(servers))
	for range opt.starts {
		for i, s := range servers {
			t0 := time.Now()
			cs, err := connectSDK(ctx, s, opt.protocol)
			if err != nil {
				return nil, err
			}
			out[i].starts = append(out[i].starts, time.Since(t0))
			cs.Close()
		}
	}
	sessions := make([]*mcp.ClientSession, len(servers))
	for i, s := range servers {
		cs, err := connectSDK(ctx, s, opt.protocol)
		if err != nil {
			return nil, err
		}
		defer cs.Close()
		sessions[i] = cs
		for range opt.warm {
			if _, err := readSDK(ctx, cs, s, opt.want); err != nil {
				return nil, err
			}
		}
	}
	for range opt.n {
		for i, s := range servers {
			cs := sessions[i]
			took, err := readSDK(ctx, cs, s, opt.want)
			if err != nil {
				return nil, err
			}
			out[i].reads = append(out[i].reads, took)
			t0 := time.Now()
			if err := cs.Ping(ctx, nil); err != nil {
				return nil, err
			}
			out[i].pings = append(out[i].pings, time.Since(t0))
		}
	}
	return out, nil
}

// leanTable prints the lean client's table and returns the tv/node p50
// ratios of read round trips, of whole read calls and of starts
// (servers[0] is tv, servers[1] node, a third the floor server).
func leanTable(servers []server, res []samples) (read, total, start float64) {
	fmt.Printf("| server | start+initialize p50 | read round trip p50 | p90 | client decode p50 | read + client decode p50 | p90 | ping round trip p50 |\n|---|---|---|---|---|---|---|---|\n")
	for i, s := range servers {
		r := res[i]
		decode := make([]time.Duration, len(r.totals))
		for j := range decode {
			decode[j] = r.totals[j] - r.reads[j]
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", s.name, ms(pct(r.starts, 50)), ms(pct(r.reads, 50)), ms(pct(r.reads, 90)),
			ms(pct(decode, 50)), ms(pct(r.totals, 50)), ms(pct(r.totals, 90)), ms(pct(r.pings, 50)))
	}
	return ratio(res, func(r samples) []time.Duration { return r.reads }),
		ratio(res, func(r samples) []time.Duration { return r.totals }),
		ratio(res, func(r samples) []time.Duration { return r.starts })
}

// sdkTable prints the Go SDK client's table and returns the tv/node p50
// ratios of reads and starts.
func sdkTable(servers []server, res []samples) (read, start float64) {
	fmt.Printf("| server | start+initialize p50 | read p50 | read p90 | ping p50 |\n|---|---|---|---|---|\n")
	for i, s := range servers {
		r := res[i]
		fmt.Printf("| %s | %s | %s | %s | %s |\n", s.name, ms(pct(r.starts, 50)), ms(pct(r.reads, 50)), ms(pct(r.reads, 90)), ms(pct(r.pings, 50)))
	}
	return ratio(res, func(r samples) []time.Duration { return r.reads }),
		ratio(res, func(r samples) []time.Duration { return r.starts })
}

func ratio(res []samples, f func(samples) []time.Duration) float64 {
	return float64(pct(f(res[0]), 50)) / float64(pct(f(res[1]), 50))
}

func pct(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000) }

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
