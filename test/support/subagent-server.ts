import { z } from "zod";
import { createAgUiHandler } from "../../src/ag-ui/ag-ui-handler.js";
import { Agent } from "../../src/agent/agent.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { serveOnLoopback } from "./ag-ui-server.js";
import { testModel } from "./loop-harness.js";

/**
 * An AG-UI endpoint on loopback with one Agent per thread: root → `research` (agent tool, call `s1`)
 * whose child follows `childScript` with a `refund` tool (needs approval); `refunds` lists its runs.
 */
export async function serveResearchTree(childScript: ScriptedTurn[]) {
  const refunds: string[] = [];
  const agents = new Map<string, Agent>();
  const refund = defineTool({
    name: "refund",
    description: "Refunds an order",
    parameters: z.object({ order: z.string() }),
    requiresApproval: true,
    execute: async ({ order }) => {
      refunds.push(order);
      return { content: [{ type: "text", text: `refunded ${order}` }] };
    },
  });
  const handler = createAgUiHandler({
    agentFor: (threadId) => {
      const research = defineAgentTool({
        name: "research",
        description: "Looks into an order",
        agent: { streamFn: scriptedModel(childScript), tools: [refund] },
      });
      const agent = new Agent({
        model: testModel,
        streamFn: scriptedModel([
          {
            text: "Let me delegate.",
            toolCalls: [{ id: "s1", name: "research", arguments: { task: "refund A-1" } }],
          },
          { text: "root: all done" },
          { text: "You are welcome." },
        ]),
        tools: [research],
      });
      agents.set(threadId, agent);
      return agent;
    },
  });
  const served = await serveOnLoopback(handler);
  return { url: served.url, close: served.close, refunds, agents };
}

/** The child's script of `serveResearchTree`: a text and the `refund` call, then its answer. */
export const childTurns: ScriptedTurn[] = [
  { text: "Checking the order.", toolCalls: [{ id: "r1", name: "refund", arguments: { order: "A-1" } }] },
  { text: "research: refunded" },
];
