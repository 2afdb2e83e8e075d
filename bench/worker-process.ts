// One worker process of bench/workers.bench.ts: `createWorker` on a simulated model that answers
// every prompt after 150–300 ms (uniform), echoing it. Prints "READY" once serving; SIGTERM drains it.
// Usage: tsx bench/worker-process.ts <postgres URL> <schema> <concurrency>

import type { LlmContext, Model, StreamFn } from "../src/index.js";
import { createWorker } from "../src/postgres.js";
import { scriptedModel } from "../src/testing.js";

const [url, schema, concurrency] = process.argv.slice(2);
const model: Model = {
  id: "simulated",
  api: "scripted",
  provider: "bench",
  contextWindow: 100_000,
  maxTokens: 4_096,
};

/** The simulated model: waits 150–300 ms (the reply's latency), then streams an echo. */
const simulated: StreamFn = async (requestModel, context: LlmContext, options) => {
  await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 150));
  const last = context.messages.at(-1);
  const said = last?.role === "user" && typeof last.content === "string" ? last.content : "";
  return scriptedModel([{ text: `echo: ${said}` }])(requestModel, context, options);
};

const worker = await createWorker({
  connectionString: url!,
  schema: schema!,
  concurrency: Number(concurrency),
  harness: () => ({ model, streamFn: simulated }),
});
process.stdout.write("READY\n");
await worker.stopped;
