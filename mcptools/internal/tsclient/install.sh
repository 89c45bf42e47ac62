#!/usr/bin/env bash
# Installs the Node clients the MCP tests drive tv's servers with: the
# TypeScript SDK (@modelcontextprotocol/sdk, the client of Claude Code and
# the Inspector) and the Inspector's CLI (@modelcontextprotocol/inspector,
# for --strict). Idempotent: skips what is installed. The directory is
# $TV_NODE_DIR, default ${XDG_CACHE_HOME:-$HOME/.cache}/tv-test-node; it
# prints the directory. Used by internal/tvcmd's tests and .ci/run.
set -euo pipefail
command -v node >/dev/null || { echo "tsclient: node is not installed" >&2; exit 3; }
command -v npm >/dev/null || { echo "tsclient: npm is not installed" >&2; exit 3; }
dir=${TV_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tv-test-node}
mkdir -p "$dir"
sdk=@modelcontextprotocol/sdk@1.32.2
inspector=@modelcontextprotocol/inspector@2.12.0
if [ ! -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ] || [ ! -x "$dir/node_modules/.bin/mcp-inspector" ]; then
	[ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
	(cd "$dir" && npm install --silent --no-audit --no-fund "$sdk" "$inspector" >&2)
fi
echo "$dir"
