/**
 * Overhead of the `openai()` StreamFn over the bare SDK.
 *
 * Streams a 5,000-chunk Chat Completions reply from a loopback server, once through the bare SDK
 * (`client.chat.completions.create({stream: true})` consumed by an empty for-await loop: the floor)
 * and once through the StreamFn (every event consumed). Runs alternate; the table shows the median
 * of the measured runs. Run: `npx tsx bench/openai.bench.ts [runs]`.
 */
// The project's own SDK (bench/node_modules holds an older copy pulled in by pi-ai).
import OpenAI from "../node_modules/openai/index.mjs";
import { openai } from "../src/openai.js";
import type { LlmContext } from "../src/types/stream.js";
import { chatModel, chunk, usageChunk } from "../test/support/openai-fixtures.js";
import { OpenAITestServer, sseBody } from "../test/support/openai-server.js";

const CHUNKS = 5_000;
const WARMUP = 3;
const RUNS = Number(process.argv[2] ?? 9);

function replyBody(): string {
  const chunks: unknown[] = [chunk({ role: "assistant", content: "" })];
  for (let i = 0; i < CHUNKS; i++) chunks.push(chunk({ content: `tok${i % 97} ` }));
  chunks.push(chunk({}, "stop"), usageChunk(1000, CHUNKS));
  return sseBody(chunks);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  const server = await OpenAITestServer.start();
  const body = Buffer.from(replyBody());
  const model = chatModel();
  const context: LlmContext = {
    systemPrompt: "",
    messages: [{ role: "user", content: "go", timestamp: 0 }],
    tools: [],
  };
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: "bench", logLevel: "off" });
  const streamFn = openai({ client });

  const runFloor = async (): Promise<number> => {
    server.enqueue({ kind: "stream", pieces: [body] });
    const start = performance.now();
    const stream = await client.chat.completions.create({
      model: model.id,
      messages: [{ role: "user", content: "go" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _ of stream) {
      // the floor: decode and drop
    }
    return performance.now() - start;
  };

  const runProvider = async (): Promise<number> => {
    server.enqueue({ kind: "stream", pieces: [body] });
    const start = performance.now();
    let events = 0;
    let last = "";
    for await (const event of streamFn(model, context)) {
      events++;
      last = event.type;
    }
    const elapsed = performance.now() - start;
    if (last !== "done" || events < CHUNKS)
      throw new Error(`unexpected stream end: ${last} after ${events} events`);
    return elapsed;
  };

  for (let i = 0; i < WARMUP; i++) {
    await runFloor();
    await runProvider();
  }
  const floor: number[] = [];
  const provider: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    floor.push(await runFloor());
    provider.push(await runProvider());
  }
  await server.close();

  const floorUs = (median(floor) / CHUNKS) * 1000;
  const providerUs = (median(provider) / CHUNKS) * 1000;
  console.log(`OpenAI provider, ${CHUNKS} chunks, median of ${RUNS} runs (Node ${process.version})\n`);
  console.log("| path | ms per reply | µs per chunk |");
  console.log("|---|---:|---:|");
  console.log(`| bare SDK for-await (floor) | ${median(floor).toFixed(1)} | ${floorUs.toFixed(2)} |`);
  console.log(
    `| openai() StreamFn, all events | ${median(provider).toFixed(1)} | ${providerUs.toFixed(2)} |`,
  );
  console.log(`| ratio | | ${(providerUs / floorUs).toFixed(2)}× |`);
}

await main();
