package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// ServerName is the implementation name `tv mcp local` reports.
const ServerName = "tv-local"

// Config configures a local server.
type Config struct {
	// LaunchDir is the launch workspace's root (the working directory or
	// --root); it is made absolute.
	LaunchDir string
	// RequireBranch, when set, is a path.Match glob the selected
	// workspace's current branch must match for write_file, edit_tool and
	// execute_bash.
	RequireBranch string
	// Getenv looks up TV_WORKSPACE_PATHS, XDG_STATE_HOME and HOME.
	Getenv func(string) string
	// Version is reported in the initialize result.
	Version string
	// Now is the clock for captured_at (time.Now when nil).
	Now func() time.Time
}

// Local is the `tv mcp local` tool server.
type Local struct {
	cfg       Config
	launch    string
	validator *Validator
	root      atomic.Pointer[cachedRoot] // the launch workspace for read_file (openRead)
}

// New checks cfg and returns a server. The launch directory must exist;
// the branch glob must be valid.
func New(cfg Config) (*Local, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	abs, err := filepath.Abs(cfg.LaunchDir)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("launch directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("launch directory %s is not a directory", abs)
	}
	if cfg.RequireBranch != "" {
		if _, err := path.Match(cfg.RequireBranch, ""); err != nil {
			return nil, fmt.Errorf("--require-branch %q: %w", cfg.RequireBranch, err)
		}
	}
	v, err := NewValidator(Tools())
	if err != nil {
		return nil, err
	}
	v.plain[readFileSpec.Name] = func(raw []byte) bool { _, ok := plainReadFileArgs(raw); return ok }
	return &Local{cfg: cfg, launch: abs, validator: v}, nil
}

// LaunchDir returns the absolute launch directory.
func (l *Local) LaunchDir() string { return l.launch }

// localTool pairs a spec with its handler.
type localTool struct {
	Spec
	run func(l *Local, ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error)
}

// localTools is the one ordered tool list: it feeds the server, the
// tests, the schema snapshots and the README table.
var localTools = []localTool{
	{workspaceListSpec, (*Local).workspaceList},
	{workspaceInfoSpec, (*Local).workspaceInfo},
	{readFileSpec, (*Local).readFile},
	{listDirectorySpec, (*Local).listDirectory},
	{grepSpec, (*Local).grep},
	{writeFileSpec, (*Local).writeFile},
	{editToolSpec, (*Local).editTool},
	{executeBashSpec, (*Local).executeBash},
}

// Tools returns the local server's tool specs, in list order.
func Tools() []Spec {
	out := make([]Spec, len(localTools))
	for i, t := range localTools {
		out[i] = t.Spec
	}
	return out
}

// Dispatcher returns a dispatcher of every tool (see Bind), listed in
// list order.
func (l *Local) Dispatcher() *Dispatcher {
	specs := Tools()
	tools := Bind(l.validator, specs, func(sp Spec) RunFunc {
		for _, t := range localTools {
			if t.Name == sp.Name {
				return l.runFunc(t)
			}
		}
		panic("mcptools: no handler for " + sp.Name)
	})
	return NewDispatcher(DispatcherConfig{Name: ServerName, Version: l.cfg.Version, Instructions: instructions, ListFilter: ListOrder(specs)}, tools)
}

// runFunc binds t's handler to l.
func (l *Local) runFunc(t localTool) RunFunc {
	return func(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) { return t.run(l, ctx, raw) }
}

// RunFunc is a tool body: decode the raw arguments (DecodeArgs), do the
// work and return a result (Success), or return an error for a domain
// failure, which Bind turns into an isError result.
type RunFunc func(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error)

// Bind returns specs as Dispatcher tools. Each call's arguments are first
// validated against the spec's input schema by v (server-side; a refusal
// names the offending member), then passed to the spec's RunFunc; an
// error it returns becomes an isError result "<tool> failed: <error>".
func Bind(v *Validator, specs []Spec, run func(Spec) RunFunc) []Tool {
	tools := make([]Tool, len(specs))
	for i, sp := range specs {
		tools[i] = Tool{Tool: sp.MCPTool(), Handler: handler(v, sp.Name, run(sp))}
	}
	return tools
}

func handler(v *Validator, name string, run RunFunc) func(context.Context, mcp.CallToolRequest) *mcp.CallToolResult {
	return func(ctx context.Context, req mcp.CallToolRequest) *mcp.CallToolResult {
		return callTool(ctx, v, name, run, RawArguments(req))
	}
}

// DirectHandler is the DirectTool (StdioOptions.Direct) equivalent of the
// handler Bind makes for run.
func DirectHandler(v *Validator, name string, run RunFunc) DirectTool {
	return func(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
		if len(raw) == 0 {
			raw = json.RawMessage("{}") // as RawArguments
		}
		return callTool(ctx, v, name, run, raw)
	}
}

// callTool validates raw, runs the tool and turns an error into an
// isError result.
func callTool(ctx context.Context, v *Validator, name string, run RunFunc, raw json.RawMessage) *mcp.CallToolResult {
	if err := v.Validate(name, raw); err != nil {
		return Failure("%s refused the call: %v", name, err)
	}
	res, err := run(ctx, raw)
	if err != nil {
		return Failure("%s failed: %v", name, err)
	}
	return res
}

// ListOrder returns a DispatcherConfig.ListFilter that orders tools/list
// like specs (the Dispatcher itself sorts by name).
func ListOrder(specs []Spec) func(context.Context, []mcp.Tool) []mcp.Tool {
	rank := make(map[string]int, len(specs))
	for i, s := range specs {
		rank[s.Name] = i
	}
	return func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
		out := slices.Clone(tools)
		slices.SortStableFunc(out, func(a, b mcp.Tool) int { return rank[a.Name] - rank[b.Name] })
		return out
	}
}

const instructions = `Local workspace tools. Workspaces: "launch" (the directory the server was started in), "worktree:/abs/path" (other git worktrees of its repository) and "checkout:/abs/path" (mounted tv checkouts); workspace_list shows them now, and every tool takes an optional workspace (default launch). Paths are relative to the workspace root; absolute paths, "..", and symlinks are refused. Read a workspace's AGENTS.md guidance with workspace_info before changing it.`

// Serve runs the server over stdio (in, out) until in is closed or ctx
// ends; diagnostics go to logw.
func (l *Local) Serve(ctx context.Context, in io.Reader, out, logw io.Writer) error {
	err := ServeStdioWith(ctx, l.Dispatcher(), in, out, logw, StdioOptions{MaxLine: MaxInputLineBytes, Direct: l.directTools()})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// directTools are the tools served inline (read_file), as DirectTools.
func (l *Local) directTools() map[string]DirectTool {
	direct := map[string]DirectTool{}
	for _, t := range localTools {
		if inlineTools[t.Name] {
			direct[t.Name] = DirectHandler(l.validator, t.Name, l.runFunc(t))
		}
	}
	return direct
}

// success wraps data for workspace w.
func (l *Local) success(w workspace, data any, text string) (*mcp.CallToolResult, error) {
	return Success(l.cfg.Now(), w.WorkspaceRef, data, text)
}

// successTexts is success with several text blocks (SuccessTexts).
func (l *Local) successTexts(w workspace, data any, texts ...string) (*mcp.CallToolResult, error) {
	return SuccessTexts(l.cfg.Now(), w.WorkspaceRef, data, texts...)
}
