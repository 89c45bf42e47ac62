// Command fakeserver is a tiny stdio MCP server for the doctor's tests. It
// speaks newline-delimited JSON-RPC by hand, so it can misbehave in ways a
// real MCP library would not allow. FAKEMCP_MODE selects the behaviour:
//
//	ok              valid tools vault_whoami and workspace_list; calls succeed
//	exit            print "fake: boom" on stderr and exit 3 at once
//	exit-after-init answer initialize, then exit 4 on the next request
//	close-stdin     close stdin at once (the client's first write breaks),
//	                then exit 5 after 200 ms
//	hang            start a grandchild (sleep) and never answer; with
//	                FAKEMCP_PIDFILE, write "PID CHILDPID" there first
//	linger          like ok, but keep running after stdin closes
//	garbage         answer initialize with a line that is not JSON
//	bad-schema      an input schema that is not a valid JSON Schema
//	bad-output-schema an output schema that is not a valid JSON Schema
//	bad-name        a tool name with a space
//	dup-name        two tools with the same name
//	open-input      an input schema without additionalProperties false
//	no-annotations  a tool without annotations
//	partial-annotations a tool missing readOnlyHint
//	refuse          calls return isError "not logged in"
//	bad-output      calls return structured content that breaks the output schema
//	no-structured   calls return no structured content
//	rpc-error       tools/call answers a JSON-RPC error
//	paged           tools/list in two pages (nextCursor)
//	no-tools        tools/list is empty
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"
)

var mode = os.Getenv("FAKEMCP_MODE")

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func main() {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fake: boom")
		os.Exit(3)
	case "close-stdin":
		os.Stdin.Close()
		fmt.Fprintln(os.Stderr, "fake: closed stdin")
		time.Sleep(200 * time.Millisecond)
		os.Exit(5)
	case "hang":
		child := exec.Command("sleep", "1000")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if f := os.Getenv("FAKEMCP_PIDFILE"); f != "" {
			os.WriteFile(f, []byte(fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)), 0o644)
		}
		fmt.Fprintln(os.Stderr, "fake: hanging")
		time.Sleep(time.Hour)
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	initialized := false
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "fake: bad input:", err)
			continue
		}
		if len(req.ID) == 0 { // a notification
			continue
		}
		if initialized && mode == "exit-after-init" {
			fmt.Fprintln(os.Stderr, "fake: leaving after initialize")
			os.Exit(4)
		}
		switch req.Method {
		case "initialize":
			if mode == "garbage" {
				fmt.Println("this is not JSON-RPC")
				continue
			}
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(req.Params, &p)
			reply(req.ID, map[string]any{
				"protocolVersion": p.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "fake", "version": "0.0.1"},
			})
			initialized = true
		case "ping":
			reply(req.ID, map[string]any{})
		case "tools/list":
			var p struct {
				Cursor string `json:"cursor"`
			}
			json.Unmarshal(req.Params, &p)
			tools := toolList()
			switch {
			case mode == "paged" && p.Cursor == "":
				reply(req.ID, map[string]any{"tools": tools[:1], "nextCursor": "page2"})
			case mode == "paged":
				reply(req.ID, map[string]any{"tools": tools[1:]})
			default:
				reply(req.ID, map[string]any{"tools": tools})
			}
		case "tools/call":
			call(req)
		default:
			replyError(req.ID, -32601, "method not found: "+req.Method)
		}
	}
	if mode == "linger" {
		time.Sleep(time.Hour)
	}
}

func call(req request) {
	var p struct {
		Name string `json:"name"`
	}
	json.Unmarshal(req.Params, &p)
	switch mode {
	case "refuse":
		reply(req.ID, map[string]any{
			"isError": true,
			"content": []any{map[string]any{"type": "text", "text": p.Name + " refused the call: not logged in"}},
		})
		return
	case "rpc-error":
		replyError(req.ID, -32603, "internal error in "+p.Name)
		return
	}
	structured := map[string]any{"user": "alice"}
	if mode == "bad-output" {
		structured = map[string]any{"user": 42}
	}
	res := map[string]any{
		"content": []any{map[string]any{"type": "text", "text": `{"user":"alice"}`}},
	}
	if mode != "no-structured" {
		res["structuredContent"] = structured
	}
	reply(req.ID, res)
}

func annotations() map[string]any {
	return map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
}

func tool(name string) map[string]any {
	return map[string]any{
		"name":        name,
		"description": "fake " + name,
		"inputSchema": map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"n": map[string]any{"type": "integer", "minimum": 0}},
			"additionalProperties": false,
		},
		"outputSchema": map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"user": map[string]any{"type": "string"}},
			"required":             []any{"user"},
			"additionalProperties": false,
		},
		"annotations": annotations(),
	}
}

func toolList() []any {
	a, b := tool("vault_whoami"), tool("workspace_list")
	switch mode {
	case "no-tools":
		return []any{}
	case "bad-schema":
		b["inputSchema"] = map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"n": map[string]any{"type": "integer", "minimum": "zero"}},
			"additionalProperties": false,
		}
	case "bad-output-schema":
		b["outputSchema"] = map[string]any{"type": "object", "required": "user"}
	case "bad-name":
		b["name"] = "workspace list"
	case "dup-name":
		b["name"] = "vault_whoami"
	case "open-input":
		delete(b["inputSchema"].(map[string]any), "additionalProperties")
	case "no-annotations":
		delete(b, "annotations")
	case "partial-annotations":
		ann := annotations()
		delete(ann, "readOnlyHint")
		b["annotations"] = ann
	}
	return []any{a, b}
}

func reply(id json.RawMessage, result any) {
	write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func replyError(id json.RawMessage, code int, msg string) {
	write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}
