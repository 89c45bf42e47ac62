package mcptools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// Dispatcher answers the MCP requests of a server whose only feature is
// a fixed set of tools. It replaces mcp-go's server package (whose import
// links a JSON Schema library that compiles its metaschemas at init, ~8 ms
// on every tv command) and answers byte for byte as mcp-go v1.2.1's
// MCPServer.HandleMessage answered for tv's configuration (tool
// capabilities and WithRecovery only), which the wire golden files
// (testdata/wire) hold:
//
//   - initialize: the client's protocol version when it is a known one
//     before 2026-07-28, 2025-03-26 when it sent none, else 2025-11-25
//     (mcp.NegotiateLegacyVersion); server info, the tools capability
//     (listChanged as configured) and the instructions. It marks the
//     session initialized: only initialized sessions get notifications.
//     Requests before initialize are answered as after it.
//   - ping, tools/list (tools sorted by name, then ListFilter; a cursor is
//     mcp-go's: base64 of a name, the page starts after it), tools/call
//     (an unknown tool is -32602 "tool 'x' not found: tool not found"; a
//     panic in a handler is -32603 "panic recovered in x tool handler:
//     …").
//   - notifications/cancelled cancels the named running request of the
//     session; other notifications are ignored.
//   - Protocol 2026-07-28, a request whose _meta names it (it must carry
//     client capabilities too): no handshake (initialize, ping,
//     logging/setLevel, tasks/list, tasks/result and resources/subscribe
//     are refused as removed), server/discover and subscriptions/listen
//     (the stream stays open until the request is cancelled when it
//     subscribed to something), and every result stamped with resultType,
//     the server info in _meta and, for lists, cache hints.
//   - resources, prompts, logging, tasks and completions: -32601 "<feature>
//     not supported"; any other method: -32601 "Method m not found".
type Dispatcher struct {
	info         mcp.Implementation
	instructions string
	listChanged  bool
	listFilter   func(context.Context, []mcp.Tool) []mcp.Tool
	tools        map[string]Tool
	names        []string // sorted

	mu       sync.Mutex
	sessions map[*Session]bool
}

// DispatcherConfig configures a Dispatcher.
type DispatcherConfig struct {
	// Name and Version are the server info of initialize results.
	Name, Version string
	// Instructions are sent in initialize and server/discover results.
	Instructions string
	// ListChanged is the tools capability's listChanged: the server sends
	// notifications/tools/list_changed (Notify).
	ListChanged bool
	// ListFilter, when set, gets the tools of every tools/list, sorted by
	// name, and returns those to list, in order (ListOrder). tools/call
	// does not consult it: a handler refuses what it must refuse.
	ListFilter func(context.Context, []mcp.Tool) []mcp.Tool
}

// Tool is a tool definition and its handler.
type Tool struct {
	Tool mcp.Tool
	// Handler answers a tools/call of the tool; a domain failure is an
	// isError result.
	Handler func(ctx context.Context, req mcp.CallToolRequest) *mcp.CallToolResult
}

// NewDispatcher returns a dispatcher serving tools.
func NewDispatcher(cfg DispatcherConfig, tools []Tool) *Dispatcher {
	d := &Dispatcher{
		info:         mcp.Implementation{Name: cfg.Name, Version: cfg.Version},
		instructions: cfg.Instructions,
		listChanged:  cfg.ListChanged,
		listFilter:   cfg.ListFilter,
		tools:        make(map[string]Tool, len(tools)),
		sessions:     map[*Session]bool{},
	}
	for _, t := range tools {
		if _, dup := d.tools[t.Tool.Name]; !dup {
			d.names = append(d.names, t.Tool.Name)
		}
		d.tools[t.Tool.Name] = t
	}
	slices.Sort(d.names)
	return d
}

// Session is one client connection of a Dispatcher: its notification
// queue, whether it is initialized, and its running requests.
type Session struct {
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	running       sync.Map // fmt.Sprint(request id) → context.CancelFunc
}

// notificationQueue is a session's notification queue length; a
// notification that finds it full is dropped (as mcp-go does).
const notificationQueue = 100

