package vaultmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/mcptools/mcpkit"
)

// ServerName is the implementation name `tv mcp serve` reports.
const ServerName = "tv-vault"

// Config configures a vault server.
type Config struct {
	// Engine runs every operation, as the logged-in user (or nobody).
	Engine *engine.Engine
	// Workspace (an id or unambiguous name) and Stage ("stages/NN-slug"
	// or "NN-slug") select scoped mode; both empty is unscoped mode. One
	// without the other is a usage error.
	Workspace string
	Stage     string
	// EvidencePath is the scope evidence file (see EvidencePath); "" records
	// no evidence.
	EvidencePath string
	// Version is reported in the initialize result.
	Version string
	// Now is the clock for captured_at, evidence times and the age of the
	// cached scope (time.Now when nil).
	Now func() time.Time
	// Log receives diagnostics (stderr); nil discards them.
	Log io.Writer
}

// Server is the `tv mcp serve` tool server.
type Server struct {
	cfg       Config
	eng       *engine.Engine
	ws        *Repository // the scoped workspace; nil when unscoped
	stage     string      // "stages/NN-slug" when scoped
	tools     []tool
	validator *mcpkit.Validator
	mcp       *mcp.Server
	ttl       time.Duration

	mu      sync.Mutex
	state   *ScopeState
	checked time.Time
	listed  map[string]bool // the tools the SDK server lists now

	// unbound is why the scoped workspace could not be resolved at start
	// (not logged in, not found, ambiguous); the server then serves with
	// no tools and explains it, and ws holds the id or name asked for.
	unbound error
}

// tool pairs a spec with the rank it needs on the stage (scoped tools)
// and its body, which returns the result's repository and data or a
// domain error.
type tool struct {
	mcpkit.Spec
	rank engine.Rank
	run  func(s *Server, ctx context.Context, raw json.RawMessage) (*Repository, any, error)
}

// unscopedTools and scopedTools are the two ordered tool lists; they feed
// the server, the tests, the schema snapshots and the README table. They
// are built on first use, not at init (every tv command pays for init).
// scopedTools is in icm.KnownTools() order.
var (
	unscopedTools = sync.OnceValue(func() []tool {
		return []tool{
			{whoamiSpec(), engine.RankNone, (*Server).whoami},
			{templateListSpec(), engine.RankNone, (*Server).templateList},
			{workspaceListSpec(), engine.RankNone, (*Server).workspaceList},
			{workspaceCheckoutSpec(), engine.RankNone, (*Server).workspaceCheckout},
		}
	})
	scopedTools = sync.OnceValue(func() []tool {
		return []tool{
			{fileInfoSpec(), engine.RankRead, (*Server).fileInfo},
			{fileFindSpec(), engine.RankRead, (*Server).fileFind},
			{fileReadSpec(), engine.RankRead, (*Server).fileRead},
			{walkTestSpec(), engine.RankRead, (*Server).walkTest},
			{commitSpec(), engine.RankWrite, (*Server).commit},
		}
	})
)

func specs(ts []tool) []mcpkit.Spec {
	out := make([]mcpkit.Spec, len(ts))
	for i, t := range ts {
		out[i] = t.Spec
	}
	return out
}

// UnscopedTools returns the specs of the unscoped mode's tools, in order.
func UnscopedTools() []mcpkit.Spec { return specs(unscopedTools()) }

// ScopedTools returns the specs of every tool a stage policy may declare,
// in order (the names of icm.KnownTools()).
func ScopedTools() []mcpkit.Spec { return specs(scopedTools()) }

// ToolRank returns the rank a scoped tool needs on the stage folder, and
// false for a name that is not a scoped tool.
func ToolRank(name string) (engine.Rank, bool) {
	for _, t := range scopedTools() {
		if t.Name == name {
			return t.rank, true
		}
	}
	return engine.RankNone, false
}

// MCPTool returns the MCP definition of a vault tool: mcptools'
// definition with the vault envelope {captured_at, repository, data} as
// its output schema.
func MCPTool(s mcpkit.Spec) *mcp.Tool { return s.MCPToolWithOutput(OutputSchema(s.Data)) }

