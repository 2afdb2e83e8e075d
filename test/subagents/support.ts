import { z } from "zod";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, ToolResultMessage } from "../../src/types/messages.js";

/** A `refund` tool that requires approval and counts its executions in `ran`. */
export function refundTool(ran: { count: number; keys: string[] }) {
  return defineTool({
    name: "refund",
    description: "Refunds an order",
    parameters: z.object({ order: z.string() }),
    requiresApproval: true,
    execute: async ({ order }, ctx) => {
      ran.count++;
      ran.keys.push(ctx.idempotencyKey);
      return { content: [{ type: "text", text: `refunded ${order}` }] };
    },
  });
}

/**
 * A three-level tree: root → `support` (agent tool, call `s1`) → `billing` (agent tool, call `b1`) →
 * `refund` (approval, call `r1`). Each level's script is the same for a fresh or a restored tree.
 */
export function supportTree(ran: { count: number; keys: string[] }, restored = false) {
  // A restored level's model was already asked once (its first reply is in its transcript).
  const script = (turns: ScriptedTurn[]) => scriptedModel(restored ? turns.slice(1) : turns);
  const billing = defineAgentTool({
    name: "billing",
    description: "Handles billing",
    agent: {
      systemPrompt: "You do billing.",
      streamFn: script([
        {
          toolCalls: [{ id: "r1", name: "refund", arguments: { order: "A-1" } }],
          usage: { input: 5, output: 1 },
        },
        { text: "billing: refunded", usage: { input: 7, output: 2 } },
      ]),
      tools: [refundTool(ran)],
    },
  });
  const support = defineAgentTool({
    name: "support",
    description: "Handles support",
    agent: {
      systemPrompt: "You do support.",
      streamFn: script([
        {
          toolCalls: [{ id: "b1", name: "billing", arguments: { task: "refund A-1" } }],
          usage: { input: 3, output: 1 },
        },
        { text: "support: done", usage: { input: 4, output: 1 } },
      ]),
      tools: [billing],
    },
  });
  const rootScript: ScriptedTurn[] = [
    {
      toolCalls: [{ id: "s1", name: "support", arguments: { task: "customer wants a refund" } }],
      usage: { input: 1, output: 1 },
    },
    { text: "root: all done", usage: { input: 2, output: 1 } },
  ];
  return { tools: [support], rootScript };
}

export const pathOf = (event: AgentEvent) => (event.agentPath ?? []).join("/");
export const toolResults = (messages: readonly AgentMessage[]) =>
  messages.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");
export const textOf = (message: ToolResultMessage) =>
  message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
