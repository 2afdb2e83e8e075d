/**
 * MCP: the official filesystem server's tools in an AgentHarness. The server runs as a child process
 * (here from node_modules; elsewhere `command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", dir]`),
 * its tools become `fs__list_directory`, `fs__read_text_file`… and the scripted model calls two of them.
 * A server that fails to start is reported with its reason, and the example exits with code 1.
 *
 *   npx tsx examples/mcp-filesystem.ts [path/to/server-filesystem/dist/index.js]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentHarness, MemorySessionRepo } from "../src/index.js";
import { connectMcpServers } from "../src/mcp.js";
import { scriptedModel } from "../src/testing.js";

const folder = mkdtempSync(join(tmpdir(), "agentchart-mcp-example-"));
writeFileSync(join(folder, "todo.txt"), "write the docs\nship it\n");
const server =
  process.argv[2] ??
  fileURLToPath(
    new URL("../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url),
  );

const mcp = await connectMcpServers({
  mcpServers: { fs: { command: process.execPath, args: [server, folder] } },
});
try {
  for (const status of mcp.servers)
    console.log(`${status.name}: ${status.state}, ${status.toolNames.length} tools`);
  // A server that failed (not found, crashed on start, timed out) says why in the diagnostics.
  for (const diagnostic of mcp.diagnostics) console.error(`${diagnostic.server}: ${diagnostic.message}`);
  if (mcp.servers.some((status) => status.state === "failed")) {
    process.exitCode = 1;
  } else {
    await listAndRead();
  }
} finally {
  await mcp.close();
  rmSync(folder, { recursive: true, force: true });
}

async function listAndRead(): Promise<void> {
  const harness = new AgentHarness({
    session: await new MemorySessionRepo().create(),
    model: { id: "demo", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 },
    toolSources: [mcp],
    streamFn: scriptedModel([
      {
        toolCalls: [
          { name: "fs__list_directory", arguments: { path: folder } },
          { name: "fs__read_text_file", arguments: { path: join(folder, "todo.txt") } },
        ],
      },
      { text: "You have two things to do." },
    ]),
  });
  harness.events$.subscribe((event) => {
    if (event.type === "tool_execution_end") {
      const text = event.result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      console.log(`${event.toolName} → ${text.trim().replaceAll("\n", " | ")}`);
    }
  });
  const { reply } = await harness.prompt("What is in my folder, and what is left to do?");
  console.log(reply.content.map((block) => (block.type === "text" ? block.text : "")).join(""));
}
