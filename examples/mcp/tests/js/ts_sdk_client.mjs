// The official TypeScript SDK (@modelcontextprotocol/sdk) as the client of
// mcp-server: `node ts_sdk_client.mjs stdio BINARY ROOT` or
// `node ts_sdk_client.mjs http URL`. Prints one JSON object: what the SDK saw.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

const [mode, target, root] = process.argv.slice(2);

const client = new Client(
  { name: "ts-sdk-test", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: {} } },
);
client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
  role: "assistant",
  content: { type: "text", text: `TS answers: ${request.params.messages[0].content.text}` },
  model: "ts-test-model",
  stopReason: "endTurn",
}));
client.setRequestHandler(ElicitRequestSchema, async () => ({
  action: "accept",
  content: { response: "from TypeScript" },
}));

const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args: ["--fixtures", "--root", root], stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target));

const text = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
const report = {};

await client.connect(transport);
report.server = client.getServerVersion();
report.protocolVersion = mode === "http" ? transport.protocolVersion : undefined;

const tools = await client.listTools();
report.tools = tools.tools.map((tool) => tool.name);

const added = await client.callTool({ name: "add", arguments: { a: 2, b: 3.5 } });
report.add = { text: text(added), structured: added.structuredContent };

const progress = [];
const slow = await client.callTool({ name: "slow", arguments: { seconds: 0.3, steps: 3 } }, undefined, {
  onprogress: (p) => progress.push([p.progress, p.total, p.message]),
});
report.slow = { text: text(slow), progress };

const failed = await client.callTool({ name: "fail", arguments: {} });
report.fail = { isError: failed.isError, text: text(failed) };

try {
  await client.callTool({ name: "add", arguments: { a: 1, b: "two" } });
  report.badArgument = { raised: false };
} catch (err) {
  report.badArgument = { raised: true, code: err instanceof McpError ? err.code : null, data: err.data };
}

const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "the capital of France?" } });
report.sampling = text(sampled);
const elicited = await client.callTool({ name: "test_elicitation", arguments: { message: "Who?" } });
report.elicitation = text(elicited);

const resources = await client.listResources();
report.resources = resources.resources.map((r) => r.uri);
const staticText = await client.readResource({ uri: "test://static-text" });
report.read = staticText.contents[0].text;
const prompt = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "x", arg2: "y" } });
report.prompt = prompt.messages[0].content.text;

await client.close();
console.log(JSON.stringify(report));
