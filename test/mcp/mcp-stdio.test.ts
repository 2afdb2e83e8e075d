import { afterEach, describe, expect, it } from "vitest";
import { connectMcpServers, isMcpClientError, McpClientError, type McpConnection } from "../../src/mcp.js";
import type { AgentTool } from "../../src/types/tool.js";
import { deferred } from "../support/loop-harness.js";
import { isAlive, resultText, runToolCalls, testServerEntry } from "../support/mcp-support.js";

let open: McpConnection[] = [];
async function connect(...args: Parameters<typeof connectMcpServers>): Promise<McpConnection> {
  const connection = await connectMcpServers(...args);
  open.push(connection);
  return connection;
}
afterEach(async () => {
  await Promise.all(open.map((connection) => connection.close()));
  open = [];
});

const ctx = () => ({
  toolCallId: "c1",
  idempotencyKey: "agent:c1",
  signal: new AbortController().signal,
  update: () => {},
  context: undefined,
});
function tool(connection: McpConnection, name: string): AgentTool {
  const found = connection.tools.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name} in ${connection.tools.map((t) => t.name).join(", ")}`);
  return found;
}
async function pidOf(connection: McpConnection): Promise<number> {
  const [block] = (await tool(connection, "t__pid").execute({}, ctx())).content;
  return Number(block?.type === "text" ? block.text : Number.NaN);
}

describe("connectMcpServers over stdio", () => {
  it("lists the server's tools as AgentTools named <server>__<tool> with the server's schema", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry() } });
    expect(mcp.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["t__echo", "t__add", "t__image", "t__fail", "t__progress", "t__pid"]),
    );
    expect(tool(mcp, "t__add").jsonSchema).toEqual({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(tool(mcp, "t__add").description).toBe("Adds two numbers");
    expect(mcp.servers).toEqual([
      expect.objectContaining({ name: "t", state: "connected", transport: "stdio", restarts: 0 }),
    ]);
    expect(mcp.diagnostics).toEqual([]);
  });

  it("sanitises names, reports collisions and leaves out a tool whose schema cannot be compiled", async () => {
    const mcp = await connect({
      mcpServers: { "my server": testServerEntry("--collide", "--invalid-schema") },
    });
    const names = mcp.tools.map((t) => t.name);
    expect(names).toContain("my_server__do_it");
    expect(names).toContain("my_server__do_it_2");
    expect(names).not.toContain("my_server__broken");
    expect(mcp.diagnostics).toEqual([
      expect.objectContaining({
        server: "my server",
        tool: "broken",
        message: expect.stringContaining("left out"),
      }),
      expect.objectContaining({
        server: "my server",
        tool: "do_it",
        message: 'named "my_server__do_it_2": "my_server__do_it" is taken by another tool',
      }),
    ]);
    const first = await runToolCalls(mcp.tools, [
      { name: "my_server__do_it", arguments: {} },
      { name: "my_server__do_it_2", arguments: {} },
    ]);
    expect(first.results.map(resultText)).toEqual(["do.it", "do_it"]);
  });

  it("leaves out a tool listed with a non-object inputSchema or without a name, naming it; the server's other tools stay usable", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry("--unusable-tools") } });
    expect(mcp.servers[0]).toMatchObject({ name: "t", state: "connected" });
    const names = mcp.tools.map((t) => t.name);
    expect(names).toContain("t__echo");
    expect(names).not.toContain("t__scalar_schema");
    expect(mcp.servers[0]?.toolNames).toEqual(names);
    expect(mcp.diagnostics).toEqual([
      {
        server: "t",
        tool: "scalar_schema",
        message: "left out: its definition is not usable (inputSchema: expected an object, got a string)",
      },
      {
        server: "t",
        tool: "tools/list entry 15",
        message: "left out: its definition is not usable (name: expected a string, got nothing)",
      },
    ]);
    const run = await runToolCalls(mcp.tools, [{ name: "t__echo", arguments: { text: "still here" } }]);
    expect(run.results.map(resultText)).toEqual(["still here"]);
  });

  it("gives a JSON-RPC error of the server with its code once, never the prefix twice", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry() } });
    const run = await runToolCalls(mcp.tools, [{ name: "t__reject", arguments: {} }]);
    expect(run.results[0]?.isError).toBe(true);
    expect(resultText(run.results[0])).toBe("MCP error -32602: the value is out of range");
  });

  it("maps text, structuredContent, images and resources; isError becomes an error result", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry() } });
    const run = await runToolCalls(mcp.tools, [
      { name: "t__add", arguments: { a: 2, b: 40 } },
      { name: "t__image", arguments: {} },
      { name: "t__resources", arguments: {} },
      { name: "t__fail", arguments: {} },
    ]);
    const [add, image, resources, fail] = run.results;
    expect(add?.isError).toBe(false);
    expect(add?.content).toEqual([{ type: "text", text: "42" }]);
    expect(add?.details).toEqual({ server: "t", tool: "add", structuredContent: { sum: 42 } });
    expect(image?.content).toEqual([
      { type: "text", text: "a tiny image" },
      { type: "image", data: expect.stringMatching(/^iVBORw0KGgo/), mimeType: "image/png" },
    ]);
    expect(resultText(resources)).toBe(
      "[resource test://notes/1 (text/plain)]\nnote one\n[resource link test://notes/2] note two: the second note",
    );
    expect(fail?.isError).toBe(true);
    expect(resultText(fail)).toBe("the tool failed on purpose");
  });

  it("checks arguments against the server's JSON Schema before calling it", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry() } });
    const run = await runToolCalls(mcp.tools, [{ name: "t__add", arguments: { a: 1 } }]);
    expect(run.results[0]?.isError).toBe(true);
    expect(resultText(run.results[0])).toContain("  - b: must have required property 'b'");
  });

  it("turns progress notifications into tool_execution_update events", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry() } });
    const run = await runToolCalls(mcp.tools, [{ name: "t__progress", arguments: { steps: 3 } }]);
    const updates = run.events.filter((event) => event.type === "tool_execution_update");
    expect(updates.map((event) => (event as { partialResult: unknown }).partialResult)).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
    expect(resultText(run.results[0])).toBe("done after 3 steps");
  });

  it("cancels the MCP request when the run is aborted; the call ends with an error result", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry() } });
    const run = await runToolCalls(
      mcp.tools,
      [{ name: "t__wait_for_cancel", arguments: {} }],
      (event, agent) => {
        if (event.type === "tool_execution_update") agent.abort();
      },
    );
    expect(run.results[0]?.isError).toBe(true);
    expect(resultText(run.results[0]).toLowerCase()).toContain("abort");
    // The server saw notifications/cancelled (the count is read over the same connection, in order).
    const count = await tool(mcp, "t__cancellations").execute({}, ctx());
    expect(count.content).toEqual([{ type: "text", text: "1" }]);
  });

  it("updates its tools on tools/list_changed and tells the listeners", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry() } });
    const changed = deferred<AgentTool[]>();
    mcp.onToolsChanged((tools) => changed.resolve(tools));
    expect(mcp.tools.map((t) => t.name)).not.toContain("t__late");
    await tool(mcp, "t__add_tool").execute({}, ctx());
    const tools = await changed.promise;
    expect(tools.map((t) => t.name)).toContain("t__late");
    expect(mcp.tools.map((t) => t.name)).toContain("t__late");
    const late = await tool(mcp, "t__late").execute({}, ctx());
    expect(late.content).toEqual([{ type: "text", text: "late tool ran" }]);
  });

  it("reports a crash mid-call with the server's stderr, then restarts it on the next call", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry() } }, { maxRestarts: 1 });
    const firstPid = await pidOf(mcp);
    const crash = await runToolCalls(mcp.tools, [{ name: "t__crash", arguments: {} }]);
    expect(crash.results[0]?.isError).toBe(true);
    expect(resultText(crash.results[0])).toContain('MCP server "t" exited during the call of crash');
    expect(resultText(crash.results[0])).toContain("crashing on purpose");
    expect(mcp.servers[0]?.state).toBe("crashed");
    expect(isAlive(firstPid)).toBe(false);

    const secondPid = await pidOf(mcp);
    expect(secondPid).not.toBe(firstPid);
    expect(mcp.servers[0]).toMatchObject({ state: "connected", restarts: 1 });

    // The restarts are bounded: after the second crash the server stays down.
    await tool(mcp, "t__crash")
      .execute({}, ctx())
      .catch(() => {});
    const error = await tool(mcp, "t__echo")
      .execute({ text: "x" }, ctx())
      .catch((e: unknown) => e);
    expect(isMcpClientError(error, "unavailable")).toBe(true);
    expect((error as Error).message).toContain('MCP server "t" is unavailable (1 restarts used)');
  });

  it("leaves out servers that fail to start or never answer, with clear errors, and keeps the others", async () => {
    const mcp = await connect({
      mcpServers: {
        good: testServerEntry(),
        silent: { ...testServerEntry("--silent-start"), timeout: 2_000 },
        dead: testServerEntry("--crash-on-start"),
        missing: { command: "/nonexistent/agentchart-mcp-server" },
      },
    });
    expect(mcp.servers.map((server) => [server.name, server.state])).toEqual([
      ["good", "connected"],
      ["silent", "failed"],
      ["dead", "failed"],
      ["missing", "failed"],
    ]);
    expect(mcp.tools.every((t) => t.name.startsWith("good__"))).toBe(true);
    const messages = Object.fromEntries(mcp.diagnostics.map((d) => [d.server, d.message]));
    expect(messages.silent).toBe(
      'MCP server "silent" failed to start: no answer to initialize within 2000 ms',
    );
    expect(messages.dead).toContain("cannot start: crashing on purpose");
    expect(messages.missing).toContain("ENOENT");
  });

  it("gives a call that gets no answer a timeout error", async () => {
    const mcp = await connect({ mcpServers: { t: testServerEntry() } }, { requestTimeoutMs: 300 });
    const run = await runToolCalls(mcp.tools, [{ name: "t__hang", arguments: {} }]);
    expect(run.results[0]?.isError).toBe(true);
    expect(resultText(run.results[0])).toBe('MCP server "t" did not answer the call of hang within 300 ms');
  });

  it("close() ends every child process", async () => {
    const mcp = await connectMcpServers({
      mcpServers: { a: testServerEntry(), b: testServerEntry(), c: testServerEntry() },
    });
    const pids = mcp.servers.map((server) => server.pid);
    expect(pids.every((pid) => typeof pid === "number" && isAlive(pid))).toBe(true);
    await mcp.close();
    expect(pids.filter((pid) => isAlive(pid as number))).toEqual([]);
    expect(mcp.servers.every((server) => server.state === "closed")).toBe(true);
    const error = await mcp.tools[0]?.execute({ text: "x" }, ctx()).catch((e: unknown) => e);
    expect(isMcpClientError(error, "closed")).toBe(true);
  });

  it("asks for approval per server or per tool", async () => {
    const mcp = await connect({
      mcpServers: {
        all: { ...testServerEntry(), requiresApproval: true },
        some: { ...testServerEntry(), requiresApproval: ["echo"] },
        none: testServerEntry(),
      },
    });
    const needs = (name: string) => tool(mcp, name).requiresApproval;
    expect([needs("all__add"), needs("some__echo"), needs("some__add"), needs("none__echo")]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const byOption = await connect(
      { mcpServers: { t: testServerEntry() } },
      { requiresApproval: ({ tool: name }) => name === "fail" },
    );
    expect([tool(byOption, "t__fail").requiresApproval, tool(byOption, "t__echo").requiresApproval]).toEqual([
      true,
      false,
    ]);
  });

  it("rejects a malformed configuration with McpClientError('invalid_config') naming each problem", async () => {
    const error = await connectMcpServers({
      mcpServers: { a: { args: ["x"] }, b: { url: "ftp://x" } },
    } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpClientError);
    expect((error as McpClientError).code).toBe("invalid_config");
    expect((error as Error).message).toContain("mcpServers.a");
    expect((error as Error).message).toContain("mcpServers.b");
  });
});
