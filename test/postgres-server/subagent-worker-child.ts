// A worker process whose root agent has sub-agents, on scripted models whose replies depend only on
// each agent's transcript (so any worker can take a session over). Prints "READY" once serving,
// "APPLIED <key>" after a tool's side effect (written to the `effects` sink of the schema, one row per
// idempotency key), "STOPPED" after a drain.
// Usage: tsx subagent-worker-child.ts <postgres URL> <schema> <mode>
//   normal
//   die-on-nested-approval: the process kills itself (SIGKILL) the moment a sub-agent's call asks for
//                           approval, before the worker can park the run
//   gated-child:            the `research` child's final reply streams 40 deltas and stops after 10 of
//                           them, printing "GATED" (it never goes on: kill the process there)
//   child-budget:           each `research` child may make one model call (`budget: { maxModelCalls:
//                           1 }`): after its `note` call it pauses at the limit (and the run is parked)
//
// The tree: root → `support` (call `s1`) → `billing` (call `b1`) → `refund` (requires approval, call
// `r1`); and root → `research` (call `s1`) → `note` (call `n1`, replay "safe") then a streamed reply.
// A root prompt "support <order>" or "research topic" starts one of them; "both <order>" calls
// `support` and, in parallel, `await_refund` (call `w1`), which waits until the refund is applied;
// "pair topic" calls `research` twice in parallel (calls `s1`, `s2`).
import pg from "pg";
import { z } from "zod";
import { defineAgentTool, defineTool, type StreamFn } from "../../src/index.js";
import { createWorker } from "../../src/postgres.js";
import { type ScriptedReply, scriptedModel } from "../../src/testing.js";
import type { LlmContext } from "../../src/types/stream.js";
import { testModel } from "../support/loop-harness.js";

const [url, schema, mode] = process.argv.slice(2);
const sink = new pg.Pool({ connectionString: url!, max: 2 });

/** The idempotent sink: one row per idempotency key, `attempts` counts how often a call reached it. */
async function applyEffect(key: string): Promise<void> {
  await sink.query(
    `INSERT INTO "${schema}".effects (key, attempts) VALUES ($1, 1)
     ON CONFLICT (key) DO UPDATE SET attempts = effects.attempts + 1`,
    [key],
  );
  process.stdout.write(`APPLIED ${key}\n`);
}

const textOf = (message: LlmContext["messages"][number] | undefined): string => {
  if (!message || message.role === "assistant") return "";
  const content = message.content;
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
};

/**
 * A model answering by its transcript: a user message makes `call` (with the message's last word as
 * `argument`), a tool result is answered "<name>: <result>".
 */
function levelModel(
  name: string,
  call: (word: string) => { id: string; name: string; arguments: Record<string, unknown> },
  reply: (text: string) => ScriptedReply = (text) => ({ text: `${name}: ${text}` }),
): StreamFn {
  const turn = (context: LlmContext): ScriptedReply => {
    const last = context.messages.at(-1);
    if (last?.role === "toolResult") return reply(textOf(last));
    const word = textOf(last).split(" ").at(-1) ?? "";
    return { toolCalls: [call(word)] };
  };
  return scriptedModel(Array.from({ length: 50 }, () => turn));
}

const refund = defineTool({
  name: "refund",
  description: "Refunds an order",
  parameters: z.object({ order: z.string() }),
  requiresApproval: true,
  execute: async ({ order }, ctx) => {
    await applyEffect(ctx.idempotencyKey);
    return { content: [{ type: "text", text: `refunded ${order}` }] };
  },
});
const billing = defineAgentTool({
  name: "billing",
  description: "Handles billing",
  agent: {
    systemPrompt: "You do billing.",
    streamFn: levelModel("billing", (order) => ({ id: "r1", name: "refund", arguments: { order } })),
    tools: [refund],
  },
});
const support = defineAgentTool({
  name: "support",
  description: "Handles support",
  agent: {
    systemPrompt: "You do support.",
    streamFn: levelModel("support", (order) => ({
      id: "b1",
      name: "billing",
      arguments: { task: `refund ${order}` },
    })),
    tools: [billing],
  },
});

