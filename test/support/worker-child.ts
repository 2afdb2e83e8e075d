// A worker process on a scripted model whose replies depend only on the transcript, so any worker
// can take any session over. Prints "READY" once serving, "STARTED <key>" when the `effect` tool
// starts, "APPLIED <key>" after its side effect, and "STOPPED" after a drain.
// Usage: tsx worker-child.ts <postgres URL> <schema> <mode> [drainMs]
//   normal
//   hang-before:   `effect` hangs after its journal entry, before the side effect
//   hang-after:    `effect` applies its side effect, then hangs before returning its result
//   hang-model:    every model call prints "MODEL" and never answers
//   pause-in-tool: `effect` works 3 s before its side effect (time to SIGSTOP the process there)
//   die-on-approval: the process kills itself (SIGKILL) the moment a call asks for approval, before
//                  the worker can park the run
//   gated:         every echo reply streams in 40 deltas; the first reply stops after 10 of them and
//                  again before it ends, each time printing "GATED" and going on once a line arrives on
//                  stdin
//   budget:        each run may make one model call (`budget: { maxModelCalls: 1 }`): a run whose tool
//                  call needs a second one pauses at the limit (and is parked)
// With WORKER_LATENCY=1 every reply takes 150–300 ms. A lost lease prints "FENCED <session id>".
// A steer or follow-up taken into a running harness's queue prints "QUEUED <text>".
import { createInterface } from "node:readline";
import pg from "pg";
import { z } from "zod";
import { type AgentTool, defineTool, type StreamFn } from "../../src/index.js";
import { createWorker } from "../../src/postgres.js";
import { scriptedModel } from "../../src/testing.js";
import type { AssistantMessageEvent } from "../../src/types/stream.js";
import { testModel } from "./loop-harness.js";
import { transcriptReply } from "./worker-model.js";

const [url, schema, mode, drainMs] = process.argv.slice(2);
const sink = new pg.Pool({ connectionString: url!, max: 2 });
sink.on("error", () => {}); // an idle connection closed by a database restart must not end the process

/** The idempotent sink: one row per idempotency key, `attempts` counts how often a call reached it. */
async function applyEffect(key: string): Promise<void> {
  await sink.query(
    `INSERT INTO "${schema}".effects (key, attempts) VALUES ($1, 1)
     ON CONFLICT (key) DO UPDATE SET attempts = effects.attempts + 1`,
    [key],
  );
}

const effect = defineTool({
  name: "effect",
  description: "Writes a side effect into the idempotent sink",
  parameters: z.object({ target: z.string() }),
  execute: async (_args, ctx) => {
    const key = (ctx as { idempotencyKey?: string }).idempotencyKey ?? "missing-key";
    process.stdout.write(`STARTED ${key}\n`);
    if (mode === "hang-before") return new Promise<never>(() => {});
    if (mode === "pause-in-tool") await new Promise((resolve) => setTimeout(resolve, 3_000)); // simulated work
    await applyEffect(key);
    process.stdout.write(`APPLIED ${key}\n`);
    if (mode === "hang-after") return new Promise<never>(() => {});
    return { content: [{ type: "text", text: "applied" }] };
  },
});
const guarded = defineTool({
  name: "guarded",
  description: "Needs a human's approval",
  parameters: z.object({ target: z.string() }),
  requiresApproval: true,
  execute: async (_args, ctx) => {
    await applyEffect((ctx as { idempotencyKey?: string }).idempotencyKey ?? "missing-key");
    return { content: [{ type: "text", text: "guarded ran" }] };
  },
});
const slow = defineTool({
  name: "slow",
  description: "Takes a while",
  parameters: z.object({ target: z.string() }),
  execute: async () => {
    process.stdout.write("SLOW_STARTED\n");
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // simulated work, not synchronisation
    return { content: [{ type: "text", text: "slow done" }] };
  },
});

const replies = () =>
  scriptedModel(
    Array.from({ length: 20 }, () =>
      mode === "gated"
        ? (context: Parameters<typeof transcriptReply>[0]) => ({ ...transcriptReply(context), deltas: 40 })
        : transcriptReply,
    ),
  );

/** The lines on stdin (mode `gated` only: reading stdin would keep the process alive). */
const stdinLines =
  mode === "gated" ? createInterface({ input: process.stdin })[Symbol.asyncIterator]() : undefined;
let gateUsed = false;
/** A gate of mode `gated`: "GATED", then a line on stdin. */
const gate = async () => {
  process.stdout.write("GATED\n");
  await stdinLines?.next();
};
/** The first reply of mode `gated`: 10 text deltas, a gate, the other deltas, a gate, the end. */
async function* gated(events: AsyncIterable<AssistantMessageEvent>): AsyncGenerator<AssistantMessageEvent> {
  const first = !gateUsed;
  gateUsed = true;
  let deltas = 0;
  for await (const event of events) {
    if (first && event.type === "text_delta" && ++deltas === 11) await gate();
    if (first && event.type === "done") await gate();
    yield event;
  }
}

/** The scripted model, slowed down to a model's latency, or hanging (mode hang-model). */
const streamFn: StreamFn = async (model, context, options) => {
  if (mode === "hang-model") {
    process.stdout.write("MODEL\n");
    return new Promise<never>(() => {});
  }
  if (process.env.WORKER_LATENCY === "1")
    await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 150)); // simulated latency
  const events = replies()(model, context, options);
  // The scripted model streams an async generator.
  return mode === "gated" ? gated((await events) as AsyncIterable<AssistantMessageEvent>) : events;
};

const worker = await createWorker({
  connectionString: url!,
  schema: schema!,
  concurrency: 3,
  leaseMs: 2_000,
  commandPollMs: 100,
  drainMs: drainMs === undefined ? 10_000 : Number(drainMs),
  harness: () => ({
    model: testModel,
    streamFn,
    tools: [{ ...effect, replay: "safe" } as AgentTool, guarded, slow],
    ...(mode === "budget" ? { budget: { maxModelCalls: 1 } } : {}),
  }),
  onHarness: (harness) =>
    harness.events$.subscribe((event) => {
      if (event.type === "tool_approval_request" && mode === "die-on-approval")
        process.kill(process.pid, "SIGKILL");
      if (event.type !== "queue_update") return;
      for (const message of [...event.steer, ...event.followUp])
        if (message.role === "user") process.stdout.write(`QUEUED ${JSON.stringify(message.content)}\n`);
    }),
  onLeaseLost: (sessionId) => process.stdout.write(`FENCED ${sessionId}\n`),
  onError: (error) => process.stderr.write(`worker error: ${String(error)}\n`),
});
process.stdout.write("READY\n");
await worker.stopped;
await sink.end();
process.stdout.write("STOPPED\n");
