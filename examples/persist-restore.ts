/**
 * Durable human-in-the-loop: an agent waits for a person to approve a payment, is persisted as JSON
 * (a file, a database row…) and dropped; later — here in the same process, as well in another one —
 * `Agent.restore` rebuilds it from the JSON with its functions supplied again, the approval arrives,
 * and the run goes on where it stopped.
 *
 *   npx tsx examples/persist-restore.ts
 */
import { z } from "zod";
import { Agent, defineTool } from "../src/index.js";
import { scriptedModel } from "../src/testing.js";

const model = { id: "demo", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 };
const pay = defineTool({
  name: "pay",
  description: "Pays an invoice",
  parameters: z.object({ invoice: z.string(), amount: z.number() }),
  requiresApproval: true,
  execute: async ({ invoice, amount }, ctx) => ({
    content: [{ type: "text", text: `paid ${amount} for ${invoice} (key ${ctx.idempotencyKey})` }],
  }),
});

// Day 1: the agent asks to pay and waits.
const agent = new Agent({
  model,
  agentId: "accounts-bot",
  tools: [pay],
  streamFn: scriptedModel([
    { toolCalls: [{ id: "call_pay", name: "pay", arguments: { invoice: "INV-7", amount: 120 } }] },
  ]),
});
const waiting = new Promise<void>((resolve) =>
  agent.subscribe((event) => {
    if (event.type === "tool_approval_request") resolve();
  }),
);
void agent.prompt("Pay invoice INV-7.");
await waiting;
const saved = JSON.stringify(agent.persist());
agent.actor.stop();
console.log(
  `persisted ${saved.length} bytes while ${JSON.stringify(agent.actor.getSnapshot().value)} waits for approval`,
);

// Day 2: restore, approve, finish.
const restored = Agent.restore(saved, {
  tools: [pay],
  streamFn: scriptedModel([{ text: "INV-7 is paid." }]),
});
restored.subscribe((event) => {
  if (event.type === "agent_resume") console.log(`resumed from ${event.from}`);
  if (event.type === "tool_execution_end")
    console.log(`${event.toolName}: ${JSON.stringify(event.result.content)}`);
});
await Promise.resolve(); // the restored agent re-announces the approval request after `restore` returns
restored.approveToolCall("call_pay");
await restored.waitForIdle();
const last = restored.state.messages.at(-1) as { content: { type: string; text?: string }[] };
console.log(`answer: ${last.content.find((block) => block.type === "text")?.text}`);
