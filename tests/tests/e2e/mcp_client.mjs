// Drives the registry's MCP endpoint with the official TypeScript SDK (initialize
// handshake, streamable HTTP), which also checks each tool's structured answer against the
// tool's output schema. Prints what it saw as one JSON object. Environment: CAIRN_MCP_URL,
// CAIRN_TOKEN, CAIRN_PARAMS (JSON: query, skill, propose).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const params = JSON.parse(process.env.CAIRN_PARAMS);
const transport = new StreamableHTTPClientTransport(new URL(process.env.CAIRN_MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.CAIRN_TOKEN}` } },
});
const client = new Client({ name: "cairn-e2e-typescript", version: "1.0.0" });
await client.connect(transport);
const out = {
  protocol: transport.protocolVersion ?? null,
  session: transport.sessionId ?? null,
  server: client.getServerVersion(),
  instructions: client.getInstructions() ?? null,
};
out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, annotations: t.annotations ?? null }));
out.search = await client.callTool({ name: "search_skills", arguments: { query: params.query, limit: 5 } });
out.load = await client.callTool({ name: "load_skill", arguments: { name: params.skill } });
const uri = out.search.structuredContent.skills[0].uri;
out.resource = await client.readResource({ uri });
out.resources = (await client.listResources()).resources.map((r) => r.uri);
out.proposal = await client.callTool({ name: "propose_patch", arguments: params.propose });
out.patch = await client.callTool({ name: "get_patch", arguments: { id: out.proposal.structuredContent?.id ?? "none" } });
await client.close();
console.log(JSON.stringify(out));