const note = defineTool({
  name: "note",
  description: "Writes a note (a side effect)",
  parameters: z.object({ topic: z.string() }),
  replay: "safe",
  execute: async ({ topic }, ctx) => {
    await applyEffect(ctx.idempotencyKey);
    return { content: [{ type: "text", text: `noted ${topic}` }] };
  },
});
/** Mode gated-child: the child's final reply stops after 10 of its 40 deltas and never goes on. */
const researchModel = levelModel(
  "research",
  (topic) => ({ id: "n1", name: "note", arguments: { topic } }),
  (text) => ({ text: `research: ${text}`, deltas: 40 }),
);
const gatedResearch: StreamFn = async (model, context, options) => {
  const events = (await researchModel(model, context, options)) as AsyncIterable<{ type: string }>;
  if (mode !== "gated-child" || context.messages.at(-1)?.role !== "toolResult") return events as never;
  return (async function* () {
    let deltas = 0;
    for await (const event of events) {
      if (event.type === "text_delta" && ++deltas === 11) {
        process.stdout.write("GATED\n");
        await new Promise<never>(() => {});
      }
      yield event;
    }
  })() as never;
};
// `replay: "safe"`: after a crash the call starts its child over (a `"never"` agent tool would be
// answered "interrupted, not re-run").
const research = defineAgentTool({
  name: "research",
  description: "Researches a topic",
  replay: "safe",
  agent: {
    systemPrompt: "You research.",
    streamFn: gatedResearch,
    tools: [note],
    ...(mode === "child-budget" ? { budget: { maxModelCalls: 1 } } : {}),
  },
});

/** A root tool that waits (polling the sink) until the refund's effect is applied. */
const awaitRefund = defineTool({
  name: "await_refund",
  description: "Waits until the refund went through",
  parameters: z.object({}),
  execute: async () => {
    for (;;) {
      const { rows } = await sink.query(`SELECT 1 FROM "${schema}".effects WHERE key LIKE '%:r1'`);
      if (rows.length > 0) return { content: [{ type: "text", text: "refund seen" }] };
      await new Promise((resolve) => setTimeout(resolve, 50)); // polling the sink, not synchronisation
    }
  },
});

/**
 * The root: "support <order>" and "research topic" call that agent tool (`s1`); "both <order>" calls
 * `support` and `await_refund` (`w1`) in parallel.
 */
const rootCalls = levelModel("root", (word) => ({
  id: "s1",
  name: word === "topic" ? "research" : "support",
  arguments: { task: `please handle ${word}` },
}));
/** A root model making `calls(word)` in one reply, then answering "root: <result> + <result>…". */
const parallelCalls = (calls: (word: string) => ScriptedReply["toolCalls"]) =>
  scriptedModel(
    Array.from({ length: 50 }, () => (context: LlmContext): ScriptedReply => {
      const last = context.messages.at(-1);
      if (last?.role === "toolResult") {
        const results = context.messages.filter((message) => message.role === "toolResult").map(textOf);
        return { text: `root: ${results.join(" + ")}` };
      }
      return { toolCalls: calls(textOf(last).split(" ").at(-1) ?? "") };
    }),
  );
const bothCalls = parallelCalls((order) => [
  { id: "s1", name: "support", arguments: { task: `please handle ${order}` } },
  { id: "w1", name: "await_refund", arguments: {} },
]);
const pairCalls = parallelCalls((topic) => [
  { id: "s1", name: "research", arguments: { task: `please handle ${topic}` } },
  { id: "s2", name: "research", arguments: { task: `please handle ${topic}` } },
]);
const rootModel: StreamFn = (model, context, options) => {
  const first = textOf(context.messages.find((message) => message.role === "user"));
  const replies = first.startsWith("both ") ? bothCalls : first.startsWith("pair ") ? pairCalls : rootCalls;
  return replies(model, context, options);
};

const worker = await createWorker({
  connectionString: url!,
  schema: schema!,
  concurrency: 2,
  leaseMs: 2_000,
  commandPollMs: 100,
  harness: () => ({ model: testModel, streamFn: rootModel, tools: [support, research, awaitRefund] }),
  onHarness: (harness) =>
    harness.events$.subscribe((event) => {
      if (
        mode === "die-on-nested-approval" &&
        event.type === "tool_approval_request" &&
        (event.agentPath?.length ?? 0) > 0
      )
        process.kill(process.pid, "SIGKILL");
    }),
  onError: (error) => process.stderr.write(`worker error: ${String(error)}\n`),
});
process.stdout.write("READY\n");
await worker.stopped;
await sink.end();
process.stdout.write("STOPPED\n");
