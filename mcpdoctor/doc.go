// Package mcpdoctor checks a stdio MCP server the way a host would use it:
// it launches the server as a subprocess, negotiates MCP, lists and
// validates its tools, calls one, and reports timings and every problem.
// It backs `tv mcp doctor`; it knows nothing of tv's servers beyond what a
// Target names.
//
// # What a check does
//
// Check runs, under one timeout (Target.Timeout, default DefaultTimeout):
//
//  1. launch: the command starts with its own stdin/stdout pipes, in a
//     process group of its own; the end of its stderr is kept
//     (MaxStderrBytes) for the report;
//  2. initialize: the official MCP Go SDK client (go-sdk) negotiates the
//     protocol, offering ProtocolVersion; the server must declare the tools
//     capability;
//  3. tools/list, every page: each definition is validated as sent on the
//     wire (ValidateTools) — name pattern and uniqueness, description,
//     strict object input schema, object output schema, both validated
//     against their draft's metaschema and compiled by a real JSON Schema
//     compiler (package jsonschema), and every annotation hint
//     set explicitly;
//  4. tools/call of Target.Call: a result with isError is a refused call;
//     otherwise its structuredContent must match the tool's output schema.
//
// Timings record initialize (launch included), tools/list and the call.
//
// # Failures
//
// The first failure decides Result.Failure and Result.Err, which wraps one
// of the sentinel errors: the command did not start, the server exited
// early (with its exit status and the end of its stderr), a timeout, a
// protocol error, an invalid tool, a refused call. Later steps still run
// when they can, so one report shows every tool problem.
//
// # Termination
//
// Check returns only after the server is gone. On every path — success,
// failure, timeout, a cancelled context, a panic in between — it closes
// the server's stdin, waits up to CloseGrace for it to exit (not at all
// after a timeout), kills the server's whole process group with SIGKILL
// (also after a clean exit, so nothing the server started survives) and
// waits for the process. On systems without process groups only the server
// process is killed.
package mcpdoctor
