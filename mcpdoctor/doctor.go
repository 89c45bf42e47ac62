package mcpdoctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersion is the MCP protocol version the doctor offers in
// initialize: the newest version negotiated by the initialize handshake,
// which is what MCP hosts use. The server may answer with an older version
// the client supports.
const ProtocolVersion = "2025-11-25"

// ClientName is the client name the doctor sends in initialize.
const ClientName = "tv-mcp-doctor"

// Errors a failed check wraps in Result.Err, one per Failure kind, matched
// with errors.Is.
var (
	// ErrStart: the command could not be started (missing, not
	// executable).
	ErrStart = errors.New("server did not start")
	// ErrExited: the server exited before the check was done.
	ErrExited = errors.New("server exited early")
	// ErrTimeout: the server did not answer within the timeout.
	ErrTimeout = errors.New("server timed out")
	// ErrInterrupted: the caller's context was cancelled.
	ErrInterrupted = errors.New("check interrupted")
	// ErrProtocol: the server broke the MCP protocol (a JSON-RPC error, an
	// undecodable message, no tools capability, endless pagination).
	ErrProtocol = errors.New("MCP protocol error")
	// ErrInvalidTool: a tool definition or a call's structured result is
	// invalid (see ValidateTools), or the tool to call is not offered.
	ErrInvalidTool = errors.New("invalid tool definition")
	// ErrRefused: the call returned a result with isError set.
	ErrRefused = errors.New("tool call refused")
)

// Failure kinds, as reported in Result.Failure.
const (
	FailStart       = "start"        // ErrStart
	FailExited      = "exited"       // ErrExited
	FailTimeout     = "timeout"      // ErrTimeout
	FailInterrupted = "interrupted"  // ErrInterrupted
	FailProtocol    = "protocol"     // ErrProtocol
	FailInvalidTool = "invalid_tool" // ErrInvalidTool
	FailRefused     = "refused"      // ErrRefused
)

var failureKinds = []struct {
	err  error
	kind string
}{
	{ErrStart, FailStart}, {ErrExited, FailExited}, {ErrTimeout, FailTimeout},
	{ErrInterrupted, FailInterrupted}, {ErrProtocol, FailProtocol},
	{ErrInvalidTool, FailInvalidTool}, {ErrRefused, FailRefused},
}

// Target is one server to check.
type Target struct {
	// Label names the check in reports (for tv: "serve" or "local").
	Label string
	// Command is the executable; Args its arguments.
	Command string
	Args    []string
	// Env is the server's environment; nil means the doctor's own.
	Env []string
	// Dir is the server's working directory; "" means the doctor's own.
	Dir string
	// Call is the tool to call once the tools are listed ("" calls
	// nothing), with Arguments ({} when nil).
	Call      string
	Arguments map[string]any
	// RequireTools makes an empty tool list a failure (ErrInvalidTool).
	RequireTools bool
	// Timeout bounds the whole check; zero means DefaultTimeout.
	Timeout time.Duration
}

// Timings are how long each step took.
type Timings struct {
	// Initialize is from launching the process to the end of the
	// initialize handshake.
	Initialize time.Duration
	// List is tools/list, every page.
	List time.Duration
	// Call is the tools/call of Target.Call.
	Call time.Duration
}

// MarshalJSON writes the timings in milliseconds, to 0.1 ms; a step that
// did not run is left out.
func (t Timings) MarshalJSON() ([]byte, error) {
	m := map[string]float64{}
	for k, d := range map[string]time.Duration{"initialize_ms": t.Initialize, "list_ms": t.List, "call_ms": t.Call} {
		if d > 0 {
			m[k] = Millis(d)
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Timings) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	ms := func(k string) time.Duration { return time.Duration(m[k] * float64(time.Millisecond)) }
	*t = Timings{Initialize: ms("initialize_ms"), List: ms("list_ms"), Call: ms("call_ms")}
	return nil
}

// Millis is d in milliseconds, rounded to 0.1 ms.
func Millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Millisecond)*10) / 10
}

// Result is what one check found. It is ready for JSON.
type Result struct {
	Label   string   `json:"server"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// OK is true when every step passed.
	OK bool `json:"ok"`
	// Failure is the kind of the first failure (Fail…), Reason says what
	// happened, in one or a few lines.
	Failure string `json:"failure,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Err wraps the failure's sentinel error and the reason.
	Err error `json:"-"`
	// ServerName, ServerVersion and Protocol come from the initialize
	// result.
	ServerName    string `json:"server_name,omitempty"`
	ServerVersion string `json:"server_version,omitempty"`
	Protocol      string `json:"protocol_version,omitempty"`
	// Tools are the listed tool names, in list order.
	Tools []string `json:"tools"`
	// Problems are every defect found in the tool definitions and in the
	// call's result.
	Problems []Problem `json:"problems,omitempty"`
	// Call is the tool called; CallText the start of its result's text.
	Call     string  `json:"call,omitempty"`
	CallText string  `json:"call_text,omitempty"`
	Timings  Timings `json:"timings"`
	// ExitStatus says how the server ended when it ended on its own before
	// the check was done; Stderr is the end of its stderr on failure.
	ExitStatus string `json:"exit_status,omitempty"`
	Stderr     string `json:"stderr,omitempty"`
}

