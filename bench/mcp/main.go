// Command mcp is the benchmark driver for `tv mcp local`: with one MCP
// client (the official Go SDK) it spawns tv and the reference Node
// filesystem server (@modelcontextprotocol/server-filesystem) side by
// side, times server start + initialize, and times N read calls of the
// same file (tv read_file vs read_text_file), interleaving the two so
// drift hits both alike. It prints a table and the ratios, and exits 1
// when a target is missed: read p50 ratio <= 1/3, start p50 ratio <= 1/10.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
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
	tool string
	args map[string]any
}

func main() {
	tv := flag.String("tv", "", "path to the tv binary")
	nodeServer := flag.String("node", "", "path to server-filesystem's dist/index.js")
	n := flag.Int("n", 200, "read calls per server")
	lines := flag.Int("lines", 100, "lines of the file read (about 72 bytes each)")
	starts := flag.Int("starts", 15, "start+initialize samples per server")
	readTarget := flag.Float64("read-target", 1.0/3, "max tv/node read p50 ratio")
	startTarget := flag.Float64("start-target", 1.0/10, "max tv/node start p50 ratio")
	protocol := flag.String("protocol", "2025-11-25", "MCP protocol version the client asks for (the same for both servers)")
	cpuprofile := flag.String("cpuprofile", "", "write the driver's CPU profile here")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		check(err)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *tv == "" || *nodeServer == "" {
		fmt.Fprintln(os.Stderr, "usage: mcp -tv PATH -node PATH/dist/index.js [-n 200]")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "tv-bench-mcp")
	check(err)
	defer os.RemoveAll(dir)
	dir, _ = filepath.EvalSymlinks(dir)
	var sb strings.Builder
	for i := range *lines {
		fmt.Fprintf(&sb, "line %04d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	check(os.WriteFile(filepath.Join(dir, "file.txt"), []byte(sb.String()), 0o644))
	size := sb.Len()

	servers := []server{
		{"tv read_file", []string{*tv, "mcp", "local", "--root", dir}, "read_file", map[string]any{"path": "file.txt"}},
		{"node read_text_file", []string{"node", *nodeServer, dir}, "read_text_file", map[string]any{"path": filepath.Join(dir, "file.txt")}},
	}
	ctx := context.Background()

	startP50 := make([]time.Duration, len(servers))
	for i, s := range servers {
		var samples []time.Duration
		for range *starts {
			t0 := time.Now()
			cs := connect(ctx, s, *protocol)
			samples = append(samples, time.Since(t0))
			cs.Close()
		}
		startP50[i] = pct(samples, 50)
	}

	sessions := make([]*mcp.ClientSession, len(servers))
	for i, s := range servers {
		sessions[i] = connect(ctx, s, *protocol)
		defer sessions[i].Close()
		for range 20 { // warm up
			callOnce(ctx, sessions[i], s)
		}
	}
	reads := make([][]time.Duration, len(servers))
	pings := make([][]time.Duration, len(servers))
	for range *n {
		for i, s := range servers {
			t0 := time.Now()
			callOnce(ctx, sessions[i], s)
			reads[i] = append(reads[i], time.Since(t0))
			t0 = time.Now()
			check(sessions[i].Ping(ctx, nil))
			pings[i] = append(pings[i], time.Since(t0))
		}
	}

	fmt.Printf("file: %d bytes, %d lines; %d read calls and %d starts per server, one Go SDK client, protocol %s\n\n", size, *lines, *n, *starts, *protocol)
	fmt.Printf("| server | start+initialize p50 | read p50 | read p90 | ping p50 (transport floor) |\n|---|---|---|---|---|\n")
	for i, s := range servers {
		fmt.Printf("| %s | %s | %s | %s | %s |\n", s.name, ms(startP50[i]), ms(pct(reads[i], 50)), ms(pct(reads[i], 90)), ms(pct(pings[i], 50)))
	}
	readRatio := float64(pct(reads[0], 50)) / float64(pct(reads[1], 50))
	startRatio := float64(startP50[0]) / float64(startP50[1])
	fmt.Printf("\nread p50 ratio tv/node: %.3f (target <= %.3f) %s\n", readRatio, *readTarget, verdict(readRatio <= *readTarget))
	fmt.Printf("start p50 ratio tv/node: %.3f (target <= %.3f) %s\n", startRatio, *startTarget, verdict(startRatio <= *startTarget))
	if readRatio > *readTarget || startRatio > *startTarget {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func connect(ctx context.Context, s server, protocol string) *mcp.ClientSession {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Stderr = nil
	client := mcp.NewClient(&mcp.Implementation{Name: "tv-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	check(err)
	if got := cs.InitializeResult().ProtocolVersion; got != protocol {
		check(fmt.Errorf("%s negotiated protocol %s, not %s", s.name, got, protocol))
	}
	return cs
}

func callOnce(ctx context.Context, cs *mcp.ClientSession, s server) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: s.args})
	check(err)
	if res.IsError {
		check(fmt.Errorf("%s returned an error: %v", s.name, res.Content))
	}
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