// StageFolder normalises a --stage value to "stages/NN-slug". It accepts
// "stages/NN-slug" and "NN-slug" (a trailing slash is ignored); anything
// else is not a direct stage folder (ErrUsage).
func StageFolder(stage string) (string, error) {
	name := strings.TrimSuffix(stage, "/")
	name = strings.TrimPrefix(name, "stages/")
	if strings.Contains(name, "/") || !icm.IsStageName(name) {
		return "", fmt.Errorf("%w: --stage %q is not a direct stage folder: use stages/NN-slug (or NN-slug), for example stages/01-research", engine.ErrUsage, stage)
	}
	return "stages/" + name, nil
}

// New checks cfg and returns a server. In scoped mode it resolves the
// workspace once and resolves the scope a first time, recording evidence.
// A workspace that cannot be resolved (not logged in, unknown, invisible
// or ambiguous) is not an error: the server starts fail-closed, with no
// tools and instructions that say why and what to do, so the host shows
// the reason (a server is never bound to a workspace it cannot name; it
// must be restarted once the cause is fixed). Usage errors still fail.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("vaultmcp: no engine")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s := &Server{cfg: cfg, eng: cfg.Engine, tools: unscopedTools(), ttl: ScopeTTL}
	switch {
	case (cfg.Workspace == "") != (cfg.Stage == ""):
		return nil, fmt.Errorf("%w: --workspace and --stage are an all-or-nothing pair: give both for a stage's tools, or neither for discovery", engine.ErrUsage)
	case cfg.Workspace != "":
		stage, err := StageFolder(cfg.Stage)
		if err != nil {
			return nil, err
		}
		s.stage, s.tools = stage, scopedTools()
		info, err := cfg.Engine.ResolveWorkspace(ctx, cfg.Workspace)
		switch {
		case err == nil:
			s.ws = &Repository{ID: info.ID, Name: info.Name}
		case errors.Is(err, engine.ErrUsage):
			return nil, err
		default:
			s.ws, s.unbound = &Repository{ID: cfg.Workspace, Name: cfg.Workspace}, err
		}
	}
	v, err := mcpkit.NewValidator(specs(s.tools))
	if err != nil {
		return nil, err
	}
	s.validator = v
	s.mcp = s.newServer()
	if s.scoped() {
		st := s.Scope(ctx)
		fmt.Fprintf(cfg.Log, "tv mcp serve: %s %s: %s (%s), visible %v\n", s.ws.ID, s.stage, st.Result, st.Reason, st.Visible)
	}
	return s, nil
}

func (s *Server) scoped() bool { return s.ws != nil }

// MCPServer returns the server's SDK server, listing the mode's tools.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// newServer makes the SDK server of the mode's tools: sorted by name and,
// scoped, only the visible ones (syncTools), with listChanged.
func (s *Server) newServer() *mcp.Server {
	srv := mcpkit.NewServer(mcpkit.ServerOptions{Name: ServerName, Version: s.cfg.Version, Instructions: s.instructions(),
		ListChanged: s.scoped(), Log: s.cfg.Log})
	if !s.scoped() {
		for _, t := range s.tools {
			srv.AddTool(MCPTool(t.Spec), s.handler(t))
		}
		return srv
	}
	s.listed = map[string]bool{}
	srv.AddReceivingMiddleware(s.scopeCheck)
	return srv
}

