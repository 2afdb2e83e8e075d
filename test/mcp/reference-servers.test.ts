// The official reference servers as real peers: started from node_modules (pinned dev dependencies).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpConnection } from "../../src/mcp.js";
import type { AgentEvent } from "../../src/types/events.js";
import { packageServerEntry, resultText, runToolCalls } from "../support/mcp-support.js";

describe("the official filesystem server", () => {
  let folder: string;
  let mcp: McpConnection;
  beforeAll(async () => {
    folder = realpathSync(mkdtempSync(join(tmpdir(), "agentchart-mcp-fs-")));
    mkdirSync(join(folder, "docs"));
    writeFileSync(join(folder, "notes.txt"), "alpha\nbeta\n");
    writeFileSync(join(folder, "docs", "guide.md"), "# Guide\n");
    mcp = await connectMcpServers({
      mcpServers: {
        fs: packageServerEntry("@modelcontextprotocol/server-filesystem", "dist/index.js", folder),
      },
    });
  });
  afterAll(async () => {
    await mcp.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("lets the agent list and read files in the allowed folder", async () => {
    expect(mcp.servers[0]?.state).toBe("connected");
    const run = await runToolCalls(mcp.tools, [
      { name: "fs__list_directory", arguments: { path: folder } },
      { name: "fs__read_text_file", arguments: { path: join(folder, "notes.txt") } },
    ]);
    const [listing, file] = run.results;
    expect(listing?.isError).toBe(false);
    expect(resultText(listing).split("\n").sort()).toEqual(["[DIR] docs", "[FILE] notes.txt"]);
    expect(resultText(file)).toBe("alpha\nbeta\n");
  });

  it("answers a path outside the allowed folder with an error result", async () => {
    const run = await runToolCalls(mcp.tools, [
      { name: "fs__read_text_file", arguments: { path: "/etc/hostname" } },
    ]);
    expect(run.results[0]?.isError).toBe(true);
    expect(resultText(run.results[0])).toMatch(/denied|outside/i);
  });
});

describe("the official everything server", () => {
  let mcp: McpConnection;
  beforeAll(async () => {
    mcp = await connectMcpServers({
      mcpServers: {
        every: packageServerEntry("@modelcontextprotocol/server-everything", "dist/index.js", "stdio"),
      },
    });
  });
  afterAll(() => mcp.close());

  /** Arguments for the tools that need some (the others run on their defaults); nothing reaches the network. */
  const ARGUMENTS: Record<string, Record<string, unknown>> = {
    echo: { message: "hello" },
    "get-annotated-message": { messageType: "success", includeImage: true },
    "get-structured-content": { location: "Chicago" },
    "get-sum": { a: 2, b: 3 },
    "gzip-file-as-resource": {
      name: "hello.gz",
      data: "data:text/plain;base64,aGVsbG8=",
      outputType: "resource",
    },
    "trigger-long-running-operation": { duration: 0.2, steps: 2 },
    "simulate-research-query": { topic: "statecharts" },
  };

  it("can call every tool it lists", async () => {
    const status = mcp.servers[0];
    expect(status?.state).toBe("connected");
    expect(status?.toolNames.length).toBeGreaterThanOrEqual(12);
    const calls = (status?.toolNames ?? []).map((name) => ({
      name,
      arguments: ARGUMENTS[name.slice("every__".length)] ?? {},
    }));
    const run = await runToolCalls(mcp.tools, calls);
    const failures = run.results
      .filter((result) => result.isError)
      .map((r) => `${r.toolName}: ${resultText(r)}`);
    expect(failures).toEqual([]);
    const byName = Object.fromEntries(run.results.map((result) => [result.toolName, result]));
    expect(resultText(byName.every__echo)).toBe("Echo: hello");
    expect(resultText(byName["every__get-sum"])).toContain("5");
    expect(byName["every__get-tiny-image"]?.content.some((block) => block.type === "image")).toBe(true);
    expect(byName["every__get-structured-content"]?.details).toMatchObject({
      structuredContent: expect.any(Object),
    });
    expect(resultText(byName["every__gzip-file-as-resource"])).toContain("[resource ");
  });

  it("reports the long-running operation's progress", async () => {
    const run = await runToolCalls(mcp.tools, [
      { name: "every__trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
    ]);
    const progress = run.events
      .filter(
        (event): event is Extract<AgentEvent, { type: "tool_execution_update" }> =>
          event.type === "tool_execution_update",
      )
      .map((event) => event.partialResult);
    expect(progress).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    expect(run.results[0]?.isError).toBe(false);
  });

  it("cancels the long-running operation when the run is aborted, and keeps serving", async () => {
    const run = await runToolCalls(
      mcp.tools,
      [{ name: "every__trigger-long-running-operation", arguments: { duration: 600, steps: 600 } }],
      (event, agent) => {
        if (event.type === "tool_execution_update") agent.abort();
      },
    );
    expect(run.results[0]?.isError).toBe(true);
    expect(run.events.at(-1)?.type).toBe("agent_end");
    const after = await runToolCalls(mcp.tools, [
      { name: "every__echo", arguments: { message: "still here" } },
    ]);
    expect(resultText(after.results[0])).toBe("Echo: still here");
  });
});
