/**
 * Overhead of the `openai()` StreamFn over the bare SDK.
 *
 * Streams two 5,000-chunk Chat Completions replies from a loopback server — one of text deltas, one
 * tool call whose JSON arguments arrive in 5,000 deltas (a ~30 KB `content` string) — once through
 * the bare SDK (`client.chat.completions.create({stream: true})` consumed by an empty for-await loop:
 * the floor) and through the StreamFn (every event consumed; for the tool call also a consumer that
 * reads `partial.content[i].arguments` on every delta, as a UI would). Runs alternate; the table
 * shows the median of the measured runs. Run: `npx tsx bench/openai.bench.ts [runs]`.
 */
// The project's own SDK (bench/node_modules holds an older copy pulled in by pi-ai).
import OpenAI from "../node_modules/openai/index.mjs";
import { openai } from "../src/openai.js";
import type { LlmContext } from "../src/types/stream.js";
import { chatModel } from "../test/support/openai-fixtures.js";
import { OpenAITestServer } from "../test/support/openai-server.js";
import { median } from "./common.js";
import { textReplyBody, writeCallReplyBody } from "./openai-reply-bodies.js";

const CHUNKS = 5_000;
const WARMUP = 3;
const RUNS = Number(process.argv[2] ?? 9);

/** One way of consuming a reply: returns the elapsed ms. */
type Variant = { name: string; body: Buffer; run: (body: Buffer) => Promise<number> };

async function main(): Promise<void> {
  const server = await OpenAITestServer.start();
  const textBody = Buffer.from(textReplyBody(CHUNKS));
  const toolCallBody = Buffer.from(writeCallReplyBody(CHUNKS));
  const model = chatModel();
  const context: LlmContext = {
    systemPrompt: "",
    messages: [{ role: "user", content: "go", timestamp: 0 }],
    tools: [],
  };
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: "bench", logLevel: "off" });
  const streamFn = openai({ client });

  const runFloor = async (body: Buffer): Promise<number> => {
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

  /** Consumes every event; with `readArguments`, reads the streaming call's arguments on each delta. */
  const runProvider = async (body: Buffer, readArguments: boolean): Promise<number> => {
    server.enqueue({ kind: "stream", pieces: [body] });
    const start = performance.now();
    let events = 0;
    let last = "";
    let keys = 0;
    for await (const event of streamFn(model, context)) {
      events++;
      last = event.type;
      if (readArguments && event.type === "toolcall_delta") {
        const block = event.partial.content[event.contentIndex] as { arguments: Record<string, unknown> };
        keys += Object.keys(block.arguments).length;
      }
    }
    const elapsed = performance.now() - start;
    if (last !== "done" || events < CHUNKS)
      throw new Error(`unexpected stream end: ${last} after ${events} events`);
    if (readArguments && keys === 0) throw new Error("the arguments never showed while streaming");
    return elapsed;
  };

  const variants: Variant[] = [
    { name: "text: bare SDK for-await (floor)", body: textBody, run: runFloor },
    { name: "text: openai() StreamFn, all events", body: textBody, run: (b) => runProvider(b, false) },
    { name: "tool call: bare SDK for-await (floor)", body: toolCallBody, run: runFloor },
    {
      name: "tool call: openai() StreamFn, all events",
      body: toolCallBody,
      run: (b) => runProvider(b, false),
    },
    {
      name: "tool call: StreamFn, reading arguments per delta",
      body: toolCallBody,
      run: (b) => runProvider(b, true),
    },
  ];
  for (let i = 0; i < WARMUP; i++) for (const variant of variants) await variant.run(variant.body);
  const times = variants.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) {
    for (let v = 0; v < variants.length; v++) times[v]!.push(await variants[v]!.run(variants[v]!.body));
  }
  await server.close();

  console.log(`OpenAI provider, ${CHUNKS} chunks, median of ${RUNS} runs (Node ${process.version})\n`);
  console.log("| path | ms per reply | µs per chunk | ratio to its floor |");
  console.log("|---|---:|---:|---:|");
  let floorMs = 0;
  for (let v = 0; v < variants.length; v++) {
    const ms = median(times[v]!);
    if (variants[v]!.run === runFloor) floorMs = ms;
    const perChunk = ((ms / CHUNKS) * 1000).toFixed(2);
    console.log(`| ${variants[v]!.name} | ${ms.toFixed(1)} | ${perChunk} | ${(ms / floorMs).toFixed(2)}× |`);
  }
}

await main();
