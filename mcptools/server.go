package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/thalix/tv/mcptools/mcpkit"
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
	validator *mcpkit.Validator
	root      atomic.Pointer[cachedRoot] // the launch workspace for read_file (openRead)
	created   sync.Map                   // worktree path → branch, made by worktree_create
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
	v, err := mcpkit.NewValidator(Tools())
	if err != nil {
		return nil, err
	}
	return &Local{cfg: cfg, launch: abs, validator: v}, nil
}

// LaunchDir returns the absolute launch directory.
func (l *Local) LaunchDir() string { return l.launch }

// localTool pairs a spec with its handler.
type localTool struct {
	mcpkit.Spec
	run func(l *Local, ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error)
}

// localTools is the one ordered tool list: it feeds the server, the
// tests, the schema snapshots and the README table. It and the specs are
// built on first use, not at init: every tv command pays for package
// init (internal/tvcmd's TestStartupInitCost, which checks tv-full too).
var localTools = sync.OnceValue(func() []localTool {
	return []localTool{
		{workspaceListSpec(), (*Local).workspaceList},
		{workspaceInfoSpec(), (*Local).workspaceInfo},
		{readFileSpec(), (*Local).readFile},
		{listDirectorySpec(), (*Local).listDirectory},
		{grepSpec(), (*Local).grep},
		{writeFileSpec(), (*Local).writeFile},
		{editToolSpec(), (*Local).editTool},
		{executeBashSpec(), (*Local).executeBash},
		{worktreeCreateSpec(), (*Local).worktreeCreate},
		{worktreeRemoveSpec(), (*Local).worktreeRemove},
	}
})

// Tools returns the local server's tool specs, in list order.
func Tools() []mcpkit.Spec {
	tools := localTools()
	out := make([]mcpkit.Spec, len(tools))
	for i, t := range tools {
		out[i] = t.Spec
	}
	return out
}

// MCPServer returns the SDK server of every tool, listed in list order.
func (l *Local) MCPServer() *mcp.Server {
	srv := mcpkit.NewServer(mcpkit.ServerOptions{Name: ServerName, Version: l.cfg.Version, Instructions: instructions, Order: names(Tools())})
	for _, t := range localTools() {
		srv.AddTool(t.MCPTool(), Handler(l.validator, t.Name, l.runFunc(t)))
	}
	return srv
}

// runFunc binds t's handler to l.
func (l *Local) runFunc(t localTool) RunFunc {
	return func(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) { return t.run(l, ctx, raw) }
}

// RunFunc is a tool body: decode the raw arguments (DecodeArgs), do the
// work and return a result (Success), or return an error for a domain
// failure, which Handler turns into an isError result.
type RunFunc func(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error)

// Handler returns the SDK tool handler of a tool: the call's arguments
// are first validated against the tool's input schema by v (server-side;
// a refusal names the offending member), then passed to run; an error it
// returns becomes an isError result "<tool> failed: <error>".
func Handler(v *mcpkit.Validator, name string, run RunFunc) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := req.Params.Arguments
		if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
			raw = json.RawMessage("{}") // absent arguments
		}
		if err := v.Validate(name, raw); err != nil {
			return mcpkit.Failure("%s refused the call: %v", name, err), nil
		}
		res, err := run(ctx, raw)
		if err != nil {
			return mcpkit.Failure("%s failed: %v", name, err), nil
		}
		return res, nil
	}
}

const instructions = `Local workspace tools. Workspaces: "launch" (the directory the server was started in), "worktree:/abs/path" (other git worktrees of its repository) and "checkout:/abs/path" (mounted tv checkouts); workspace_list shows them now, and every tool takes an optional workspace (default launch). Paths are relative to the workspace root; absolute paths, "..", and symlinks are refused. Read a workspace's AGENTS.md guidance with workspace_info before changing it. With a branch gate (--require-branch), worktree_create makes a new worktree on a matching branch to work in.`

// Serve runs the server over stdio (in, out) until in is closed or ctx
// ends; diagnostics go to logw.
func (l *Local) Serve(ctx context.Context, in io.Reader, out, logw io.Writer) error {
	return mcpkit.Serve(ctx, l.MCPServer(), in, out, logw)
}

// success wraps data for workspace w.
func (l *Local) success(w workspace, data any) (*mcp.CallToolResult, error) {
	return mcpkit.Success(l.cfg.Now(), w.WorkspaceRef, data)
}

// names returns the specs' names, in order.
func names(specs []mcpkit.Spec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}
