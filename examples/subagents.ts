/**
 * Sub-agents: an agent tool runs a child agent (an `agentMachine` actor under the tool call's actor).
 * The root asks three researchers at once, then a support agent whose billing sub-agent needs a
 * person's approval for a refund. The whole tree is persisted while that grandchild waits, restored
 * from the JSON, approved by its `agentPath`; the refund runs once and the results climb back up.
 *
 *   npx tsx examples/subagents.ts
 */
import { z } from "zod";
import { Agent, type AgentEvent, defineAgentTool, defineTool } from "../src/index.js";
import { scriptedModel } from "../src/testing.js";

const model = { id: "demo", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 };
const refunds: string[] = [];

/** The tools, built the same way for the first agent and for the restored one. */
function tools(restored: boolean) {
  // A restored level's model was already asked once: its script goes on after that reply.
  const script = (turns: Parameters<typeof scriptedModel>[0]) =>
    scriptedModel(restored ? turns.slice(1) : turns);
  const refund = defineTool({
    name: "refund",
    description: "Refunds an order",
    parameters: z.object({ order: z.string() }),
    requiresApproval: true,
    execute: async ({ order }, ctx) => {
      refunds.push(`${order} (key ${ctx.idempotencyKey})`);
      return { content: [{ type: "text", text: `refunded ${order}` }] };
    },
  });
  const billing = defineAgentTool({
    name: "billing",
    description: "Handles refunds",
    agent: {
      systemPrompt: "You do billing.",
      tools: [refund],
      streamFn: script([
        {
          toolCalls: [{ id: "refund_1", name: "refund", arguments: { order: "A-17" } }],
          usage: { input: 40, output: 8 },
        },
        { text: "Refund of A-17 done.", usage: { input: 60, output: 6 } },
      ]),
    },
  });
  const support = defineAgentTool({
    name: "support",
    description: "Handles a customer's request",
    agent: {
      systemPrompt: "You do support.",
      tools: [billing],
      streamFn: script([
        {
          toolCalls: [{ id: "billing_1", name: "billing", arguments: { task: "refund A-17" } }],
          usage: { input: 30, output: 5 },
        },
        { text: "The customer got the refund.", usage: { input: 50, output: 7 } },
      ]),
    },
  });
  // Each call builds its child from the arguments: one researcher per topic.
  const research = defineAgentTool({
    name: "research",
    description: "Researches a topic",
    parameters: z.object({ topic: z.string() }),
    input: ({ topic }) => `Find one fact about ${topic}.`,
    agent: ({ topic }) => ({
      systemPrompt: "You research.",
      streamFn: scriptedModel([{ text: `A fact about ${topic}.`, usage: { input: 10, output: 4 } }]),
    }),
  });
  return [research, support];
}

const rootScript = [
  {
    toolCalls: ["whales", "tides", "comets"].map((topic, i) => ({
      id: `research_${i + 1}`,
      name: "research",
      arguments: { topic },
    })),
  },
  { toolCalls: [{ id: "support_1", name: "support", arguments: { task: "Customer wants A-17 refunded" } }] },
  { text: "Researched three topics and refunded A-17." },
];

/** One line per interesting event, indented one step per level of the tree. */
function show(event: AgentEvent) {
  const depth = event.agentPath?.length ?? 0;
  const where = event.agentPath ? `[${event.agentPath.join(" › ")}] ` : "";
  const line =
    event.type === "tool_execution_start"
      ? `call ${event.toolName} (${event.toolCallId})`
      : event.type === "tool_approval_request"
        ? `asks approval for ${event.toolName} ${JSON.stringify(event.args)}`
        : event.type === "agent_end"
          ? `agent_end (${event.stopReason})`
          : event.type === "agent_resume"
            ? `agent_resume (${event.from})`
            : undefined;
  if (line) console.log(`${"  ".repeat(depth)}${where}${line}`);
}

const agent = new Agent({ model, agentId: "root", streamFn: scriptedModel(rootScript), tools: tools(false) });
let saved = "";
agent.subscribe((event) => {
  show(event);
  if (event.type === "tool_approval_request") {
    saved = JSON.stringify(agent.persist());
    queueMicrotask(() => agent.abort()); // this process "dies" here
  }
});
await agent.prompt("Research three topics, then refund A-17");
console.log(`persisted ${saved.length} bytes while a grandchild waits; the first agent was aborted`);

// Another process would read `saved` from a database; here it is the same string.
const restored = Agent.restore(saved, { streamFn: scriptedModel(rootScript.slice(2)), tools: tools(true) });
restored.subscribe(show);
const [waiting] = restored.state.awaitingApproval;
console.log(`restored: ${waiting?.toolName} waits at ${waiting?.agentPath?.join(" › ")}`);
restored.approveToolCall(waiting!.toolCallId, { agentPath: waiting!.agentPath });
await restored.waitForIdle();

const results = restored.state.messages.filter((m) => m.role === "toolResult");
const support = results.find((r) => r.toolName === "support");
console.log(`refunds run: ${refunds.length} — ${refunds.join(", ")}`);
console.log(`support's result: ${support?.content[0]?.type === "text" ? support.content[0].text : ""}`);
console.log(`support's tokens, its descendants included: ${support?.usage?.totalTokens}`);
const last = restored.state.messages.at(-1);
console.log(`last reply: ${JSON.stringify(last?.role === "assistant" ? last.content : last)}`);