// fail records the first failure; later ones only add to Problems or are
// dropped.
func (r *Result) fail(sentinel error, format string, args ...any) {
	if r.Err != nil {
		return
	}
	r.Reason = fmt.Sprintf(format, args...)
	r.Err = fmt.Errorf("%w: %s", sentinel, r.Reason)
	for _, k := range failureKinds {
		if k.err == sentinel {
			r.Failure = k.kind
		}
	}
}

// Check launches t's server as a subprocess, negotiates MCP (initialize),
// lists its tools and validates every definition (ValidateTools), calls
// t.Call and validates its structured result against the tool's output
// schema, timing each step. It never returns before the server process has
// been terminated and reaped: on success and on every failure it closes the
// server's stdin, waits up to CloseGrace (no grace after a timeout), then
// kills the server's process group and waits for it. Result.OK is true when
// every step passed; otherwise Result.Err says why.
func Check(ctx context.Context, t Target) (res Result) {
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	res = Result{Label: t.Label, Command: t.Command, Args: t.Args, Tools: []string{}}
	if res.Args == nil {
		res.Args = []string{}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	start := time.Now()
	p, err := launch(t)
	if err != nil {
		res.fail(ErrStart, "cannot start %s: %v", t.Command, err)
		return res
	}
	c := &checker{ctx: ctx, t: t, timeout: timeout, p: p, res: &res, tap: newTap("tools/list", "tools/call")}
	defer c.finish()
	if !c.initialize(start) {
		return res
	}
	raws, ok := c.listTools()
	if !ok {
		return res
	}
	called, ok := c.checkTools(raws)
	if !ok || t.Call == "" {
		return res
	}
	c.callTool(called)
	return res
}

// checker is one run of Check: the server process, the client session
// and the result being filled in, step by step.
type checker struct {
	ctx     context.Context
	t       Target
	timeout time.Duration
	p       *process
	res     *Result
	tap     *tap
	session *mcp.ClientSession
}

// finish stops the server (at once when the deadline has passed), closes
// the session, and on failure records the exit status and stderr.
func (c *checker) finish() {
	grace := CloseGrace
	if c.ctx.Err() != nil {
		grace = 0
	}
	earlier := c.p.exited(0)
	c.p.stop(grace)
	if c.session != nil {
		c.session.Close()
	}
	if c.res.Err != nil {
		if earlier && c.res.ExitStatus == "" {
			c.res.ExitStatus = c.p.status()
		}
		c.res.Stderr = c.p.stderr.String()
	}
	c.res.OK = c.res.Err == nil
}

// step records why the request what failed: the deadline, an interrupt, a
// JSON-RPC error, the server's exit or closed pipes, or err itself.
func (c *checker) step(what string, err error) {
	var werr *jsonrpc.Error
	p, res := c.p, c.res
	switch {
	case errors.Is(c.ctx.Err(), context.DeadlineExceeded):
		res.fail(ErrTimeout, "no answer to %s within %s (--timeout)", what, c.timeout)
	case c.ctx.Err() != nil:
		res.fail(ErrInterrupted, "interrupted during %s", what)
	case errors.As(err, &werr):
		res.fail(ErrProtocol, "%s: the server answered with JSON-RPC error %d: %s", what, werr.Code, werr.Message)
	case p.gone.Load() && p.exited(ExitNoticeWait):
		res.ExitStatus = p.status()
		res.fail(ErrExited, "the server exited during %s (%s)%s", what, res.ExitStatus, stderrHint(p))
	case p.gone.Load():
		res.fail(ErrProtocol, "the server closed its stdin or stdout during %s%s", what, stderrHint(p))
	default:
		res.fail(ErrProtocol, "%s failed: %v", what, err)
	}
}

// initialize connects the client (initialize, initialized) and records
// the server's identity; the server must declare the tools capability.
func (c *checker) initialize(start time.Time) bool {
	client := mcp.NewClient(&mcp.Implementation{Name: ClientName, Version: "1"}, nil)
	session, err := client.Connect(c.ctx, c.tap.transport(&mcp.IOTransport{Reader: c.p.stdout, Writer: c.p.stdin}),
		&mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		c.step("initialize", err)
		return false
	}
	c.session = session
	c.res.Timings.Initialize = time.Since(start)
	ir := session.InitializeResult()
	if ir.ServerInfo != nil {
		c.res.ServerName, c.res.ServerVersion = ir.ServerInfo.Name, ir.ServerInfo.Version
	}
	c.res.Protocol = ir.ProtocolVersion
	if ir.Capabilities == nil || ir.Capabilities.Tools == nil {
		c.res.fail(ErrProtocol, "the initialize result does not declare the tools capability")
		return false
	}
	return true
}

// listTools pages through tools/list (at most MaxListPages) and returns
// the tool definitions as sent.
func (c *checker) listTools() ([]json.RawMessage, bool) {
	listStart := time.Now()
	cursor := ""
	for page := 1; ; page++ {
		lr, err := c.session.ListTools(c.ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			c.step("tools/list", err)
			return nil, false
		}
		if lr.NextCursor == "" {
			break
		}
		if page >= MaxListPages {
			c.res.fail(ErrProtocol, "tools/list has more than %d pages (MaxListPages)", MaxListPages)
			return nil, false
		}
		cursor = lr.NextCursor
	}
	c.res.Timings.List = time.Since(listStart)
	var raws []json.RawMessage
	for _, page := range c.tap.get("tools/list") {
		var lr struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(page, &lr); err != nil {
			c.res.fail(ErrProtocol, "tools/list result does not decode: %v", err)
			return nil, false
		}
		raws = append(raws, lr.Tools...)
	}
	return raws, true
}

// checkTools validates the tool definitions and finds the tool to call
// (nil when none is asked for); false when the call cannot go ahead.
func (c *checker) checkTools(raws []json.RawMessage) (*Tool, bool) {
	t, res := c.t, c.res
	tools, problems := ValidateTools(raws)
	res.Problems = problems
	var called *Tool
	for i := range tools {
		res.Tools = append(res.Tools, tools[i].Name)
		if t.Call != "" && tools[i].Name == t.Call && called == nil {
			called = &tools[i]
		}
	}
	if len(problems) > 0 {
		res.fail(ErrInvalidTool, "%d problem(s) in the tool definitions, first: %s", len(problems), problems[0])
	}
	if t.RequireTools && len(tools) == 0 {
		res.fail(ErrInvalidTool, "the server lists no tools%s", stderrHint(c.p))
	}
	if t.Call == "" {
		return nil, true
	}
	res.Call = t.Call
	if called == nil {
		res.fail(ErrInvalidTool, "the server does not offer the tool %s", t.Call)
		return nil, false
	}
	return called, true
}

// callTool calls the tool with the target's arguments: a refusal
// (isError) fails the check, and the structured result as sent must match
// the tool's output schema.
func (c *checker) callTool(called *Tool) {
	t, res := c.t, c.res
	args := t.Arguments
	if args == nil {
		args = map[string]any{}
	}
	callStart := time.Now()
	cr, err := c.session.CallTool(c.ctx, &mcp.CallToolParams{Name: t.Call, Arguments: args})
	if err != nil {
		c.step("tools/call "+t.Call, err)
		return
	}
	res.Timings.Call = time.Since(callStart)
	res.CallText = resultText(cr)
	if cr.IsError {
		if strings.HasPrefix(res.CallText, t.Call+" ") { // the message names the tool already
			res.fail(ErrRefused, "%s", res.CallText)
		} else {
			res.fail(ErrRefused, "%s refused the call: %s", t.Call, orNone(res.CallText))
		}
		return
	}
	if called.Output == nil {
		return
	}
	// The structured result as sent (the SDK's decoded value would turn
	// integers into floats).
	var sent struct {
		Structured json.RawMessage `json:"structuredContent"`
	}
	if r := c.tap.get("tools/call"); len(r) > 0 {
		json.Unmarshal(r[len(r)-1], &sent)
	}
	msg := ""
	if len(sent.Structured) == 0 || string(sent.Structured) == "null" {
		msg = "the result has no structuredContent, but the tool declares an output schema"
	} else if err := ValidateValue(called.Output, sent.Structured); err != nil {
		msg = "structuredContent does not match the output schema: " + err.Error()
	}
	if msg != "" {
		pr := Problem{Tool: t.Call, Message: msg}
		res.Problems = append(res.Problems, pr)
		res.fail(ErrInvalidTool, "%s", pr)
	}
}

// resultText joins the text content of a call result, cut to MaxTextBytes.
func resultText(cr *mcp.CallToolResult) string {
	var parts []string
	for _, c := range cr.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return cut(strings.TrimSpace(strings.Join(parts, "\n")), MaxTextBytes)
}

// stderrHint quotes the last (up to three) non-empty lines of the
// server's stderr, if any.
func stderrHint(p *process) string {
	var lines []string
	for _, l := range strings.Split(p.stderr.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "; it wrote nothing on stderr"
	}
	lines = lines[max(0, len(lines)-3):]
	return "; its stderr ends: " + cut(strings.Join(lines, " | "), 300)
}

func orNone(s string) string {
	if s == "" {
		return "(no text)"
	}
	return s
}

// cut shortens s to at most n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
