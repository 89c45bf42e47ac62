#!/usr/bin/env bash
# Benchmarks `tv mcp local` read_file and start-up against the reference
# Node filesystem MCP server, side by side in one run, with the same
# client for both: a lean stdio JSON-RPC client (bench/mcp/lean.go; judged)
# and the Go SDK client (bench/mcp/sdk.go; reported). Installs
# @modelcontextprotocol/server-filesystem from npm into a temporary
# directory (or $TV_BENCH_NODE_DIR, reused). Prints the tables and ratios;
# exits nonzero when a target is missed. See bench/mcp/README.md.
# Usage: bench/mcp/run.sh [-n 500] [-lines 100] [-sdk=false]
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v node >/dev/null || { echo "bench/mcp: node is required" >&2; exit 2; }
command -v npm >/dev/null || { echo "bench/mcp: npm is required" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tv-bench-mcp.XXXXXX")
trap 'rm -rf "$work"' EXIT
node_dir=${TV_BENCH_NODE_DIR:-$work/node}
mkdir -p "$node_dir"
if [ ! -f "$node_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" ]; then
	echo "installing @modelcontextprotocol/server-filesystem into $node_dir" >&2
	(cd "$node_dir" && npm install --silent --no-audit --no-fund @modelcontextprotocol/server-filesystem >/dev/null)
fi
echo "node server: $(cd "$node_dir" && npm ls --depth=0 2>/dev/null | grep server-filesystem || true)" >&2

repo=$(pwd)
. "$repo/bench/buildtv.sh"
install_tv "$work/tv" # static, as the README builds it; tv-full beside it
go build -o "$work/mcpbench" ./bench/mcp
"$work/mcpbench" -tv "$work/tv" -node "$node_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" "$@"
