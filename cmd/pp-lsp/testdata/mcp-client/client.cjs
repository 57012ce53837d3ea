// An independent MCP client for TestMCPWithTheTypeScriptSDK: the official
// TypeScript SDK spawns `pp-lsp mcp` as Claude Code or Codex would, makes
// the calls an agent makes, and prints what it got as one JSON object. It
// asserts nothing itself: the Go test asserts on its output and on the
// files, the plans and the journal.
//
// argv[2] is JSON: {"command", "args", "env", "calls": [{"key", "name", "arguments"}]}.
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

async function main() {
  const spec = JSON.parse(process.argv[2]);
  const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: spec.env, stderr: 'inherit' });
  const client = new Client({ name: 'pp-lsp-e2e', version: '1.0.0' });
  await client.connect(transport);
  const out = { server: client.getServerVersion(), instructions: client.getInstructions() };
  const listed = await client.listTools();
  out.tools = listed.tools.map((t) => ({ name: t.name, description: t.description }));
  out.calls = {};
  out.progress = 0;
  for (const c of spec.calls) {
    try {
      // callTool validates structuredContent against the tool's outputSchema.
      const res = await client.callTool({ name: c.name, arguments: c.arguments }, undefined, {
        onprogress: () => { out.progress++; },
        timeout: 120000,
      });
      out.calls[c.key] = res;
    } catch (e) {
      out.calls[c.key] = { thrown: String(e && e.message ? e.message : e) };
    }
  }
  await client.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write('mcp client: ' + (e && e.stack ? e.stack : String(e)) + '\n');
  process.exit(1);
});