// syncTools makes the SDK server list exactly the visible tools; the SDK
// announces a change with notifications/tools/list_changed. s.mu is held.
func (s *Server) syncTools(st *ScopeState) {
	var gone []string
	for _, t := range s.tools {
		switch vis := st.Allows(t.Name); {
		case vis && !s.listed[t.Name]:
			s.mcp.AddTool(MCPTool(t.Spec), s.handler(t))
			s.listed[t.Name] = true
		case !vis && s.listed[t.Name]:
			gone = append(gone, t.Name)
			delete(s.listed, t.Name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
}

// scopeCheck re-checks the scope (ScopeTTL) before every tools/list and
// tools/call, and answers a call of a scoped tool that is not visible now
// with an explanation rather than the SDK's "unknown tool".
func (s *Server) scopeCheck(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			s.Scope(ctx)
		case "tools/call":
			st := s.Scope(ctx)
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if _, scoped := ToolRank(r.Params.Name); scoped && !st.Allows(r.Params.Name) {
					return s.refuseHidden(r.Params.Name, st), nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

func (s *Server) refuseHidden(name string, st *ScopeState) *mcp.CallToolResult {
	return mcpkit.Failure("%s refused: it is not available in this scope now (stage %s of %s: %s, reason %s; visible: %s). Call tools/list for the tools you can use.",
		name, s.stage, s.ws.ID, st.Result, st.Reason, visibleText(st.Visible))
}

func (s *Server) instructions() string {
	if !s.scoped() {
		return "tv vault, discovery mode: vault_whoami (who you act as), vault_template_list, vault_workspace_list (workspaces you can read) and vault_workspace_checkout (writes a credential-free checkout of a workspace into an absolute output_dir). " +
			"For a stage's file and commit tools, the host starts `tv mcp serve --workspace <id> --stage stages/NN-slug`."
	}
	if s.unbound != nil {
		return fmt.Sprintf("tv vault, scoped to stage %s of workspace %q: NO TOOLS ARE AVAILABLE (fail-closed, reason %s): %v. %s Then restart this server (the host's MCP settings or /mcp).",
			s.stage, s.ws.Name, engineReason(s.unbound), s.unbound, unboundAdvice(s.unbound))
	}
	return fmt.Sprintf("tv vault, scoped to stage %s of workspace %s (%s). The tools listed are those the stage's CONTEXT.md policy declares and your access rank on the stage allows; "+
		"the set follows the vault (tools/list_changed), and a tool that is no longer listed is refused. Paths are workspace-relative slash paths such as %s/CONTEXT.md; "+
		"you may read any path of the workspace you have read access to (the contract's Inputs). Change files in a checkout, then vault_workspace_walk_test and vault_workspace_commit with a reason.",
		s.stage, s.ws.Name, s.ws.ID, s.stage)
}

// handler adapts a tool to the SDK server. In scoped mode it first
// checks the tool is visible now (refusing before anything else happens);
// then it validates the arguments against the input schema, runs the tool
// and turns a domain failure into an isError result.
func (s *Server) handler(t tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if s.scoped() {
			if st := s.Scope(ctx); !st.Allows(t.Name) {
				return s.refuseHidden(t.Name, st), nil
			}
		}
		raw := req.Params.Arguments
		if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
			raw = json.RawMessage("{}") // absent arguments
		}
		if err := s.validator.Validate(t.Name, raw); err != nil {
			return failure(t.Name, err), nil
		}
		repo, data, err := t.run(s, ctx, raw)
		if err != nil {
			return failure(t.Name, err), nil
		}
		res, err := success(s.cfg.Now(), repo, data)
		if err != nil {
			return failure(t.Name, err), nil
		}
		return res, nil
	}
}

func visibleText(v []string) string {
	if len(v) == 0 {
		return "none"
	}
	return strings.Join(v, ", ")
}

// Serve runs the server over stdio (in, out) until in is closed (a clean
// exit) or ctx ends; diagnostics go to logw. Input lines over
// MaxInputLineBytes are refused with a JSON-RPC error. Scoped, the scope
// is also re-checked while the client is idle (every ScopeTTL/4), so a
// change of the visible tools is announced within about ScopeTTL.
func (s *Server) Serve(ctx context.Context, in io.Reader, out, logw io.Writer) error {
	if s.scoped() {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go s.watchScope(ctx)
		return mcpkit.Serve(ctx, s.mcp, in, out, logw)
	}
	return mcpkit.Serve(ctx, s.mcp, in, out, logw)
}

// watchScope re-checks the scope every ScopeTTL/4 until ctx ends.
func (s *Server) watchScope(ctx context.Context) {
	period := s.ttl / 4
	if period <= 0 {
		period = ScopeTTL / 4
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			s.Scope(ctx)
		case <-ctx.Done():
			return
		}
	}
}

// decode decodes a tool's arguments strictly.
func decode(raw json.RawMessage, v any) error { return mcpkit.DecodeArgs(raw, v) }

// unboundAdvice says how to fix a workspace that could not be resolved.
func unboundAdvice(err error) string {
	switch engineReason(err) {
	case ReasonNotLoggedIn:
		return "Run `tv login --user NAME` as the user this server runs as."
	case ReasonNotFound:
		return "Check the workspace id or name with `tv workspace list` (and your access with `tv access list`), and fix --workspace."
	}
	return "Check --workspace with `tv workspace list` (use the id when a name is ambiguous)."
}