// NewSession registers a session; CloseSession unregisters it.
func (d *Dispatcher) NewSession() *Session {
	s := &Session{notifications: make(chan mcp.JSONRPCNotification, notificationQueue)}
	d.mu.Lock()
	d.sessions[s] = true
	d.mu.Unlock()
	return s
}

// CloseSession unregisters s.
func (d *Dispatcher) CloseSession(s *Session) {
	d.mu.Lock()
	delete(d.sessions, s)
	d.mu.Unlock()
}

// Notifications are the notifications queued for the session's client.
func (s *Session) Notifications() <-chan mcp.JSONRPCNotification { return s.notifications }

// Notify queues a notification without parameters (such as
// notifications/tools/list_changed) for every initialized session.
func (d *Dispatcher) Notify(method string) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: method}}
	d.mu.Lock()
	defer d.mu.Unlock()
	for s := range d.sessions {
		if s.initialized.Load() {
			s.send(n)
		}
	}
}

func (s *Session) send(n mcp.JSONRPCNotification) bool {
	select {
	case s.notifications <- n:
		return true
	default:
		return false
	}
}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	code    int
	message string
}

func errorResponse(id any, code int, message string) mcp.JSONRPCMessage {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(code, message, nil)}
}

// HandleMessage answers one JSON-RPC message of sess (nil: no session, so
// no notifications, cancellation or subscriptions/listen); it returns
// nil when there is nothing to answer.
func (d *Dispatcher) HandleMessage(ctx context.Context, sess *Session, msg []byte) mcp.JSONRPCMessage {
	var base struct {
		JSONRPC string        `json:"jsonrpc"`
		Method  mcp.MCPMethod `json:"method"`
		ID      any           `json:"id,omitempty"`
		Result  any           `json:"result,omitempty"`
	}
	if err := json.Unmarshal(msg, &base); err != nil {
		return errorResponse(nil, mcp.PARSE_ERROR, "Failed to parse message")
	}
	if base.JSONRPC != mcp.JSONRPC_VERSION {
		return errorResponse(base.ID, mcp.INVALID_REQUEST, "Invalid JSON-RPC version")
	}
	if base.ID == nil {
		var n mcp.JSONRPCNotification
		if err := json.Unmarshal(msg, &n); err != nil {
			return errorResponse(nil, mcp.PARSE_ERROR, "Failed to parse notification")
		}
		if n.Method == string(mcp.MethodNotificationCancelled) && sess != nil {
			if id, ok := n.Params.AdditionalFields["requestId"]; ok {
				if cancel, ok := sess.running.LoadAndDelete(fmt.Sprint(id)); ok {
					cancel.(context.CancelFunc)()
				}
			}
		}
		return nil
	}
	if base.Result != nil {
		return nil // an answer to a request of ours: there are none
	}

	// The protocol era: 2026-07-28 and later name the version (and the
	// client's capabilities) in every request's _meta.
	var meta struct {
		Params struct {
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}
	modern := false
	if json.Unmarshal(msg, &meta) == nil {
		m := meta.Params.Meta
		if v := m.ProtocolVersion(); mcp.IsModernProtocol(v) {
			if m.ClientCapabilities() == nil {
				return errorResponse(base.ID, mcp.INVALID_PARAMS, "missing or invalid _meta field "+mcp.MetaKeyClientCapabilities)
			}
			if !mcp.IsValidProtocolVersion(v) {
				resp := mcp.UnsupportedProtocolVersionError{Version: v, Supported: mcp.ValidProtocolVersions}.JSONRPCError()
				resp.ID = mcp.NewRequestId(base.ID)
				return resp
			}
			modern = true
			if sess != nil {
				sess.initialized.Store(true)
			}
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if sess != nil {
		key := fmt.Sprint(base.ID)
		sess.running.Store(key, cancel)
		defer sess.running.Delete(key)
	}
	result, rerr := d.dispatch(ctx, sess, base.Method, base.ID, modern, msg)
	if rerr != nil {
		return errorResponse(base.ID, rerr.code, rerr.message)
	}
	return mcp.NewJSONRPCResultResponse(mcp.NewRequestId(base.ID), result)
}

// Answers to methods of features tv's servers do not have.
var (
	removedIn2026 = "was removed in protocol version " + mcp.ProtocolVersion20260728
	needs2026     = "requires protocol version " + mcp.ProtocolVersion20260728 + " or later"
)

// dispatch answers a request; results are values, a tools/call result a
// pointer (as mcp-go sends them), stamped when modern.
func (d *Dispatcher) dispatch(ctx context.Context, sess *Session, method mcp.MCPMethod, id any, modern bool, msg []byte) (any, *rpcError) {
	notFound := func(msg string) (any, *rpcError) { return nil, &rpcError{mcp.METHOD_NOT_FOUND, msg} }
	removed := func() (any, *rpcError) { return notFound(fmt.Sprintf("%q %s", method, removedIn2026)) }
	unsupported := func(feature string) (any, *rpcError) { return notFound(feature + " not supported") }
	// parse decodes the request into req, as mcp-go did.
	parse := func(req any) *rpcError {
		if err := json.Unmarshal(msg, req); err != nil {
			return &rpcError{mcp.INVALID_REQUEST, fmt.Sprintf("unparsable %s request: %s", method, err)}
		}
		return nil
	}
	switch method {
	case mcp.MethodInitialize:
		if modern {
			return removed()
		}
		var req mcp.InitializeRequest
		if err := parse(&req); err != nil {
			return nil, err
		}
		if sess != nil {
			sess.initialized.Store(true)
		}
		return mcp.InitializeResult{
			ProtocolVersion: mcp.NegotiateLegacyVersion(req.Params.ProtocolVersion),
			ServerInfo:      d.info,
			Capabilities:    d.capabilities(),
			Instructions:    d.instructions,
		}, nil
	case mcp.MethodPing:
		if modern {
			return removed()
		}
		if err := parse(&mcp.PingRequest{}); err != nil {
			return nil, err
		}
		return mcp.EmptyResult{}, nil
	case mcp.MethodServerDiscover:
		if !modern {
			return notFound(fmt.Sprintf("%q %s", method, needs2026))
		}
		if err := parse(&mcp.DiscoverRequest{}); err != nil {
			return nil, err
		}
		res := mcp.DiscoverResult{SupportedVersions: mcp.ValidProtocolVersions, Capabilities: d.capabilities(), Instructions: d.instructions}
		d.stamp(&res, &res.CacheableResult)
		return res, nil
	case mcp.MethodSubscriptionsListen:
		if !modern {
			return notFound(fmt.Sprintf("%q %s", method, needs2026))
		}
		var req mcp.SubscriptionsListenRequest
		if err := parse(&req); err != nil {
			return nil, err
		}
		return d.listen(ctx, sess, id, req)
	case mcp.MethodSetLogLevel, mcp.MethodTasksList, mcp.MethodTasksResult, mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe:
		if modern {
			return removed()
		}
	case mcp.MethodToolsList:
		var req mcp.ListToolsRequest
		if err := parse(&req); err != nil {
			return nil, err
		}
		return d.list(ctx, req, modern)
	case mcp.MethodToolsCall:
		var req mcp.CallToolRequest
		if err := parse(&req); err != nil {
			return nil, err
		}
		return d.call(ctx, req, modern)
	}
	switch method {
	case mcp.MethodSetLogLevel:
		return unsupported("logging")
	case mcp.MethodResourcesList, mcp.MethodResourcesTemplatesList, mcp.MethodResourcesRead, mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe:
		return unsupported("resources")
	case mcp.MethodPromptsList, mcp.MethodPromptsGet:
		return unsupported("prompts")
	case mcp.MethodTasksGet, mcp.MethodTasksList, mcp.MethodTasksResult, mcp.MethodTasksCancel:
		return unsupported("tasks")
	case mcp.MethodCompletionComplete:
		return unsupported("completions")
	}
	return notFound(fmt.Sprintf("Method %s not found", method))
}

func (d *Dispatcher) capabilities() mcp.ServerCapabilities {
	var c mcp.ServerCapabilities
	c.Tools = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: d.listChanged}
	return c
}

// stamp adds what protocol 2026-07-28 requires of a result: resultType,
// the server info in _meta and, when cache is not nil, cache hints
// (immediately stale, private).
func (d *Dispatcher) stamp(r mcp.ResultMetadata, cache *mcp.CacheableResult) {
	if r.GetResultType() == "" {
		r.SetResultType(mcp.ResultTypeComplete)
	}
	if m := r.EnsureResultMeta(); m.ServerInfo() == nil {
		m.SetServerInfo(d.info)
	}
	if cache != nil {
		if _, set := cache.TTL(); !set {
			cache.SetCacheHints(0, mcp.CacheScopePrivate)
		}
	}
}

func (d *Dispatcher) list(ctx context.Context, req mcp.ListToolsRequest, modern bool) (any, *rpcError) {
	tools := make([]mcp.Tool, len(d.names))
	for i, name := range d.names {
		tools[i] = d.tools[name].Tool
	}
	if d.listFilter != nil {
		tools = d.listFilter(ctx, tools)
	}
	start := 0
	if cursor := req.Params.Cursor; cursor != "" {
		after, err := base64.StdEncoding.DecodeString(string(cursor))
		if err != nil {
			return nil, &rpcError{mcp.INVALID_PARAMS, err.Error()}
		}
		start = sort.Search(len(tools), func(i int) bool { return tools[i].Name > string(after) })
	}
	res := mcp.ListToolsResult{Tools: tools[start:]}
	if res.Tools == nil {
		res.Tools = []mcp.Tool{}
	}
	if modern {
		d.stamp(&res, &res.CacheableResult)
	}
	return res, nil
}

func (d *Dispatcher) call(ctx context.Context, req mcp.CallToolRequest, modern bool) (any, *rpcError) {
	name := req.Params.Name
	t, ok := d.tools[name]
	if !ok {
		return nil, &rpcError{mcp.INVALID_PARAMS, fmt.Sprintf("tool '%s' not found: tool not found", name)}
	}
	res, perr := func() (res *mcp.CallToolResult, perr any) {
		defer func() { perr = recover() }()
		return t.Handler(ctx, req), nil
	}()
	switch {
	case perr != nil:
		return nil, &rpcError{mcp.INTERNAL_ERROR, fmt.Sprintf("panic recovered in %s tool handler: %v", name, perr)}
	case res == nil:
		return nil, &rpcError{mcp.INTERNAL_ERROR, fmt.Sprintf("tool '%s' handler returned no result", name)}
	}
	if modern {
		d.stamp(res, nil)
	}
	return res, nil
}

// listen serves subscriptions/listen: it acknowledges the notifications
// the server can send of those asked for (only tools/list_changed, when
// ListChanged) and, when that is any, holds the request open until it is
// cancelled. Notifications of every kind reach the session meanwhile,
// as before the request.
func (d *Dispatcher) listen(ctx context.Context, sess *Session, id any, req mcp.SubscriptionsListenRequest) (any, *rpcError) {
	if sess == nil {
		return nil, &rpcError{mcp.INTERNAL_ERROR, "subscriptions/listen requires an active session"}
	}
	var allowed mcp.SubscriptionFilter
	allowed.ToolsListChanged = req.Params.Notifications.ToolsListChanged && d.listChanged
	ack := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: mcp.MethodNotificationSubscriptionsAcknowledged,
			Params: mcp.NotificationParams{
				Meta:             map[string]any{mcp.MetaKeySubscriptionID: id},
				AdditionalFields: map[string]any{"notifications": allowed},
			},
		},
	}
	if !sess.send(ack) {
		return nil, &rpcError{mcp.INTERNAL_ERROR, "sending subscriptions/acknowledged: notification channel queue is full - client may not be processing notifications fast enough"}
	}
	if !allowed.IsEmpty() {
		<-ctx.Done()
	}
	var res mcp.SubscriptionsListenResult
	res.EnsureResultMeta().SetSubscriptionID(id)
	d.stamp(&res, nil)
	return res, nil
}
