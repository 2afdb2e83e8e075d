import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { ToolResultMessage } from "../../src/types/messages.js";
import { testModel } from "../support/loop-harness.js";

/** root → `research` (agent tool, call `c1`) → `lookup` (a plain tool, call `l1`, counted). */
async function researchHarness(childReplies = [{ text: "research: done" }]) {
  const lookups: string[] = [];
  const lookup = defineTool({
    name: "lookup",
    description: "Looks an order up",
    parameters: z.object({ order: z.string() }),
    execute: async ({ order }) => {
      lookups.push(order);
      return { content: [{ type: "text", text: `order ${order}: shipped` }] };
    },
  });
  const childModel = scriptedModel([
    { toolCalls: [{ id: "l1", name: "lookup", arguments: { order: "A-1" } }] },
    ...childReplies,
  ]);
  const research = defineAgentTool({
    name: "research",
    description: "Researches an order",
    agent: { systemPrompt: "You research.", streamFn: childModel, tools: [lookup] },
  });
  const session = await new MemorySessionRepo().create({ cwd: "/shop" });
  const harness = new AgentHarness({
    session,
    model: testModel,
    tools: [research],
    streamFn: scriptedModel([
      { toolCalls: [{ id: "c1", name: "research", arguments: { task: "where is A-1?" } }] },
      { text: "root: done" },
    ]),
  });
  return { harness, session, lookups, childModel };
}

const toolResultTexts = (messages: readonly unknown[]) =>
  messages
    .filter((message) => (message as { role: string }).role === "toolResult")
    .map((message) =>
      (message as ToolResultMessage).content.map((block) => (block as { text: string }).text).join(""),
    );

describe("the harness's tool hooks at every depth", () => {
  it("tool_call sees a sub-agent's call with its agentPath and can block it: the tool never runs", async () => {
    const { harness, lookups, childModel } = await researchHarness();
    const seen: [string, readonly string[] | undefined][] = [];
    harness.on("tool_call", (event) => {
      seen.push([event.toolName, event.agentPath]);
      return event.toolName === "lookup" ? { block: true, reason: "lookups are off today" } : undefined;
    });
    await harness.prompt("where is A-1?");
    expect(seen).toEqual([
      ["research", undefined],
      ["lookup", ["c1"]],
    ]);
    expect(lookups).toEqual([]);
    // The child's model got the block as the call's error result.
    expect(toolResultTexts(childModel.calls[1]!.context.messages)).toEqual(["lookups are off today"]);
  });

  it("tool_result rewrites a sub-agent's result before the sub-agent's model sees it", async () => {
    const { harness, lookups, childModel } = await researchHarness();
    harness.on("tool_result", (event) =>
      event.agentPath?.[0] === "c1"
        ? { content: [{ type: "text", text: `[redacted ${event.toolName}]` }] }
        : undefined,
    );
    await harness.prompt("where is A-1?");
    expect(lookups).toEqual(["A-1"]);
    expect(toolResultTexts(childModel.calls[1]!.context.messages)).toEqual(["[redacted lookup]"]);
  });

  it("a throwing hook on a sub-agent's call ends the harness's run with the hook's error", async () => {
    const { harness, session } = await researchHarness();
    harness.on("tool_call", (event) => {
      if (event.agentPath) throw new Error("policy service down");
    });
    const { reply } = await harness.prompt("where is A-1?");
    expect(reply).toMatchObject({
      stopReason: "error",
      errorMessage: 'Hook "tool_call" failed: policy service down',
    });
    const last = session.buildContext().messages.at(-1);
    expect(last).toMatchObject({ role: "assistant", stopReason: "error" });
  });
});
