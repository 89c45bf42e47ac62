package mcptools

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/mcptools/internal/golden"
	"github.com/thalix/tv/mcptools/internal/wiretest"
)

// modernMeta is the _meta of a request of protocol version 2026-07-28.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// wireSteps are the raw lines of TestWireLocal: every method, protocol
// era and malformed form the dispatcher answers.
var wireSteps = []wiretest.Step{
	// Before initialize: answered as after it.
	{In: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
	{In: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
	{In: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_directory","arguments":{}}}`},
	// initialize: version negotiation.
	{In: `{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{In: `{"jsonrpc":"2.0","id":11,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{In: `{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{In: `{"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`},
	{In: `{"jsonrpc":"2.0","id":14,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{In: `{"jsonrpc":"2.0","id":15,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{In: `{"jsonrpc":"2.0","id":16,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{In: `{"jsonrpc":"2.0","id":17,"method":"initialize","params":{}}`},
	{In: `{"jsonrpc":"2.0","id":18,"method":"initialize"}`},
	{In: `{"jsonrpc":"2.0","id":19,"method":"initialize","params":5}`},
	{In: `{"jsonrpc":"2.0","id":20,"method":"initialize","params":{"protocolVersion":7}}`},
	{In: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
	{In: `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`},
	{In: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999,"reason":"x"}}`},
	{In: `{"jsonrpc":"2.0","method":"notifications/whatever"}`},
	{In: `{"jsonrpc":"2.0","method":"notifications/whatever","params":5}`},
	{In: `{"jsonrpc":"2.0","id":null,"method":"ping"}`},
	// ping.
	{In: `{"jsonrpc":"2.0","id":30,"method":"ping","params":{}}`},
	{In: `{"jsonrpc":"2.0","id":"p-1","method":"ping","params":{"_meta":{"progressToken":1}}}`},
	{In: `{"jsonrpc":"2.0","id":31,"method":"ping","params":5}`},
	// tools/list.
	{In: `{"jsonrpc":"2.0","id":40,"method":"tools/list","params":{}}`},
	{In: `{"jsonrpc":"2.0","id":41,"method":"tools/list","params":null}`},
	{In: `{"jsonrpc":"2.0","id":42,"method":"tools/list","params":{"cursor":"Z3JlcA=="}}`},
	{In: `{"jsonrpc":"2.0","id":43,"method":"tools/list","params":{"cursor":"!!!"}}`},
	{In: `{"jsonrpc":"2.0","id":44,"method":"tools/list","params":{"cursor":""}}`},
	{In: `{"jsonrpc":"2.0","id":45,"method":"tools/list","params":{"cursor":5}}`},
	{In: `{"jsonrpc":"2.0","id":46,"method":"tools/list","params":[]}`},
	// tools/call.
	{In: `{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`},
	{In: `{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"},"_meta":{"progressToken":1}}}`},
	{In: `{"jsonrpc":"2.0","id":52,"method":"tools/call","params":{"name":"list_directory","arguments":{"path":"."}}}`},
	{In: `{"jsonrpc":"2.0","id":53,"method":"tools/call","params":{"name":"list_directory"}}`},
	{In: `{"jsonrpc":"2.0","id":54,"method":"tools/call","params":{"name":"list_directory","arguments":null}}`},
	{In: `{"jsonrpc":"2.0","id":55,"method":"tools/call","params":{"name":"list_directory","arguments":{"bogus":1}}}`},
	{In: `{"jsonrpc":"2.0","id":56,"method":"tools/call","params":{"name":"nope","arguments":{}}}`},
	{In: `{"jsonrpc":"2.0","id":57,"method":"tools/call","params":{"arguments":{}}}`},
	{In: `{"jsonrpc":"2.0","id":58,"method":"tools/call"}`},
	{In: `{"jsonrpc":"2.0","id":59,"method":"tools/call","params":5}`},
	{In: `{"jsonrpc":"2.0","id":60,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"two"}}}`},
	{In: `{"jsonrpc":"2.0","id":61,"method":"tools/call","params":{"name":"workspace_info","arguments":{}}}`},
	{In: `{"jsonrpc":"2.0","id":62,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"b.txt","content":"b\n"}}}`},
	{In: `{"jsonrpc":"2.0","id":63,"method":"tools/call","params":{"name":"execute_bash","arguments":{"command":"echo hi"}}}`},
	{In: `{"jsonrpc":"2.0","id":64,"method":"tools/call","params":{"name":"list_directory","arguments":{}},"extra":1}`},
	{In: `{"jsonrpc":"2.0","id":65,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"},"task":{"ttl":1000}}}`},
	{In: `{"jsonrpc":"2.0","id":66,"method":"tools/call","params":{"name":"list_directory","arguments":{},"task":{}}}`},
	// notifications/cancelled cancels a running call (execute_bash kills
	// its process group) and the call gets no answer (issue 14, defect 5).
	{In: `{"jsonrpc":"2.0","id":67,"method":"tools/call","params":{"name":"execute_bash","arguments":{"command":"sleep 20"}}}`, NoReply: true},
	{In: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":67}}`, Before: sleepStarted},
	{In: `{"jsonrpc":"2.0","id":"s-68","method":"tools/call","params":{"name":"execute_bash","arguments":{"command":"sleep 20"}}}`, NoReply: true},
	{In: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s-68"}}`, Before: sleepStarted},
	// Ids.
	{In: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, NullID: true},
	{In: `{"jsonrpc":"2.0","id":-7,"method":"ping"}`},
	{In: `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, NullID: true},
	{In: `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`},
	{In: `{"jsonrpc":"2.0","id":"","method":"ping"}`},
	{In: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, NullID: true},
	{In: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, NullID: true},
	{In: `{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, NullID: true},
	{In: `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"nope"}}`, NullID: true},
	// Other methods.
	{In: `{"jsonrpc":"2.0","id":70,"method":"nope/nope"}`},
	{In: `{"jsonrpc":"2.0","id":71,"method":"resources/list"}`},
	{In: `{"jsonrpc":"2.0","id":72,"method":"resources/templates/list"}`},
	{In: `{"jsonrpc":"2.0","id":73,"method":"resources/read","params":{"uri":"x"}}`},
	{In: `{"jsonrpc":"2.0","id":74,"method":"resources/subscribe","params":{"uri":"x"}}`},
	{In: `{"jsonrpc":"2.0","id":75,"method":"resources/unsubscribe","params":{"uri":"x"}}`},
	{In: `{"jsonrpc":"2.0","id":76,"method":"prompts/list"}`},
	{In: `{"jsonrpc":"2.0","id":77,"method":"prompts/get","params":{"name":"x"}}`},
	{In: `{"jsonrpc":"2.0","id":78,"method":"logging/setLevel","params":{"level":"info"}}`},
	{In: `{"jsonrpc":"2.0","id":79,"method":"completion/complete","params":{}}`},
	{In: `{"jsonrpc":"2.0","id":80,"method":"tasks/get","params":{"taskId":"x"}}`},
	{In: `{"jsonrpc":"2.0","id":81,"method":"tasks/list"}`},
	{In: `{"jsonrpc":"2.0","id":82,"method":"tasks/result","params":{"taskId":"x"}}`},
	{In: `{"jsonrpc":"2.0","id":83,"method":"tasks/cancel","params":{"taskId":"x"}}`},
	{In: `{"jsonrpc":"2.0","id":84,"method":"server/discover"}`},
	{In: `{"jsonrpc":"2.0","id":85,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`},
	{In: `{"jsonrpc":"2.0","id":86,"method":"sampling/createMessage","params":{}}`},
	{In: `{"jsonrpc":"2.0","id":87,"method":"roots/list"}`},
	// Protocol 2026-07-28 (_meta): no handshake, decorated results.
	{In: `{"jsonrpc":"2.0","id":90,"method":"server/discover","params":{` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":91,"method":"tools/list","params":{` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":92,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"},` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":93,"method":"tools/call","params":{"name":"list_directory","arguments":{},` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":94,"method":"tools/call","params":{"name":"nope",` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":95,"method":"initialize","params":{"protocolVersion":"2026-07-28",` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":96,"method":"ping","params":{` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":97,"method":"logging/setLevel","params":{"level":"info",` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":98,"method":"tasks/list","params":{` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":99,"method":"resources/subscribe","params":{"uri":"x",` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":100,"method":"resources/list","params":{` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":101,"method":"nope/nope","params":{` + modernMeta + `}}`},
	{In: `{"jsonrpc":"2.0","id":102,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`, Notes: 1},
	{In: `{"jsonrpc":"2.0","id":103,"method":"subscriptions/listen","params":{"notifications":{},` + modernMeta + `}}`, Notes: 1},
	{In: `{"jsonrpc":"2.0","id":104,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
	{In: `{"jsonrpc":"2.0","id":105,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`},
	{In: `{"jsonrpc":"2.0","id":106,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}`},
	{In: `{"jsonrpc":"2.0","id":107,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":5}}}`},
	{In: `{"jsonrpc":"2.0","id":108,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"2"},"io.modelcontextprotocol/logLevel":"debug"}}}`},
	{In: `{"jsonrpc":"2.0","id":109,"method":"tools/list","params":{"_meta":5}}`},
	{In: `{"jsonrpc":"2.0","id":110,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":2026}}}`},
	{In: `{"jsonrpc":"2.0","method":"notifications/initialized","params":{` + modernMeta + `}}`},
	// Malformed envelopes.
	{In: `not json`},
	{In: `{"jsonrpc":"1.0","id":120,"method":"ping"}`},
	{In: `{"id":121,"method":"ping"}`},
	{In: `{"jsonrpc":"1.0","method":"notifications/initialized"}`},
	{In: `{"jsonrpc":2,"id":122,"method":"ping"}`},
	{In: `{"jsonrpc":"2.0","id":123,"method":5}`},
	{In: `{"jsonrpc":"2.0","id":124,"method":"ping","result":{}}`, NoReply: true},
	{In: `{"jsonrpc":"2.0","id":125,"result":{}}`, NoReply: true},
	{In: `{"jsonrpc":"2.0","id":126,"error":{"code":1,"message":"x"}}`, NoReply: true},
	{In: `{"jsonrpc":"2.0","id":127,"method":"tools/call","params":{"name":5}}`},
	{In: `[{"jsonrpc":"2.0","id":128,"method":"ping"}]`},
	{In: `{"jsonrpc":"2.0","id":129,"method":"ping"} `},
	{In: `{"jsonrpc":"2.0","id":130,"method":""}`},
	{In: `{"jsonrpc":"2.0","id":131,"method":"Ping"}`},
}

// sleepStarted waits until a `sleep 20` started by this process (through
// execute_bash's bash) that it has not seen before is running: the call
// that started it is in flight, so its cancellation finds it. Without
// /proc it waits 100 ms.
func sleepStarted() {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		time.Sleep(100 * time.Millisecond)
		return
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if pid := procgroupChild("sleep\x0020\x00"); pid != 0 && !sleepsSeen[pid] {
			sleepsSeen[pid] = true
			return
		}
	}
}

// sleepsSeen are the sleep processes sleepStarted has returned for.
var sleepsSeen = map[int]bool{}

// procgroupChild returns the pid of a process whose command line is
// cmdline and whose parent or grandparent is this process (0 for none).
func procgroupChild(cmdline string) int {
	des, _ := os.ReadDir("/proc")
	for _, de := range des {
		pid, err := strconv.Atoi(de.Name())
		if err != nil || sleepsSeen[pid] {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + de.Name() + "/cmdline"); string(b) != cmdline {
			continue
		}
		for p, hops := pid, 0; p > 1 && hops < 3; hops++ {
			if p = parentPID(p); p == os.Getpid() {
				return pid
			}
		}
	}
	return 0
}

// parentPID reads a process's parent from /proc (0 when unknown).
func parentPID(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// wireNormalizer replaces the temporary directory and execute_bash's
// duration.
func wireNormalizer(dir string) func(string) string {
	duration := regexp.MustCompile(`(duration_ms\\?":)[0-9]+`)
	return func(s string) string {
		s = strings.ReplaceAll(s, dir, "$DIR")
		return duration.ReplaceAllString(s, "${1}0")
	}
}

// TestWireLocal drives `tv mcp local`'s stdio server with raw lines and
// compares every byte written with testdata/wire/local.txt.
func TestWireLocal(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	now := time.Unix(1700000000, 0)
	l, err := New(Config{LaunchDir: dir, Version: "1.2.3", Now: func() time.Time { return now },
		Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(ctx context.Context, in io.Reader, out io.Writer) error { return l.Serve(ctx, in, out, io.Discard) }
	got := wiretest.Transcript(t, serve, wireSteps, wireNormalizer(dir))
	golden.File(t, filepath.Join("testdata", "wire", "local.txt"), got, "run UPDATE_TOOLSNAPS=1 go test ./mcptools and review the diff")
}
