// A TypeScript SDK client (the one Claude Code and the Inspector use) for
// internal/tvcmd's tests: it starts the server command given after "--" over stdio,
// runs one scenario and prints one JSON line with what it saw. Run by
// internal/tvcmd's tests with NODE_PATH set to install.sh's node_modules.
//
//   node client.mjs <scenario> -- <command> [args...]
//
// Scenarios:
//   oversize  write_file with content over the 1 MiB line limit: the error
//             the client gets (code, message) and how it ended.
//   tools     tools/list, then a call of each name in TOOLS_CALLS (JSON
//             {name: arguments}): the client validates structured content
//             against each output schema.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [scenario, sep, command, ...args] = process.argv.slice(2);
if (sep !== "--" || !command) {
  console.error("usage: node client.mjs <scenario> -- <command> [args...]");
  process.exit(2);
}
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "tv-ts-test", version: "1" });
await client.connect(transport);
const out = { protocolVersion: transport._protocolVersion ?? null };
try {
  if (scenario === "oversize") {
    const started = Date.now();
    try {
      await client.callTool({ name: "write_file", arguments: { path: "big.txt", content: "x".repeat(1 << 20) } }, undefined, { timeout: 30000 });
      out.result = "answered";
    } catch (e) {
      out.code = e.code ?? null;
      out.message = String(e.message);
    }
    out.ms = Date.now() - started;
    out.after = (await client.ping()) ? "ping ok" : "ping failed";
  } else if (scenario === "tools") {
    const list = await client.listTools();
    out.tools = list.tools.map((t) => t.name);
    out.calls = {};
    for (const [name, a] of Object.entries(JSON.parse(process.env.TOOLS_CALLS || "{}"))) {
      try {
        const r = await client.callTool({ name, arguments: a });
        out.calls[name] = { isError: !!r.isError, structured: r.structuredContent !== undefined, text: r.content?.[0]?.text ?? "" };
      } catch (e) {
        out.calls[name] = { error: String(e.message), code: e.code ?? null };
      }
    }
  } else {
    throw new Error("unknown scenario " + scenario);
  }
} finally {
  await client.close();
}
console.log(JSON.stringify(out));
