import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectMcpServers, type McpConnection } from "../../src/mcp.js";
import { resultText, runToolCalls } from "../support/mcp-support.js";
import { startHttpTestServer } from "../support/mcp-test-server.mjs";

let http: Awaited<ReturnType<typeof startHttpTestServer>>;
let mcp: McpConnection | undefined;
beforeEach(async () => {
  http = await startHttpTestServer();
});
afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
  await http.close();
});

describe("connectMcpServers over HTTP", () => {
  it("uses Streamable HTTP: calls, progress and list_changed work", async () => {
    mcp = await connectMcpServers({ mcpServers: { web: { url: `${http.url}/mcp` } } });
    expect(mcp.servers[0]).toMatchObject({ state: "connected", transport: "streamable-http" });
    const run = await runToolCalls(mcp.tools, [
      { name: "web__echo", arguments: { text: "over http" } },
      { name: "web__progress", arguments: { steps: 2 } },
    ]);
    expect(run.results.map(resultText)).toEqual(["over http", "done after 2 steps"]);
    expect(run.events.filter((event) => event.type === "tool_execution_update")).toHaveLength(2);

    const changed = new Promise<string[]>((resolve) =>
      mcp?.onToolsChanged((tools) => resolve(tools.map((tool) => tool.name))),
    );
    await runToolCalls(mcp.tools, [{ name: "web__add_tool", arguments: {} }]);
    expect(await changed).toContain("web__late");
  });

  it("falls back to the older SSE transport when Streamable HTTP is refused", async () => {
    mcp = await connectMcpServers({ mcpServers: { old: { url: `${http.url}/sse` } } });
    expect(mcp.servers[0]).toMatchObject({ state: "connected", transport: "sse" });
    const run = await runToolCalls(mcp.tools, [{ name: "old__add", arguments: { a: 1, b: 2 } }]);
    expect(run.results[0]?.details).toEqual({ server: "old", tool: "add", structuredContent: { sum: 3 } });
  });

  it("reports a server that cannot be reached, naming both transports tried", async () => {
    mcp = await connectMcpServers({ mcpServers: { gone: { url: `${http.url}/nothing-here` } } });
    expect(mcp.servers[0]?.state).toBe("failed");
    expect(mcp.tools).toEqual([]);
    expect(mcp.diagnostics[0]?.message).toMatch(
      /^MCP server "gone" failed to start: Streamable HTTP: .*; SSE: /,
    );
  });
});
