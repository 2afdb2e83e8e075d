import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectMcpServers, type McpConnection } from "../../src/mcp.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentTool } from "../../src/types/tool.js";
import type { ToolSource } from "../../src/types/tool-source.js";
import { createHarness, nextEvent } from "../support/harness-support.js";
import { testServerEntry } from "../support/mcp-support.js";

const textTool = (name: string, run: () => void = () => {}) =>
  defineTool({
    name,
    description: name,
    parameters: z.object({}),
    execute: async () => {
      run();
      return { content: [{ type: "text", text: `${name} ran` }] };
    },
  });

/** A ToolSource whose tools the test replaces. */
function manualSource(initial: AgentTool[]): ToolSource & { change(next: AgentTool[]): void } {
  const listeners = new Set<(tools: AgentTool[]) => void>();
  let current = initial;
  return {
    get tools() {
      return current;
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    change(next) {
      current = next;
      for (const listener of listeners) listener(next);
    },
  };
}

let mcp: McpConnection | undefined;
afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

describe("AgentHarness with tool sources", () => {
  it("lists the sources' tools after its own and applies a change only once the run is over", async () => {
    const source = manualSource([]);
    source.change([textTool("first", () => source.change([textTool("second")]))]);
    const { harness, model, events } = await createHarness(
      [{ toolCalls: [{ name: "first", arguments: {} }] }, { text: "done" }],
      { tools: [textTool("own")], toolSources: [source] },
    );
    expect(harness.tools.map((tool) => tool.name)).toEqual(["own", "first"]);
    await harness.prompt("go");
    // The change arrived while the tool ran: the second request still offered the old tools.
    expect(model.calls[1]?.context.tools.map((tool) => tool.name)).toEqual(["own", "first"]);
    expect(harness.tools.map((tool) => tool.name)).toEqual(["own", "second"]);
    expect(harness.activeToolNames).toEqual(["own", "second"]);
    const update = events.find((event) => event.type === "tools_update");
    expect(update).toMatchObject({ toolNames: ["own", "second"], previousToolNames: ["own", "first"] });
  });

  it("keeps the active set: a tool switched off stays off after a source change", async () => {
    const source = manualSource([textTool("a"), textTool("b")]);
    const { harness } = await createHarness([], { toolSources: [source] });
    harness.setActiveTools(["a"]);
    source.change([textTool("a"), textTool("b"), textTool("c")]);
    expect(harness.activeToolNames).toEqual(["a", "c"]);
  });

  it("stops following once its session is closed (a harness replaced after a fork)", async () => {
    const source = manualSource([textTool("a")]);
    const errors: unknown[] = [];
    const { harness, session } = await createHarness([], {
      toolSources: [source],
      onHandlerError: (error) => errors.push(error),
    });
    await session.close();
    source.change([textTool("b")]);
    expect(harness.tools.map((tool) => tool.name)).toEqual(["a"]);
    expect(errors).toEqual([]);
  });

  it("runs the tools of a connected MCP server and follows its tools/list_changed", async () => {
    mcp = await connectMcpServers({ mcpServers: { t: testServerEntry() } });
    const { harness } = await createHarness(
      [
        {
          toolCalls: [
            { name: "t__echo", arguments: { text: "from the harness" } },
            { name: "t__add_tool", arguments: {} },
          ],
        },
        { text: "done" },
      ],
      { toolSources: [mcp] },
    );
    const updated = nextEvent(harness, "tools_update");
    await harness.prompt("go");
    const results = harness.messages.filter((message) => message.role === "toolResult");
    expect(results.map((result) => result.content)).toEqual([
      [{ type: "text", text: "from the harness" }],
      [{ type: "text", text: "added" }],
    ]);
    expect((await updated).toolNames).toContain("t__late");
    expect(harness.phase).toBe("idle");
    expect(harness.activeToolNames).toContain("t__late");
  });
});
